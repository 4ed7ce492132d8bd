// Replicas as one sandbox (PostgreSQL): before anything else, each request reads the shared row
// (src/storage/shared.ts), the requests of one turn of the event loop together. A newer version
// drops this replica's caches (client rows and verified secrets, the users the storage remembers,
// and whatever registered with `onStale`); a newer clock version is taken (the global clock, and
// the organizations' clocks read again). A move of this replica's global clock is stored, and the
// clock route's `settle()` waits for it, so the answer comes after every replica can read it; an
// organization's clock is stored before it moves here (`moveOrganizationClock`).
// On SQLite one process owns the database: the organizations' clocks are read once, at start.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { sharedStateStore } from '../storage/shared.js'
import { memoOf } from '../storage/memo.js'
import { onePerTurn } from '../turn-batch.js'
import type { ClockChange, OrganizationPosition } from '../clock.js'

export interface SharedState {
  /** Runs `drop` whenever another replica changed what this one caches. */
  onStale (drop: () => void): void
  /** Reads the shared row now and applies it (what each request does first). */
  refresh (): Promise<void>
  /** Stores an organization's own clock (undefined: back on the global clock), then moves it here. */
  moveOrganizationClock (organizationId: string, position: OrganizationPosition | undefined): Promise<void>
  /** Reads every organization's clock again (after a reset removed some). */
  reloadOrganizationClocks (): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance { sharedState: SharedState }
}

async function sharedState (app: FastifyInstance): Promise<void> {
  const store = app.storage.store(sharedStateStore)
  // The clients' cache, and the users the storage remembers (src/storage/memo.ts).
  const droppers: Array<() => void> = [() => { app.clients.forget() }, () => { memoOf(app.storage.db).clear() }]
  const reloadOrganizationClocks = async (): Promise<void> => { app.clock.adoptOrganizations(await store.organizationClocks()) }
  let clockVersion = 0
  // This replica's own clock save brought the clock version to `version`: it is current only when
  // nothing came between (version one past ours). Else another replica moved a clock meanwhile,
  // and the next refresh, seeing a newer version than ours, reads every clock again.
  const taken = (version: number): void => { if (version === clockVersion + 1) clockVersion = version }
  const state: SharedState = {
    onStale: drop => { droppers.push(drop) },
    refresh: async () => {},
    moveOrganizationClock: async (organizationId, position) => {
      const version = await store.saveOrganizationClock(organizationId, position)
      taken(version)
      app.clock.setOrganization(organizationId, position)
    },
    reloadOrganizationClocks
  }
  app.decorate('sharedState', state)
  await reloadOrganizationClocks()

  if (app.storage.db.dialect === 'sqlite') {
    // The global clock is this process's; the frozen organizations' clocks it moved are stored.
    app.clock.on('change', (change?: ClockChange) => {
      if (change?.shiftMs === undefined || change.shiftMs === 0 || change.remote === true) return
      store.shiftFrozen(change.shiftMs).catch(err => { app.log.error({ err }, 'the organizations\' clocks could not be stored') })
    })
    return
  }

  const first = await store.read()
  let version = first.version
  /** Moves of this replica's clock not yet stored: meanwhile, the stored clock is older than ours. */
  let saving = 0
  let saved: Promise<void> = Promise.resolve()

  const apply = async (row: Awaited<ReturnType<typeof store.read>>): Promise<void> => {
    let clocks = false
    if (row.version !== version) {
      version = row.version
      for (const drop of droppers) drop()
      // A reset may have removed organizations' clocks.
      clocks = true
    }
    if (saving === 0 && row.clockVersion > clockVersion) {
      clockVersion = row.clockVersion
      app.clock.adopt(row.clockOffsetMs, row.clockFrozenAt)
      clocks = true
    }
    if (clocks) await reloadOrganizationClocks()
  }
  await apply(first)
  // The requests that arrive in one turn of the event loop share one read of the row, sent at the
  // end of that turn (onePerTurn): it reaches PostgreSQL after each of them arrived, so each still
  // sees every write acknowledged before it was sent. Under load this is one read per turn instead
  // of one per request (a round trip through the driver, the largest part of a read's CPU on this
  // backend).
  state.refresh = onePerTurn(async () => { await apply(await store.read()) })

  app.clock.on('change', (change?: ClockChange) => {
    if (change?.remote === true || change?.organizationId !== undefined) return
    const { offsetMs, frozenAt } = app.clock.position
    saving++
    saved = store.saveClock(offsetMs, frozenAt, change?.shiftMs ?? 0)
      .then(taken, err => { app.log.error({ err }, 'the clock could not be stored for the other replicas') })
      .finally(() => { saving-- })
  })
  app.clock.follow(() => saved)
  app.addHook('onRequest', async () => { await state.refresh() })
}

export default fp(sharedState, { name: 'shared-state' })
