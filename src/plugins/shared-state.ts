// Replicas as one sandbox (PostgreSQL): before anything else, each request reads the shared row
// (src/storage/shared.ts). A newer version drops this replica's caches (client rows and verified
// secrets, and whatever registered with `onStale`); a newer clock is taken. A move of this
// replica's clock is stored, and the clock route's `settle()` waits for it, so the answer comes
// after every replica can read it. On SQLite one process owns the database: nothing to do.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { sharedStateStore } from '../storage/shared.js'

export interface SharedState {
  /** Runs `drop` whenever another replica changed what this one caches. */
  onStale (drop: () => void): void
  /** Reads the shared row now and applies it (what each request does first). */
  refresh (): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance { sharedState: SharedState }
}

async function sharedState (app: FastifyInstance): Promise<void> {
  const droppers: Array<() => void> = [() => { app.clients.forget() }]
  const state: SharedState = { onStale: drop => { droppers.push(drop) }, refresh: async () => {} }
  app.decorate('sharedState', state)
  if (app.storage.db.dialect === 'sqlite') return

  const store = app.storage.store(sharedStateStore)
  const first = await store.read()
  let version = first.version
  let clockVersion = 0
  /** Moves of this replica's clock not yet stored: meanwhile, the stored clock is older than ours. */
  let saving = 0
  let saved: Promise<void> = Promise.resolve()

  const apply = (row: Awaited<ReturnType<typeof store.read>>): void => {
    if (row.version !== version) {
      version = row.version
      for (const drop of droppers) drop()
    }
    if (saving === 0 && row.clockVersion > clockVersion) {
      clockVersion = row.clockVersion
      app.clock.adopt(row.clockOffsetMs, row.clockFrozenAt)
    }
  }
  apply(first)
  state.refresh = async () => { apply(await store.read()) }

  app.clock.on('change', (change?: { remote?: boolean }) => {
    if (change?.remote === true) return
    const { offsetMs, frozenAt } = app.clock.position
    saving++
    saved = store.saveClock(offsetMs, frozenAt)
      .then(v => { clockVersion = Math.max(clockVersion, v) }, err => { app.log.error({ err }, 'the clock could not be stored for the other replicas') })
      .finally(() => { saving-- })
  })
  app.clock.follow(() => saved)
  app.addHook('onRequest', async () => { await state.refresh() })
}

export default fp(sharedState, { name: 'shared-state' })
