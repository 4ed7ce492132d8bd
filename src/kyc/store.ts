// The KYC area's store: every statement prepared once, here. A change reads the user's state and
// writes what the state machine made of it in one write of the group commit, with the user's
// record (users.record, which GET /core/users/me shows) and the events of every status change.
import { groupCommit, type Db } from '../storage/db.js'
import { recordEvent } from '../storage/outbox.js'
import { dueScopeParams, onDueScope, toDueAt, type DueAt, type DueScope } from '../storage/shared.js'
import { emailKey } from '../storage/core.js'
import type { NewEvent } from '../storage/index.js'
import { PROCESS_CODES, type ProcessCode } from '../../schemas/kyc.js'
import { complete, withDefaults, type Json, type KycConfig, type ProcessState, type Snapshot, type UserData } from './model.js'
import type { Change, Lookups } from './machine.js'

export interface DueReview { organizationId: string, userId: string, process: ProcessCode }

export interface KybStatus { userId: string, status: 'running' | 'ok' | 'failed', updatedAt: string }

export interface KycStore {
  /** The user's KYC as stored (processes never changed in their initial state); undefined when there is no such user. */
  read (organizationId: string, userId: string): Promise<Snapshot | undefined>
  /** The snapshot of a user the caller has just read (its record parsed): the user's row is not read again. */
  readFor (user: UserData): Promise<Snapshot>
  /**
   * Runs `work` on the state read inside the write, then stores its change, the user record and the
   * events. `work` runs inside the write (its lookups read there) and may throw (nothing is written).
   * Undefined when there is no such user.
   */
  change<T> (organizationId: string, userId: string, work: (snapshot: Snapshot, lookups: Lookups) => Promise<{ change: Change, result: T }>, event: (type: string, data: Json) => NewEvent): Promise<T | undefined>
  /** Each organization's earliest review due at or before `through` (see src/kit/due-work.ts). */
  earliestDue (through: number): Promise<DueAt[]>
  /** Reviews due at `now` (ms, sandbox clock), oldest first. */
  due (now: number, limit: number, scope: DueScope): Promise<DueReview[]>
  /** The organization's configuration, defaults filled in. */
  config (organizationId: string): Promise<KycConfig>
  /** Stores an organization's configuration, inside a fixture's transaction. */
  fixtureConfig (organizationId: string, config: Partial<KycConfig>): Promise<void>
  /** These users (the users store's) with their KYC and KYB status, for the dashboard. */
  list (users: UserData[]): Promise<Array<Snapshot & { kyb?: string }>>
  /** Sets a user's KYB onboarding status and records its event; undefined when there is no such user. */
  setKyb (organizationId: string, userId: string, status: KybStatus['status'], at: string, event: NewEvent): Promise<KybStatus | undefined>
}

interface UserRow { id: string, organization_id: string, email: string, record: string }
interface ProcessRow { user_id: string, process: string, state: string }

export function kycStore (db: Db): KycStore {
  const user = db.prepare<[string, string], UserRow>('SELECT id, organization_id, email, record FROM users WHERE organization_id = ? AND id = ?')
  const processes = db.prepare<[string], ProcessRow>('SELECT user_id, process, state FROM kyc_processes WHERE user_id = ?')
  const configOf = db.prepare<[string], string>('SELECT config FROM kyc_configs WHERE organization_id = ?').pluck()
  const upsertConfig = db.prepare('INSERT INTO kyc_configs (organization_id, config) VALUES (?, ?) ON CONFLICT (organization_id) DO UPDATE SET config = excluded.config')
  const upsertProcess = db.prepare(`INSERT INTO kyc_processes (user_id, organization_id, process, state, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (user_id, process) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`)
  const upsertReview = db.prepare(`INSERT INTO kyc_reviews (user_id, process, organization_id, due_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (user_id, process) DO UPDATE SET due_at = excluded.due_at`)
  const deleteReview = db.prepare('DELETE FROM kyc_reviews WHERE user_id = ? AND process = ?')
  const due = db.prepare<[number, string | null, string | null, number], { organization_id: string, user_id: string, process: string }>(
    `SELECT organization_id, user_id, process FROM kyc_reviews WHERE due_at <= ? AND ${onDueScope('organization_id')} ORDER BY due_at, user_id, process LIMIT ?`)
  const earliestDue = db.prepare<[number], { organization_id: string, at: number }>(
    'SELECT organization_id, MIN(due_at) AS at FROM kyc_reviews WHERE due_at <= ? GROUP BY organization_id')
  const updateUser = db.prepare('UPDATE users SET record = ?, email = ?, email_key = ? WHERE id = ?')
  const emailOwner = db.prepare<[string, string], string>('SELECT id FROM users WHERE organization_id = ? AND email_key = ?').pluck()
  const phoneOwner = db.prepare<[string, string, string], string>({
    sqlite: "SELECT id FROM users WHERE organization_id = ? AND json_extract(record, '$.phone.number') = ? AND id != ? LIMIT 1",
    postgres: "SELECT id FROM users WHERE organization_id = ? AND record::jsonb #>> '{phone,number}' = ? AND id != ? LIMIT 1"
  }).pluck()
  const kybOf = db.prepare<[string], string>('SELECT status FROM kyb_onboarding WHERE user_id = ?').pluck()
  const upsertKyb = db.prepare(`INSERT INTO kyb_onboarding (user_id, organization_id, status, updated_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (user_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`)
  const write = groupCommit(db)

  const configFor = async (organizationId: string): Promise<KycConfig> => {
    const stored = await configOf.get(organizationId)
    return withDefaults(stored === undefined ? undefined : JSON.parse(stored) as Partial<KycConfig>)
  }

  const snapshotFor = async (data: UserData): Promise<Snapshot> => {
    const config = await configFor(data.organizationId)
    const stored: Partial<Record<ProcessCode, ProcessState>> = {}
    for (const p of await processes.all(data.id)) {
      if ((PROCESS_CODES as readonly string[]).includes(p.process)) stored[p.process as ProcessCode] = JSON.parse(p.state) as ProcessState
    }
    return { user: data, processes: complete(stored, data.record, config), config }
  }
  const snapshotOf = async (row: UserRow): Promise<Snapshot> =>
    await snapshotFor({ id: row.id, organizationId: row.organization_id, email: row.email, record: JSON.parse(row.record) as Json })

  return {
    async read (organizationId, userId) {
      const row = await user.get(organizationId, userId)
      return row === undefined ? undefined : await snapshotOf(row)
    },

    async readFor (data) { return await snapshotFor(data) },

    async change (organizationId, userId, work, event) {
      return await write(async () => {
        const row = await user.get(organizationId, userId)
        if (row === undefined) return undefined
        const snapshot = await snapshotOf(row)
        const lookups: Lookups = {
          emailTaken: async email => { const owner = await emailOwner.get(organizationId, emailKey(email)); return owner !== undefined && owner !== userId },
          phoneTaken: async phone => await phoneOwner.get(organizationId, phone, userId) !== undefined
        }
        const { change, result } = await work(snapshot, lookups)
        const now = change.iso
        for (const code of change.changed) {
          const state = change.processes[code]
          await upsertProcess.run(userId, organizationId, code, JSON.stringify(state), now)
          if (state.reviewDueAt === undefined) await deleteReview.run(userId, code)
          else await upsertReview.run(userId, code, organizationId, state.reviewDueAt)
        }
        if (change.userChanged) {
          const email = String(change.record.email)
          await updateUser.run(JSON.stringify(change.record), email, emailKey(email), userId)
        }
        for (const e of change.events) await recordEvent(db, event(e.type, e.data))
        return result
      })
    },

    async earliestDue (through) { return (await earliestDue.all(through)).map(toDueAt) },
    async due (now, limit, scope) {
      return (await due.all(now, ...dueScopeParams(scope), limit)).map(r => ({ organizationId: r.organization_id, userId: r.user_id, process: r.process as ProcessCode }))
    },

    async config (organizationId) { return await configFor(organizationId) },

    async fixtureConfig (organizationId, config) { await upsertConfig.run(organizationId, JSON.stringify(config)) },

    async list (users) {
      const out: Array<Snapshot & { kyb?: string }> = []
      for (const data of users) {
        const kyb = await kybOf.get(data.id)
        const snapshot = await snapshotFor(data)
        out.push(kyb === undefined ? snapshot : { ...snapshot, kyb })
      }
      return out
    },

    async setKyb (organizationId, userId, status, at, event) {
      return await write(async () => {
        if (await user.get(organizationId, userId) === undefined) return undefined
        await upsertKyb.run(userId, organizationId, status, at)
        await recordEvent(db, event)
        return { userId, status, updatedAt: at }
      })
    }
  }
}
