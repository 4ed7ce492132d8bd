// The capabilities area's store: terms acceptances and cooldowns. Every statement is prepared once,
// here; request-path writes go through the group commit, events in the same write.
import { groupCommit, type Db } from '../storage/db.js'
import { recordEvent } from '../storage/outbox.js'
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
  /** Running cooldowns whose end has come at `now` (ms), oldest first. */
  due (now: number, limit: number): Promise<string[]>
}

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
  const due = db.prepare<[number, number], string>('SELECT user_id FROM cooldowns WHERE ended_at IS NULL AND ends_at <= ? ORDER BY ends_at, user_id LIMIT ?').pluck()
  const write = groupCommit(db)
  return {
    async acceptances (userId) {
      return Object.fromEntries(acceptances.all(userId).map(r => [r.code, r.accepted_at]))
    },
    async accept (organizationId, userId, code, at, ip) {
      return await write(() => accept.run(userId, organizationId, code, at, ip).changes === 1)
    },
    async cooldown (userId) {
      const row = cooldown.get(userId)
      return row === undefined ? undefined : toCooldown(row)
    },
    async startCooldown (c) {
      return await write(() => {
        if (userExists.get(c.organizationId, c.userId) !== undefined) {
          insertCooldown.run(c.userId, c.organizationId, JSON.stringify(c.assets), JSON.stringify(c.features), c.endsAt, c.endedAt)
        }
        const row = cooldown.get(c.userId)
        return row === undefined ? c : toCooldown(row)
      })
    },
    async endCooldown (userId, at, event) {
      return await write(() => {
        if (end.run(at, userId).changes === 0) return false
        recordEvent(db, event(toCooldown(cooldown.get(userId)!)))
        return true
      })
    },
    async due (now, limit) {
      return due.all(now, limit)
    }
  }
}
