// The accounts area's store: accounts and deposit methods. Every statement is prepared once, here;
// request-path writes go through the group commit, with their events in the same write. The ledger
// (area 5) finds an account from deposit details with `routeDeposit` (or a payment reference with
// `routeReference`), and unarchives an account funds arrive at with `unarchiveInWrite`, inside
// its own write (awaited there: every statement returns a Promise on both backends).
import { groupCommit, type Db } from '../storage/db.js'
import { entityMetadataRemover } from '../storage/metadata.js'
import { recordEvent } from '../storage/outbox.js'
import { memoOf } from '../storage/memo.js'
import { metadataInserter, type MetadataRevision } from '../storage/metadata.js'
import { isConstraint } from '../storage/core.js'
import type { NewEvent } from '../storage/index.js'

export interface AccountRecord {
  id: string
  organizationId: string
  userId: string
  asset: string
  label: string
  archivedAt: string | null
  createdAt: string
  updatedAt: string
}

/** Makes an event of the account's organization: `data` is what the webhook carries. */
export type EventMaker = (type: string, account: AccountRecord) => NewEvent

export interface StoredDepositMethod {
  type: string
  asset: string
  network: string
  family: string
  identifier: string
  details: Record<string, unknown>
}

export type CreateAccountResult =
  | { ok: true, account: AccountRecord }
  | { ok: false, reason: 'exists' | 'user-missing' }

export type ArchiveResult = 'archived' | 'already-archived' | 'not-found'

export interface AccountsStore {
  /** An account of the organization (archived or not), or undefined. */
  get (organizationId: string, accountId: string): Promise<AccountRecord | undefined>
  /** An account by id, whichever organization: ids are unique across the sandbox. */
  find (accountId: string): Promise<AccountRecord | undefined>
  /** The same, inside a write: for the ledger's events, built inside its write. */
  findInWrite (accountId: string): Promise<AccountRecord | undefined>
  /** A page of the user's accounts that are not archived, newest first; `assets` filters. */
  list (organizationId: string, userId: string, assets: string[] | undefined, offset: number, limit: number): Promise<AccountRecord[]>
  /** The user's default account of each asset (the oldest not archived), by asset code. */
  defaults (organizationId: string, userId: string, assets: string[] | undefined): Promise<AccountRecord[]>
  /** The user's default account of the asset, if any. */
  defaultOf (organizationId: string, userId: string, asset: string): Promise<AccountRecord | undefined>
  /** Creates the account, with its first metadata when given, and records `core.account.created`. */
  create (account: AccountRecord, event: EventMaker, metadata?: MetadataRevision): Promise<CreateAccountResult>
  /** The default account of the asset, created (with its event) when the user has none. */
  ensureDefault (account: AccountRecord, event: EventMaker): Promise<{ account: AccountRecord, created: boolean } | undefined>
  /** Sets the label; the account as stored after, or undefined. */
  updateLabel (organizationId: string, accountId: string, label: string, at: string): Promise<AccountRecord | undefined>
  /** Archives the account and records `core.account.archived`; an archived one is left as it is. */
  archive (organizationId: string, accountId: string, at: string, event: EventMaker): Promise<ArchiveResult>
  /**
   * Unarchives an archived account and records `core.account.unarchived`; false when it was not
   * archived. Call it inside a write (the ledger's, as funds arrive).
   */
  unarchiveInWrite (accountId: string, at: string, event: EventMaker): Promise<boolean>
  /** The deposit method of the account for this type, asset and network, if set up. */
  depositMethod (accountId: string, type: string, asset: string, network: string): Promise<StoredDepositMethod | undefined>
  /**
   * Sets up a deposit method unless there is one: `make(attempt)` gives the details to store,
   * tried again with the next attempt while its identifier belongs to another account.
   */
  setupDepositMethod (account: AccountRecord, key: { type: string, asset: string, network: string }, make: (attempt: number, reuse: (family: string) => Promise<string | undefined>) => Promise<StoredDepositMethod>, at: string): Promise<{ created: boolean, method: StoredDepositMethod }>
  /** The account deposit details route to: `family` and `identifier` as stored. */
  routeDeposit (family: string, identifier: string): Promise<AccountRecord | undefined>
  /** The user's account (archived or not) whose bank deposit method on `network` carries this payment `reference`. */
  routeReference (organizationId: string, userId: string, network: string, reference: string): Promise<AccountRecord | undefined>
  /** The row of a fixture's account, written inside the fixture's transaction. */
  fixtureRow (account: AccountRecord): Promise<void>
  /** The user's default account of the asset inside a fixture's write: the existing one, or `account` written now (no event). */
  fixtureDefault (account: AccountRecord): Promise<AccountRecord>
  /** Deletes a user's accounts and their metadata, inside the write that deletes the user. */
  removeUserAccounts (organizationId: string, userId: string): Promise<void>
}

interface AccountRow {
  id: string
  organization_id: string
  user_id: string
  asset: string
  label: string
  archived_at: string | null
  created_at: string
  updated_at: string
}

interface MethodRow { type: string, asset: string, network: string, family: string, identifier: string, details: string }

const toAccount = (r: AccountRow): AccountRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  userId: r.user_id,
  asset: r.asset,
  label: r.label,
  archivedAt: r.archived_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at
})

const toMethod = (r: MethodRow): StoredDepositMethod => ({ type: r.type, asset: r.asset, network: r.network, family: r.family, identifier: r.identifier, details: JSON.parse(r.details) })

const MAX_ATTEMPTS = 20

export function accountsStore (db: Db): AccountsStore {
  const get = db.prepare<[string, string], AccountRow>('SELECT * FROM accounts WHERE organization_id = ? AND id = ?')
  const find = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?')
  // `assets` is a JSON array of codes: SQLite reads it with json_each, PostgreSQL with
  // jsonb_array_elements_text. The parameter is typed text there: one the server typed jsonb, the
  // driver would encode as JSON (a string, not the array it holds).
  const inAssets = (column: string): { sqlite: string, postgres: string } => ({
    sqlite: `(? = 0 OR ${column} IN (SELECT value FROM json_each(?)))`,
    postgres: `(? = 0 OR ${column} IN (SELECT jsonb_array_elements_text(CAST(CAST(? AS TEXT) AS jsonb))))`
  })
  const listSql = (assets: string): string => `SELECT * FROM accounts
    WHERE organization_id = ? AND user_id = ? AND archived_at IS NULL AND ${assets}
    ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
  const list = db.prepare<[string, string, number, string, number, number], AccountRow>({
    sqlite: listSql(inAssets('asset').sqlite), postgres: listSql(inAssets('asset').postgres)
  })
  const defaultsSql = (assets: string): string => `SELECT a.* FROM accounts a
    WHERE a.organization_id = ? AND a.user_id = ? AND a.archived_at IS NULL AND ${assets}
      AND NOT EXISTS (SELECT 1 FROM accounts o WHERE o.user_id = a.user_id AND o.asset = a.asset AND o.archived_at IS NULL
        AND (o.created_at < a.created_at OR (o.created_at = a.created_at AND o.id < a.id)))
    ORDER BY a.asset`
  const defaults = db.prepare<[string, string, number, string], AccountRow>({
    sqlite: defaultsSql(inAssets('a.asset').sqlite), postgres: defaultsSql(inAssets('a.asset').postgres)
  })
  const defaultOf = db.prepare<[string, string, string], AccountRow>(`SELECT * FROM accounts
    WHERE organization_id = ? AND user_id = ? AND asset = ? AND archived_at IS NULL ORDER BY created_at, id LIMIT 1`)
  const userExists = db.prepare<[string, string], number>('SELECT 1 FROM users WHERE organization_id = ? AND id = ?').pluck()
  const insert = db.prepare(`INSERT INTO accounts (id, organization_id, user_id, asset, label, archived_at, created_at, updated_at)
    VALUES (@id, @organizationId, @userId, @asset, @label, @archivedAt, @createdAt, @updatedAt)`)
  const setLabel = db.prepare('UPDATE accounts SET label = ?, updated_at = ? WHERE organization_id = ? AND id = ?')
  const setArchived = db.prepare('UPDATE accounts SET archived_at = ?, updated_at = ? WHERE id = ? AND archived_at IS NULL')
  const setUnarchived = db.prepare('UPDATE accounts SET archived_at = NULL, updated_at = ? WHERE id = ? AND archived_at IS NOT NULL')
  const method = db.prepare<[string, string, string, string], MethodRow>('SELECT * FROM deposit_methods WHERE account_id = ? AND type = ? AND asset = ? AND network = ?')
  const familyOf = db.prepare<[string, string], string>('SELECT identifier FROM deposit_methods WHERE account_id = ? AND family = ? LIMIT 1').pluck()
  const owner = db.prepare<[string, string], string>('SELECT account_id FROM deposit_methods WHERE family = ? AND identifier = ? LIMIT 1').pluck()
  // The user's accounts (accounts_user), then each one's methods by primary key: a user's own rows only.
  const byReferenceSql = (reference: string): string => `SELECT a.* FROM accounts a JOIN deposit_methods m ON m.account_id = a.id
    WHERE a.organization_id = ? AND a.user_id = ? AND m.type = 'bank' AND m.network = ? AND ${reference} = ?
    ORDER BY a.created_at, a.id LIMIT 1`
  const byReference = db.prepare<[string, string, string, string], AccountRow>({
    sqlite: byReferenceSql("json_extract(m.details, '$.reference')"),
    postgres: byReferenceSql("m.details::jsonb ->> 'reference'")
  })
  const insertMethod = db.prepare(`INSERT INTO deposit_methods (account_id, organization_id, type, asset, network, family, identifier, details, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const idsForUser = db.prepare<[string, string], string>('SELECT id FROM accounts WHERE organization_id = ? AND user_id = ?').pluck()
  const deleteMetadata = entityMetadataRemover(db, 'accounts')
  const deleteForUser = db.prepare('DELETE FROM accounts WHERE organization_id = ? AND user_id = ?')
  const insertMetadata = metadataInserter(db)
  const write = groupCommit(db)
  const memo = memoOf(db)
  // PostgreSQL's jsonb refuses the escape of NUL (\u0000), which no asset code holds: it becomes
  // U+FFFD, matching nothing, as the code with NUL matches nothing on SQLite.
  const filter = (assets: string[] | undefined): [number, string] => assets === undefined
    ? [0, '[]']
    : [1, JSON.stringify(assets.map(a => a.replaceAll('\u0000', '\uFFFD')))]

  const unarchiveInWrite = async (accountId: string, at: string, event: EventMaker): Promise<boolean> => {
    if ((await setUnarchived.run(at, accountId)).changes === 0) return false
    await recordEvent(db, event('core.account.unarchived', toAccount((await find.get(accountId))!)))
    return true
  }

  return {
    async get (organizationId, accountId) {
      const row = await get.get(organizationId, accountId)
      return row === undefined ? undefined : toAccount(row)
    },
    async find (accountId) {
      const row = await find.get(accountId)
      return row === undefined ? undefined : toAccount(row)
    },
    async findInWrite (accountId) {
      const row = await find.get(accountId)
      return row === undefined ? undefined : toAccount(row)
    },
    async list (organizationId, userId, assets, offset, limit) {
      return (await list.all(organizationId, userId, ...filter(assets), limit, offset)).map(toAccount)
    },
    async defaults (organizationId, userId, assets) {
      return (await defaults.all(organizationId, userId, ...filter(assets))).map(toAccount)
    },
    async defaultOf (organizationId, userId, asset) {
      const row = await defaultOf.get(organizationId, userId, asset)
      return row === undefined ? undefined : toAccount(row)
    },
    async create (account, event, metadata) {
      try {
        return await write(async (): Promise<CreateAccountResult> => {
          if (await userExists.get(account.organizationId, account.userId) === undefined) return { ok: false, reason: 'user-missing' }
          await insert.run(account)
          if (metadata !== undefined) await insertMetadata({ organizationId: account.organizationId, entity: 'accounts', entityId: account.id }, metadata)
          await recordEvent(db, event('core.account.created', account))
          return { ok: true, account }
        })
      } catch (err) {
        if (isConstraint(err)) return { ok: false, reason: 'exists' }
        throw err
      }
    },
    async ensureDefault (account, event) {
      return await write(async () => {
        const existing = await defaultOf.get(account.organizationId, account.userId, account.asset)
        if (existing !== undefined) return { account: toAccount(existing), created: false }
        if (await userExists.get(account.organizationId, account.userId) === undefined) return undefined
        await insert.run(account)
        await recordEvent(db, event('core.account.created', account))
        return { account, created: true }
      })
    },
    async updateLabel (organizationId, accountId, label, at) {
      return await write(async () => {
        if ((await setLabel.run(label, at, organizationId, accountId)).changes === 0) return undefined
        return toAccount((await get.get(organizationId, accountId))!)
      })
    },
    async archive (organizationId, accountId, at, event) {
      return await write(async (): Promise<ArchiveResult> => {
        const row = await get.get(organizationId, accountId)
        if (row === undefined) return 'not-found'
        if ((await setArchived.run(at, at, accountId)).changes === 0) return 'already-archived'
        await recordEvent(db, event('core.account.archived', toAccount((await get.get(organizationId, accountId))!)))
        return 'archived'
      })
    },
    unarchiveInWrite,
    async depositMethod (accountId, type, asset, network) {
      const row = await method.get(accountId, type, asset, network)
      return row === undefined ? undefined : toMethod(row)
    },
    async setupDepositMethod (account, key, make, at) {
      return await write(async () => {
        const existing = await method.get(account.id, key.type, key.asset, key.network)
        if (existing !== undefined) return { created: false, method: toMethod(existing) }
        const reuse = async (family: string): Promise<string | undefined> => await familyOf.get(account.id, family)
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          const m = await make(attempt, reuse)
          const taken = await owner.get(m.family, m.identifier)
          if (taken !== undefined && taken !== account.id) continue
          await insertMethod.run(account.id, account.organizationId, m.type, m.asset, m.network, m.family, m.identifier, JSON.stringify(m.details), at)
          return { created: true, method: m }
        }
        throw new Error(`no free deposit identifier for account ${account.id} after ${MAX_ATTEMPTS} attempts`)
      })
    },
    async routeDeposit (family, identifier) {
      const id = await owner.get(family, identifier)
      if (id === undefined) return undefined
      const row = await find.get(id)
      return row === undefined ? undefined : toAccount(row)
    },
    async routeReference (organizationId, userId, network, reference) {
      const row = await byReference.get(organizationId, userId, network, reference)
      return row === undefined ? undefined : toAccount(row)
    },
    async fixtureRow (account) { await insert.run(account) },
    async fixtureDefault (account) {
      const existing = await defaultOf.get(account.organizationId, account.userId, account.asset)
      if (existing !== undefined) return toAccount(existing)
      await insert.run(account)
      return account
    },
    async removeUserAccounts (organizationId, userId) {
      for (const id of await idsForUser.all(organizationId, userId)) {
        await deleteMetadata(organizationId, id)
        memo.forgetMetadata({ organizationId, entity: 'accounts', entityId: id })
      }
      // Deposit methods go with their accounts (a cascading key).
      await deleteForUser.run(organizationId, userId)
    }
  }
}
