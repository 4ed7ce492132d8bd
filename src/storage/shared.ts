// What replicas of one database share beyond their rows: the sandbox clock as moved through the
// control API, and a version that every write changing a cached thing (client rows and verified
// secrets, fault rules, pins) bumps inside its own transaction. On PostgreSQL each request first
// reads this one row (a primary-key read): a replica that finds a newer version drops its caches,
// one that finds a newer clock takes it. So a write acknowledged by one replica is seen by the
// next request to any replica, with no window a notification would leave. On SQLite one process
// owns the database and nothing is read per request.
import { groupCommit, type Db } from './db.js'

export interface SharedRow {
  version: number
  clockVersion: number
  clockOffsetMs: number
  clockFrozenAt: number | null
}

export interface SharedStateStore {
  read (): Promise<SharedRow>
  /** Marks every replica's caches stale: inside the write that changed what they cache, or alone. */
  bump (): Promise<void>
  /** Stores the clock (offset from the machine's time, or the instant it stands still at); answers its version. */
  saveClock (offsetMs: number, frozenAt: number | null): Promise<number>
}

interface Row { version: number, clock_version: number, clock_offset_ms: number, clock_frozen_at: number | null }

export function sharedStateStore (db: Db): SharedStateStore {
  const read = db.prepare<[], Row>('SELECT version, clock_version, clock_offset_ms, clock_frozen_at FROM shared_state WHERE id = 1')
  const bump = db.prepare('UPDATE shared_state SET version = version + 1 WHERE id = 1')
  const saveClock = db.prepare('UPDATE shared_state SET clock_version = clock_version + 1, clock_offset_ms = ?, clock_frozen_at = ? WHERE id = 1')
  const clockVersion = db.prepare<[], number>('SELECT clock_version FROM shared_state WHERE id = 1').pluck()
  const write = groupCommit(db)
  return {
    async read () {
      const r = await read.get()
      if (r === undefined) return { version: 0, clockVersion: 0, clockOffsetMs: 0, clockFrozenAt: null }
      return { version: r.version, clockVersion: r.clock_version, clockOffsetMs: r.clock_offset_ms, clockFrozenAt: r.clock_frozen_at }
    },
    async bump () { await write(async () => { await bump.run() }) },
    async saveClock (offsetMs, frozenAt) {
      return await write(async () => {
        await saveClock.run(Math.round(offsetMs), frozenAt === null ? null : Math.round(frozenAt))
        return (await clockVersion.get()) ?? 0
      })
    }
  }
}

/** Bumps the shared version inside the caller's write (a client's row changed, a reset, a fixture load). */
export function sharedVersionBump (db: Db): () => Promise<void> {
  const bump = db.prepare('UPDATE shared_state SET version = version + 1 WHERE id = 1')
  return async () => { await bump.run() }
}
