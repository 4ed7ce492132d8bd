// The capabilities area's store: terms acceptances and cooldowns. Every statement is prepared once,
// here; request-path writes go through the group commit, events in the same write.
import { groupCommit, type Db } from '../storage/db.js'
import { recordEvent } from '../storage/outbox.js'
import { dueScopeParams, onDueScope, toDueAt, type DueAt, type DueScope } from '../storage/shared.js'
import type { NewEvent } from '../storage/index.js'

export interface Cooldown {
  userId: string
  organizationId: string
  assets: string[]
  features: string[]
  /** Ms, sandbox clock. */
  endsAt: number
  endedAt: string | null
}

export interface CapabilitiesStore {
  /** When the user accepted the terms through the API, by code. */
  acceptances (userId: string): Promise<Record<string, string>>
  /** Records an acceptance; false when the user had accepted them already. */
  accept (organizationId: string, userId: string, code: string, at: string, ip: string): Promise<boolean>
  /** The user's cooldown as stored, if any. */
  cooldown (userId: string): Promise<Cooldown | undefined>
  /** Stores the user's cooldown unless one is stored; answers the stored one. */
  startCooldown (cooldown: Cooldown): Promise<Cooldown>
  /** Ends the user's running cooldown with its event; false when none was running. */
  endCooldown (userId: string, at: string, event: (c: Cooldown) => NewEvent): Promise<boolean>
  /**
   * Each organization's earliest running cooldown that ends at or before `through`, and (an
   * organization of null, due at once) whether users wait for the scan (see src/kit/due-work.ts).
   */
  earliestDue (through: number): Promise<DueAt[]>
  /** Running cooldowns whose end has come at `now` (ms), oldest first. */
  due (now: number, limit: number, scope: DueScope): Promise<string[]>
  /** Users created since the last call that acknowledged its batch, in creation order (read by rowid, not scanned). */
  newUsers (limit: number): Promise<{ users: NewUser[], through: number }>
  /** Records that the users up to `rowid` have been looked at. */
  scannedThrough (rowid: number): Promise<void>
}

export interface NewUser { organizationId: string, userId: string, record: Record<string, unknown>, createdAt: string }

interface CooldownRow { user_id: string, organization_id: string, assets: string, features: string, ends_at: number, ended_at: string | null }

const toCooldown = (r: CooldownRow): Cooldown => ({
  userId: r.user_id, organizationId: r.organization_id, assets: JSON.parse(r.assets), features: JSON.parse(r.features), endsAt: r.ends_at, endedAt: r.ended_at
})

export function capabilitiesStore (db: Db): CapabilitiesStore {
  const acceptances = db.prepare<[string], { code: string, accepted_at: string }>('SELECT code, accepted_at FROM terms_acceptances WHERE user_id = ?')
  const accept = db.prepare('INSERT INTO terms_acceptances (user_id, organization_id, code, accepted_at, ip) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING')
  const cooldown = db.prepare<[string], CooldownRow>('SELECT * FROM cooldowns WHERE user_id = ?')
  const insertCooldown = db.prepare(`INSERT INTO cooldowns (user_id, organization_id, assets, features, ends_at, ended_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT DO NOTHING`)
  const userExists = db.prepare<[string, string], number>('SELECT 1 FROM users WHERE organization_id = ? AND id = ?').pluck()
  const end = db.prepare('UPDATE cooldowns SET ended_at = ? WHERE user_id = ? AND ended_at IS NULL')
  const due = db.prepare<[number, string | null, string | null, number], string>(
    `SELECT user_id FROM cooldowns WHERE ended_at IS NULL AND ends_at <= ? AND ${onDueScope('organization_id')} ORDER BY ends_at, user_id LIMIT ?`).pluck()
  const earliestDue = db.prepare<[number], { organization_id: string | null, at: number }>(`SELECT organization_id, MIN(ends_at) AS at FROM cooldowns
      WHERE ended_at IS NULL AND ends_at <= ? GROUP BY organization_id
    UNION ALL SELECT NULL, 0 WHERE EXISTS (SELECT 1 FROM users WHERE rowid > COALESCE((SELECT last_user_rowid FROM cooldown_scan WHERE id = 1), 0))`)
  const scanned = db.prepare<[], number>('SELECT last_user_rowid FROM cooldown_scan WHERE id = 1').pluck()
  // The greater of the two: SQLite's scalar max, PostgreSQL's GREATEST.
  const markScanned = db.prepare({
    sqlite: 'INSERT INTO cooldown_scan (id, last_user_rowid) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET last_user_rowid = max(last_user_rowid, excluded.last_user_rowid)',
    postgres: 'INSERT INTO cooldown_scan (id, last_user_rowid) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET last_user_rowid = GREATEST(cooldown_scan.last_user_rowid, excluded.last_user_rowid)'
  })
  const usersAfter = db.prepare<[number, number], { rowid: number, id: string, organization_id: string, record: string, created_at: string }>(
    'SELECT rowid, id, organization_id, record, created_at FROM users WHERE rowid > ? ORDER BY rowid LIMIT ?')
  const write = groupCommit(db)
  return {
    async acceptances (userId) {
      return Object.fromEntries((await acceptances.all(userId)).map(r => [r.code, r.accepted_at]))
    },
    async accept (organizationId, userId, code, at, ip) {
      return await write(async () => (await accept.run(userId, organizationId, code, at, ip)).changes === 1)
    },
    async cooldown (userId) {
      const row = await cooldown.get(userId)
      return row === undefined ? undefined : toCooldown(row)
    },
    async startCooldown (c) {
      return await write(async () => {
        if (await userExists.get(c.organizationId, c.userId) !== undefined) {
          await insertCooldown.run(c.userId, c.organizationId, JSON.stringify(c.assets), JSON.stringify(c.features), c.endsAt, c.endedAt)
        }
        const row = await cooldown.get(c.userId)
        return row === undefined ? c : toCooldown(row)
      })
    },
    async endCooldown (userId, at, event) {
      return await write(async () => {
        if ((await end.run(at, userId)).changes === 0) return false
        await recordEvent(db, event(toCooldown((await cooldown.get(userId))!)))
        return true
      })
    },
    async earliestDue (through) { return (await earliestDue.all(through)).map(toDueAt) },
    async due (now, limit, scope) {
      return await due.all(now, ...dueScopeParams(scope), limit)
    },
    async newUsers (limit) {
      const after = await scanned.get() ?? 0
      const rows = await usersAfter.all(after, limit)
      return {
        users: rows.map(r => ({ organizationId: r.organization_id, userId: r.id, record: JSON.parse(r.record) as Record<string, unknown>, createdAt: r.created_at })),
        through: rows.length === 0 ? after : rows[rows.length - 1].rowid
      }
    },
    async scannedThrough (rowid) {
      await write(async () => { await markScanned.run(rowid) })
    }
  }
}
