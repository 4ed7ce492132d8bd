// The external accounts area's store. Every statement is prepared once, here; request-path writes
// go through the group commit, with their events in the same write. The card check and expiry run
// on the sandbox clock through `due` and `settle`.
import { groupCommit, type Db } from '../storage/db.js'
import { entityMetadataRemover } from '../storage/metadata.js'
import { recordEvent } from '../storage/outbox.js'
import { dueScopeParams, onDueScope, toDueAt, type DueAt, type DueScope } from '../storage/shared.js'
import { memoOf } from '../storage/memo.js'
import { metadataInserter, type MetadataRevision } from '../storage/metadata.js'
import { isConstraint } from '../storage/core.js'
import type { NewEvent } from '../storage/index.js'
import type { ExternalAccountStatus, StatusReason } from '../../schemas/external-accounts.js'

export interface ExternalAccountRecord {
  id: string
  organizationId: string
  userId: string
  type: 'card' | 'bank'
  status: ExternalAccountStatus
  statusReason: StatusReason | null
  label: string
  asset: string
  network: string
  /** The features it has once `ok` (shown only while it is). */
  features: string[]
  /** What the API shows as `details` (for a card: brand type, last four digits, expiry). */
  details: Record<string, unknown>
  /** A keyed digest of what identifies it (a card's number, a bank's routing and account numbers): finds duplicates. */
  fingerprint: string
  /** A test card's behaviour the quotes and transactions read (`3ds`), or null. */
  behaviour: string | null
  /** When a processing card's check ends, ms on the sandbox clock; null once it has. */
  checkDueAt: number | null
  /** When a card stops being valid (the end of its expiry month), ms. */
  expiresAt: number | null
  createdAt: string
  updatedAt: string
}

/** Makes an event of the external account's organization. */
export type EventMaker = (type: string, account: ExternalAccountRecord) => NewEvent

export type CreateResult =
  | { ok: true, account: ExternalAccountRecord }
  | { ok: false, reason: 'exists' | 'user-missing' | 'duplicate' | 'card-active-limit' | 'card-unique-limit' }

/** A user's cards: held now, and distinct ones ever added (deleted ones included). */
export interface CardCounts {
  active: number
  unique: number
  /** Whether the card of the fingerprint asked about was added before (it adds no unique card). */
  addedBefore: boolean
}

export interface ExternalAccountsStore {
  get (organizationId: string, id: string): Promise<ExternalAccountRecord | undefined>
  /** By id, whichever organization: ids are unique across the sandbox. */
  find (id: string): Promise<ExternalAccountRecord | undefined>
  /** The user's external accounts, newest first. */
  list (organizationId: string, userId: string): Promise<ExternalAccountRecord[]>
  /** Whether the user already holds one with this fingerprint. */
  hasFingerprint (userId: string, fingerprint: string): Promise<boolean>
  /** The user's cards; `addedBefore` tells of the card with `fingerprint`. */
  cardCounts (organizationId: string, userId: string, fingerprint?: string): Promise<CardCounts>
  /**
   * Creates it with its first metadata and `core.external-account.created`, unless the user holds
   * one with the same fingerprint or (a card) already holds `cardLimits.active` cards, or has added
   * `cardLimits.unique` distinct cards and this one is new: checked in the same write, which also
   * counts a new card among those added.
   */
  create (account: ExternalAccountRecord, event: EventMaker, cardLimits: { active: number, unique: number }, metadata?: MetadataRevision): Promise<CreateResult>
  updateLabel (organizationId: string, id: string, label: string, at: string): Promise<ExternalAccountRecord | undefined>
  /** Deletes it and its metadata, with `core.external-account.deleted`; false when there was none. */
  remove (organizationId: string, id: string, event: EventMaker): Promise<boolean>
  /**
   * Sets the status (and reason) with `core.external-account.status-changed` when it changes; ends
   * any pending check. The record after, or undefined.
   */
  setStatus (id: string, status: ExternalAccountStatus, reason: StatusReason | null, at: string, event: EventMaker): Promise<ExternalAccountRecord | undefined>
  /** Each organization's earliest card check or expiry due at or before `through` (see src/kit/due-work.ts). */
  earliestDue (through: number): Promise<DueAt[]>
  /** Ids whose check or expiry has come by `now`. */
  due (now: number, limit: number, scope: DueScope): Promise<string[]>
  /**
   * Settles what has come due for one: an expired card turns `expired` (`card-expired`); a card
   * whose check is due turns `ok`. Each change with its event.
   */
  settle (id: string, now: number, event: EventMaker): Promise<void>
  /** The row of a fixture's external account, written inside the fixture's transaction. */
  fixtureRow (account: ExternalAccountRecord): Promise<void>
  /** Deletes a user's external accounts and their metadata, inside the write that deletes the user. */
  removeUserAccounts (organizationId: string, userId: string): Promise<void>
}

interface Row {
  id: string
  organization_id: string
  user_id: string
  type: 'card' | 'bank'
  status: ExternalAccountStatus
  status_reason: StatusReason | null
  label: string
  asset: string
  network: string
  features: string
  details: string
  fingerprint: string
  behaviour: string | null
  check_due_at: number | null
  expires_at: number | null
  created_at: string
  updated_at: string
}

const toRecord = (r: Row): ExternalAccountRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  userId: r.user_id,
  type: r.type,
  status: r.status,
  statusReason: r.status_reason,
  label: r.label,
  asset: r.asset,
  network: r.network,
  features: JSON.parse(r.features),
  details: JSON.parse(r.details),
  fingerprint: r.fingerprint,
  behaviour: r.behaviour,
  checkDueAt: r.check_due_at,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at
})

const toParams = (a: ExternalAccountRecord): Record<string, unknown> => ({
  ...a,
  features: JSON.stringify(a.features),
  details: JSON.stringify(a.details)
})

export function externalAccountsStore (db: Db): ExternalAccountsStore {
  const get = db.prepare<[string, string], Row>('SELECT * FROM external_accounts WHERE organization_id = ? AND id = ?')
  const find = db.prepare<[string], Row>('SELECT * FROM external_accounts WHERE id = ?')
  const list = db.prepare<[string, string], Row>('SELECT * FROM external_accounts WHERE organization_id = ? AND user_id = ? ORDER BY created_at DESC, id DESC')
  const withFingerprint = db.prepare<[string, string], number>('SELECT 1 FROM external_accounts WHERE user_id = ? AND fingerprint = ? LIMIT 1').pluck()
  const cards = db.prepare<[string, string], number>("SELECT count(*) FROM external_accounts WHERE organization_id = ? AND user_id = ? AND type = 'card'").pluck()
  const cardsAdded = db.prepare<[string, string], number>('SELECT count(*) FROM external_account_cards_added WHERE organization_id = ? AND user_id = ?').pluck()
  const cardAdded = db.prepare<[string, string], number>('SELECT 1 FROM external_account_cards_added WHERE user_id = ? AND fingerprint = ?').pluck()
  const addCard = db.prepare('INSERT INTO external_account_cards_added (user_id, fingerprint, organization_id, added_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
  const deleteCardsAdded = db.prepare('DELETE FROM external_account_cards_added WHERE organization_id = ? AND user_id = ?')
  const userExists = db.prepare<[string, string], number>('SELECT 1 FROM users WHERE organization_id = ? AND id = ?').pluck()
  const insert = db.prepare(`INSERT INTO external_accounts (id, organization_id, user_id, type, status, status_reason, label, asset, network, features,
      details, fingerprint, behaviour, check_due_at, expires_at, created_at, updated_at)
    VALUES (@id, @organizationId, @userId, @type, @status, @statusReason, @label, @asset, @network, @features,
      @details, @fingerprint, @behaviour, @checkDueAt, @expiresAt, @createdAt, @updatedAt)`)
  const setLabel = db.prepare('UPDATE external_accounts SET label = ?, updated_at = ? WHERE organization_id = ? AND id = ?')
  const setStatus = db.prepare('UPDATE external_accounts SET status = ?, status_reason = ?, check_due_at = NULL, updated_at = ? WHERE id = ?')
  const endCheck = db.prepare('UPDATE external_accounts SET check_due_at = NULL WHERE id = ?')
  const due = db.prepare<[number, string | null, string | null, number, string | null, string | null, number], string>(`SELECT id FROM external_accounts WHERE check_due_at <= ? AND ${onDueScope('organization_id')}
    UNION SELECT id FROM external_accounts WHERE expires_at IS NOT NULL AND status <> 'expired' AND expires_at <= ? AND ${onDueScope('organization_id')} LIMIT ?`).pluck()
  const earliestDue = db.prepare<[number, number], { organization_id: string, at: number }>(`SELECT organization_id, MIN(check_due_at) AS at FROM external_accounts
      WHERE check_due_at IS NOT NULL AND check_due_at <= ? GROUP BY organization_id
    UNION ALL SELECT organization_id, MIN(expires_at) AS at FROM external_accounts
      WHERE expires_at IS NOT NULL AND status <> 'expired' AND expires_at <= ? GROUP BY organization_id`)
  const deleteOne = db.prepare('DELETE FROM external_accounts WHERE organization_id = ? AND id = ?')
  const deleteMetadata = entityMetadataRemover(db, 'external-accounts')
  const idsForUser = db.prepare<[string, string], string>('SELECT id FROM external_accounts WHERE organization_id = ? AND user_id = ?').pluck()
  const deleteForUser = db.prepare('DELETE FROM external_accounts WHERE organization_id = ? AND user_id = ?')
  const insertMetadata = metadataInserter(db)
  const write = groupCommit(db)
  const memo = memoOf(db)

  const forgetMetadata = async (organizationId: string, id: string): Promise<void> => {
    await deleteMetadata(organizationId, id)
    memo.forgetMetadata({ organizationId, entity: 'external-accounts', entityId: id })
  }

  const changeStatus = async (row: Row, status: ExternalAccountStatus, reason: StatusReason | null, at: string, event: EventMaker): Promise<ExternalAccountRecord> => {
    await setStatus.run(status, reason, at, row.id)
    const after = toRecord((await find.get(row.id))!)
    if (row.status !== status || row.status_reason !== reason) await recordEvent(db, event('core.external-account.status-changed', after))
    return after
  }

  return {
    async get (organizationId, id) {
      const row = await get.get(organizationId, id)
      return row === undefined ? undefined : toRecord(row)
    },
    async find (id) {
      const row = await find.get(id)
      return row === undefined ? undefined : toRecord(row)
    },
    async list (organizationId, userId) {
      return (await list.all(organizationId, userId)).map(toRecord)
    },
    async hasFingerprint (userId, fingerprint) {
      return await withFingerprint.get(userId, fingerprint) !== undefined
    },
    async cardCounts (organizationId, userId, fingerprint) {
      return {
        active: (await cards.get(organizationId, userId))!,
        unique: (await cardsAdded.get(organizationId, userId))!,
        addedBefore: fingerprint !== undefined && await cardAdded.get(userId, fingerprint) !== undefined
      }
    },
    async create (account, event, cardLimits, metadata) {
      try {
        return await write(async (): Promise<CreateResult> => {
          if (await userExists.get(account.organizationId, account.userId) === undefined) return { ok: false, reason: 'user-missing' }
          if (await withFingerprint.get(account.userId, account.fingerprint) !== undefined) return { ok: false, reason: 'duplicate' }
          if (account.type === 'card') {
            const known = await cardAdded.get(account.userId, account.fingerprint) !== undefined
            if (!known && (await cardsAdded.get(account.organizationId, account.userId))! >= cardLimits.unique) return { ok: false, reason: 'card-unique-limit' }
            if ((await cards.get(account.organizationId, account.userId))! >= cardLimits.active) return { ok: false, reason: 'card-active-limit' }
            await addCard.run(account.userId, account.fingerprint, account.organizationId, account.createdAt)
          }
          await insert.run(toParams(account))
          if (metadata !== undefined) await insertMetadata({ organizationId: account.organizationId, entity: 'external-accounts', entityId: account.id }, metadata)
          await recordEvent(db, event('core.external-account.created', account))
          return { ok: true, account }
        })
      } catch (err) {
        if (isConstraint(err)) return { ok: false, reason: 'exists' }
        throw err
      }
    },
    async updateLabel (organizationId, id, label, at) {
      return await write(async () => {
        if ((await setLabel.run(label, at, organizationId, id)).changes === 0) return undefined
        return toRecord((await get.get(organizationId, id))!)
      })
    },
    async remove (organizationId, id, event) {
      return await write(async () => {
        const row = await get.get(organizationId, id)
        if (row === undefined) return false
        await deleteOne.run(organizationId, id)
        await forgetMetadata(organizationId, id)
        await recordEvent(db, event('core.external-account.deleted', toRecord(row)))
        return true
      })
    },
    async setStatus (id, status, reason, at, event) {
      return await write(async () => {
        const row = await find.get(id)
        return row === undefined ? undefined : await changeStatus(row, status, reason, at, event)
      })
    },
    async earliestDue (through) { return (await earliestDue.all(through, through)).map(toDueAt) },
    async due (now, limit, scope) {
      return await due.all(now, ...dueScopeParams(scope), now, ...dueScopeParams(scope), limit)
    },
    async settle (id, now, event) {
      await write(async () => {
        const row = await find.get(id)
        if (row === undefined) return
        const at = new Date(now).toISOString()
        if (row.expires_at !== null && row.expires_at <= now && row.status !== 'expired') {
          await changeStatus(row, 'expired', 'card-expired', at, event)
        } else if (row.check_due_at !== null && row.check_due_at <= now) {
          if (row.status === 'processing') await changeStatus(row, 'ok', null, at, event)
          else await endCheck.run(id)
        }
      })
    },
    async fixtureRow (account) {
      await insert.run(toParams(account))
      if (account.type === 'card') await addCard.run(account.userId, account.fingerprint, account.organizationId, account.createdAt)
    },
    async removeUserAccounts (organizationId, userId) {
      for (const id of await idsForUser.all(organizationId, userId)) await forgetMetadata(organizationId, id)
      await deleteForUser.run(organizationId, userId)
      await deleteCardsAdded.run(organizationId, userId)
    }
  }
}
