// What replicas of one database share beyond their rows: the sandbox clock as moved through the
// control API, the organizations' own clocks, and a version that every write changing a cached
// thing (client rows and verified secrets, fault rules, pins) bumps inside its own transaction. On
// PostgreSQL each request first reads the one shared row (a primary-key read): a replica that finds
// a newer version drops its caches, one that finds a newer clock version takes the global clock and
// reads the organizations' clocks again. So a write acknowledged by one replica is seen by the next
// request to any replica, with no window a notification would leave. On SQLite one process owns the
// database: the organizations' clocks are stored (they survive a restart) and read at start only.
import { groupCommit, type Db } from './db.js'
import type { OrganizationPosition } from '../clock.js'

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
  /**
   * Stores the global clock (offset from the machine's time, or the instant it stands still at),
   * moving the frozen organizations' clocks by `shiftMs` with it; answers the clock version.
   */
  saveClock (offsetMs: number, frozenAt: number | null, shiftMs: number): Promise<number>
  /** Moves the frozen organizations' clocks by `shiftMs` (the global clock moved; SQLite, where it is not stored). */
  shiftFrozen (shiftMs: number): Promise<void>
  /** Every organization with a clock of its own. */
  organizationClocks (): Promise<Map<string, OrganizationPosition>>
  /** Gives an organization its own clock (undefined: back on the global clock); answers the clock version. */
  saveOrganizationClock (organizationId: string, position: OrganizationPosition | undefined): Promise<number>
}

interface Row { version: number, clock_version: number, clock_offset_ms: number, clock_frozen_at: number | null }

export function sharedStateStore (db: Db): SharedStateStore {
  const read = db.prepare<[], Row>('SELECT version, clock_version, clock_offset_ms, clock_frozen_at FROM shared_state WHERE id = 1')
  const bump = db.prepare('UPDATE shared_state SET version = version + 1 WHERE id = 1')
  const saveClock = db.prepare('UPDATE shared_state SET clock_version = clock_version + 1, clock_offset_ms = ?, clock_frozen_at = ? WHERE id = 1')
  const bumpClock = db.prepare('UPDATE shared_state SET clock_version = clock_version + 1 WHERE id = 1')
  const clockVersion = db.prepare<[], number>('SELECT clock_version FROM shared_state WHERE id = 1').pluck()
  const shift = db.prepare('UPDATE sandbox_clocks SET frozen_at = frozen_at + ? WHERE frozen_at IS NOT NULL')
  const clocks = db.prepare<[], { organization_id: string, offset_ms: number, frozen_at: number | null }>(
    'SELECT organization_id, offset_ms, frozen_at FROM sandbox_clocks ORDER BY organization_id')
  const upsert = db.prepare(`INSERT INTO sandbox_clocks (organization_id, offset_ms, frozen_at) VALUES (?, ?, ?)
    ON CONFLICT (organization_id) DO UPDATE SET offset_ms = excluded.offset_ms, frozen_at = excluded.frozen_at`)
  const remove = db.prepare('DELETE FROM sandbox_clocks WHERE organization_id = ?')
  const write = groupCommit(db)
  return {
    async read () {
      const r = await read.get()
      if (r === undefined) return { version: 0, clockVersion: 0, clockOffsetMs: 0, clockFrozenAt: null }
      return { version: Number(r.version), clockVersion: Number(r.clock_version), clockOffsetMs: Number(r.clock_offset_ms), clockFrozenAt: r.clock_frozen_at === null ? null : Number(r.clock_frozen_at) }
    },
    async bump () { await write(async () => { await bump.run() }) },
    async saveClock (offsetMs, frozenAt, shiftMs) {
      return await write(async () => {
        await saveClock.run(Math.round(offsetMs), frozenAt === null ? null : Math.round(frozenAt))
        if (shiftMs !== 0) await shift.run(Math.round(shiftMs))
        return Number(await clockVersion.get() ?? 0)
      })
    },
    async shiftFrozen (shiftMs) {
      if (shiftMs !== 0) await write(async () => { await shift.run(Math.round(shiftMs)) })
    },
    async organizationClocks () {
      const out = new Map<string, OrganizationPosition>()
      for (const r of await clocks.all()) out.set(r.organization_id, { offsetMs: Number(r.offset_ms), frozenAt: r.frozen_at === null ? null : Number(r.frozen_at) })
      return out
    },
    async saveOrganizationClock (organizationId, position) {
      return await write(async () => {
        if (position === undefined) await remove.run(organizationId)
        else await upsert.run(organizationId, Math.round(position.offsetMs), position.frozenAt === null ? null : Math.round(position.frozenAt))
        await bumpClock.run()
        return Number(await clockVersion.get() ?? 0)
      })
    }
  }
}

/** Bumps the shared version inside the caller's write (a client's row changed, a reset, a fixture load). */
export function sharedVersionBump (db: Db): () => Promise<void> {
  const bump = db.prepare('UPDATE shared_state SET version = version + 1 WHERE id = 1')
  return async () => { await bump.run() }
}

/**
 * Due work runs once per clock (src/kit/due-work.ts): for each organization with a clock of its
 * own, then (null) for every organization on the global clock. This SQL condition keeps a due
 * query to the rows of the pass's organizations; it takes two parameters, the pass's organization
 * id (or null) twice: `...dueScopeParams(scope)`.
 */
export const onDueScope = (column: string): string =>
  `(${column} = CAST(? AS TEXT) OR (CAST(? AS TEXT) IS NULL AND ${column} NOT IN (SELECT organization_id FROM sandbox_clocks)))`

/** The organization a pass of due work serves; null: every organization on the global clock. */
export type DueScope = string | null

export const dueScopeParams = (scope: DueScope): [string | null, string | null] => [scope, scope]

/**
 * An organization's earliest due item (milliseconds on its clock), from a query over every clock
 * (see `EarliestDue` in src/kit/due-work.ts); `organizationId` null: work of the global clock's
 * pass that is no organization's.
 */
export interface DueAt { organizationId: string | null, at: number }

/** A row of a query grouped by organization, `MIN(...) AS at` (an INTEGER, or a BIGINT the driver reads as a number). */
export const toDueAt = (r: { organization_id: string | null, at: number }): DueAt => ({ organizationId: r.organization_id, at: r.at })
