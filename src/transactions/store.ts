// The ledger and transactions store: every statement of the area's tables is prepared here. Each
// domain operation is atomic: it runs in one write (the group commit), checks and changes the
// balances, postings, transaction and events together, and returns what the caller needs to
// answer. The `...InWrite` forms (and `fixtureDeposit`, `removeUser`) run inside a write that is
// already open (another store's, such as a fixture's or a user deletion's), joining it: the caller
// awaits them there.
//
// Balances are running figures in ledger_balances, read and written inside the write that posts:
// every write holds the one write lock (SQLite's, taken by the group commit's BEGIN IMMEDIATE; on
// PostgreSQL the global advisory write lock), so no two postings can read the same balance and
// both spend it, in this process or in any other replica on the same database.
import { randomUUID } from 'node:crypto'
import { groupCommit, type Db } from '../storage/db.js'
import { recordEvent } from '../storage/outbox.js'
import { dueScopeParams, onDueScope, toDueAt, type DueAt, type DueScope } from '../storage/shared.js'
import type { NewEvent } from '../storage/types.js'
import { Decimal } from '../money/decimal.js'
import { metadataInserter, type MetadataRevision } from '../storage/metadata.js'

export type TransactionStatus = 'processing' | 'on-hold' | 'completed' | 'failed'
export type TransactionKind = 'transfer' | 'deposit'

/** What the API shows of a transaction that never changes: the quote's snapshot, or the deposit's. */
export interface TransactionBody {
  origin: { asset: string, amount: string, rate: string, node: Record<string, unknown> }
  destination: { asset: string, amount: string, rate: string, node: Record<string, unknown> }
  denomination?: { asset: string, amount: string, rate: string, target: 'origin' | 'destination' }
  fees: Array<{ type: string, code: string, asset: string, amount: string, percentage?: string }>
  quotedAt: string
}

export interface TransactionRecord {
  id: string
  organizationId: string
  /** The user who made it (the depositor for a deposit). */
  userId: string
  kind: TransactionKind
  quoteId: string | null
  status: TransactionStatus
  /** `statusDetails.reason`, when there is one. */
  reason: string | null
  body: TransactionBody
  /** The account the origin amount is held from, when the origin is an account. */
  originAccountId: string | null
  /** The account credited on completion, when the destination is an account (or an address of one). */
  destinationAccountId: string | null
  /** The amount held from the origin account while the transaction is pending. */
  holdAmount: string | null
  /** When (ms, sandbox clock) a processing transaction completes by itself; null while it waits. */
  settleAt: number | null
  /** An authorization the transaction waits for (`3ds`), until confirmed or declined. */
  authorization: string | null
  returnUrl: string | null
  /** Identifies a withdrawal for the duplicate check: origin account, destination and amount. */
  withdrawalKey: string | null
  createdAt: string
  updatedAt: string
  completedAt: string | null
}

export interface Balance { total: string, available: string }

/** A change of one account's two balance columns. */
export interface Leg { accountId: string, userId: string | null, asset: string, total: string, available: string }

/** How events are made inside the write: the service knows the accounts and the API's views. */
export interface LedgerEvents {
  /** `core.transaction.created` or `.status-changed`, with the transaction as the API shows it after the change. */
  transaction: (type: 'core.transaction.created' | 'core.transaction.status-changed', transaction: TransactionRecord) => NewEvent
  /** `core.account.balance-changed` for a user account whose balance moved, with its new balance (read inside the write). */
  balanceChanged: (accountId: string, balance: Balance) => NewEvent | undefined | Promise<NewEvent | undefined>
  /** Funds arrived at a user account (an archived one is unarchived, with its event), inside the write. */
  credited: (accountId: string) => void | Promise<void>
}

export type CommitResult =
  | { ok: true, transaction: TransactionRecord }
  | { ok: false, reason: 'quote-not-found' | 'quote-used' | 'quote-expired' | 'insufficient-balance' | 'duplicate-withdrawal' | 'exists' | 'limit-exceeded' }

export type ConsumeOutcome = 'ok' | 'quote-not-found' | 'quote-used' | 'quote-expired' | 'limit-exceeded'

export interface CommitOptions {
  input: NewTransaction
  /** The hold on the origin account (available only, negative), when the origin is an account. */
  hold?: Leg
  /** Checks the quote's limits and consumes it inside the write (the quotes store's `consumeInWrite`). */
  consume: () => ConsumeOutcome | Promise<ConsumeOutcome>
  events: LedgerEvents
  metadata?: MetadataRevision
  /** Puts the new transaction on hold at once, with a pending travel-rule RFI (travel rule data missing). */
  onHold?: boolean
}

export type ChangeResult =
  | { ok: true, transaction: TransactionRecord, changed: boolean }
  | { ok: false, reason: 'not-found' | 'final' }

export interface UnsettledFunds { amount: string, settlementAt: number }

/** An organization's whole ledger, for audits (the proofs, the sandbox view). */
export interface OrganizationLedger {
  balances: Array<{ accountId: string, userId: string | null, asset: string, total: string, available: string }>
  postings: Array<{ transactionId: string, accountId: string, userId: string | null, asset: string, total: string, available: string, totalAfter: string, availableAfter: string }>
}

export interface RfiRecord {
  id: string
  organizationId: string
  transactionId: string
  type: string
  status: 'pending' | 'ok' | 'expired' | 'failed'
  data: Record<string, unknown> | null
  createdAt: string
  updatedAt: string
}

const ZERO = new Decimal(0)
const isSystem = (accountId: string): boolean => accountId.startsWith('system:')
export const systemAccount = (organizationId: string, kind: 'world' | 'exchange' | 'fees' | 'holds' | 'unsettled', asset: string): string =>
  `system:${organizationId}:${kind}:${asset}`

interface TransactionRow {
  id: string
  organization_id: string
  user_id: string
  kind: TransactionKind
  quote_id: string | null
  status: TransactionStatus
  reason: string | null
  body: string
  origin_account_id: string | null
  destination_account_id: string | null
  hold_amount: string | null
  settle_at: number | null
  authorization: string | null
  return_url: string | null
  withdrawal_key: string | null
  created_at: string
  updated_at: string
  completed_at: string | null
  created_ms: number
}

const toRecord = (r: TransactionRow): TransactionRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  userId: r.user_id,
  kind: r.kind,
  quoteId: r.quote_id,
  status: r.status,
  reason: r.reason,
  body: JSON.parse(r.body),
  originAccountId: r.origin_account_id,
  destinationAccountId: r.destination_account_id,
  holdAmount: r.hold_amount,
  settleAt: r.settle_at,
  authorization: r.authorization,
  returnUrl: r.return_url,
  withdrawalKey: r.withdrawal_key,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  completedAt: r.completed_at
})

interface RfiRow { id: string, organization_id: string, transaction_id: string, type: string, status: RfiRecord['status'], data: string | null, created_at: string, updated_at: string }
const toRfi = (r: RfiRow): RfiRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  transactionId: r.transaction_id,
  type: r.type,
  status: r.status,
  data: r.data === null ? null : JSON.parse(r.data),
  createdAt: r.created_at,
  updatedAt: r.updated_at
})

/** A new transaction: its record (status processing) and who sees it in their lists. */
export interface NewTransaction {
  record: TransactionRecord
  /** Owners and accounts it moves funds from or to. */
  parties: Array<{ userId: string, accountId: string }>
}

export interface LedgerStore {
  /** The account's balance: zero for an account the ledger has never touched. */
  balance (accountId: string): Promise<Balance>
  /** The same, inside a write (joining it). */
  balanceInWrite (accountId: string): Promise<Balance>
  /** The account's funds not yet settled, with when the last of them settle; undefined for none. */
  unsettled (accountId: string): Promise<UnsettledFunds | undefined>
  /** Whether the user has a non-zero balance in any account, or a pending transaction. */
  userHoldings (organizationId: string, userId: string): Promise<{ hasBalance: boolean, hasPendingTransactions: boolean }>
  /** Whether a transaction moving funds from or to the account is pending (processing or on hold). */
  accountPending (accountId: string): Promise<boolean>

  /**
   * Commits a quote as a transaction, in one write: the quote is consumed (`consume`, the quotes
   * store's own single-use mark), a withdrawal that repeats a pending one is refused, the origin
   * amount is held from the origin account (refused when its available balance does not cover
   * it), and `core.transaction.created` and the origin's `balance-changed` are recorded. Exactly
   * one of any number of concurrent commits of one quote succeeds.
   */
  commit (options: CommitOptions): Promise<CommitResult>
  /**
   * Records a transaction that credits at once (a deposit) and completes it in the same write:
   * `created` (processing), the credit (unsettled funds count in total only, until `unsettledUntil`),
   * then `status-changed` (completed).
   */
  deposit (input: NewTransaction, unsettled: { until: number, reason: string } | undefined, at: number, events: LedgerEvents): Promise<TransactionRecord>
  /**
   * Moves a pending transaction: `completed` posts it (the hold becomes the debit, the destination
   * is credited, fees and the other side go to system accounts), `failed` releases the hold,
   * `on-hold` opens a pending travel-rule RFI, `processing` resumes one on hold with `settleAt`.
   * A final transaction is left as it is (`final`); the same status again changes nothing.
   */
  changeStatus (organizationId: string | undefined, id: string, status: TransactionStatus, reason: string | null, at: number, settleAt: number | null, events: LedgerEvents): Promise<ChangeResult>
  changeStatusInWrite (organizationId: string | undefined, id: string, status: TransactionStatus, reason: string | null, at: number, settleAt: number | null, events: LedgerEvents): Promise<ChangeResult>
  /**
   * Answers the authorization a transaction waits for, in one write: approved, it settles at
   * `settleAt`; declined, it fails with `card-unauthorized`. `not-pending` when it waits for none
   * (answered already, or decided otherwise), so of two racing answers only the first counts.
   */
  authorize (id: string, approved: boolean, at: number, settleAt: number, events: LedgerEvents): Promise<{ ok: true, transaction: TransactionRecord } | { ok: false, reason: 'not-found' | 'not-pending' }>

  /** A transaction of the organization (any organization when undefined), or undefined. */
  get (organizationId: string | undefined, id: string): Promise<TransactionRecord | undefined>
  /** A page of the user's transactions, newest first (`offset`, `limit`). */
  listForUser (organizationId: string, userId: string, offset: number, limit: number): Promise<TransactionRecord[]>
  /** A page of the account's transactions, newest first. */
  listForAccount (accountId: string, offset: number, limit: number): Promise<TransactionRecord[]>
  /** Each organization's earliest processing transaction or unsettled funds due at or before `through` (see src/kit/due-work.ts). */
  earliestDue (through: number): Promise<DueAt[]>
  /** Each organization's oldest pending RFI created at or before `cutoff`: its creation time. */
  oldestPendingRfis (cutoff: string): Promise<Array<{ organizationId: string, createdAt: string }>>
  /** Pending transactions whose `settleAt` has come, oldest first. */
  due (now: number, limit: number, scope: DueScope): Promise<string[]>
  /** Settles the unsettled funds whose time has come (available += amount), with their events. */
  settleFunds (now: number, limit: number, scope: DueScope, events: LedgerEvents): Promise<number>

  /** The transaction's RFIs, oldest first. */
  rfis (transactionId: string): Promise<RfiRecord[]>
  rfi (transactionId: string, rfiId: string): Promise<RfiRecord | undefined>
  /** Whether the user sees the transaction: they made it, or own an account it moves funds from or to (its parties). */
  isParty (organizationId: string, transactionId: string, userId: string): Promise<boolean>
  /**
   * Answers a pending RFI (status `ok`, `data`) and, when the transaction is on hold with no other
   * pending RFI, resumes it (processing, completing at `settleAt`), all in one write.
   */
  answerRfi (transactionId: string, rfiId: string, data: Record<string, unknown>, at: number, settleAt: number, events: LedgerEvents): Promise<{ ok: true, rfi: RfiRecord } | { ok: false, reason: 'not-found' | 'not-pending' }>
  /**
   * Closes a pending RFI unanswered (`expired` or `failed`) and, when its transaction is on hold,
   * fails the transaction (`travel-rule-verification-failed`), releasing its hold, in one write.
   */
  closeRfi (transactionId: string, rfiId: string, status: 'expired' | 'failed', at: number, events: LedgerEvents):
  Promise<{ ok: true, rfi: RfiRecord, transaction: TransactionRecord } | { ok: false, reason: 'not-found' | 'not-pending' }>
  /** Pending RFIs created at or before `cutoff` (ISO), oldest first: the ones expiring. */
  staleRfis (cutoff: string, limit: number, scope: DueScope): Promise<Array<{ transactionId: string, id: string }>>

  /** The balance of each of the user's accounts the ledger has touched. */
  userBalances (userId: string): Promise<Array<{ accountId: string, asset: string, total: string, available: string }>>
  /** Every posting of a transaction (the property tests check they sum to zero per asset). */
  transactionPostings (transactionId: string): Promise<Array<{ accountId: string, asset: string, total: string, available: string }>>
  /** The newest transactions of an organization (of every organization without one): the sandbox view. */
  recent (organizationId: string | undefined, limit: number): Promise<TransactionRecord[]>
  /** Every balance and every posting (in order) of an organization's ledger, system accounts included: what an audit reads. */
  organizationLedger (organizationId: string): Promise<OrganizationLedger>

  /**
   * A fixture's deposit, inside the fixture's write: the transaction, completed, with the postings
   * of its credit (so every balance stays the sum of its postings), and no events.
   */
  fixtureDeposit (input: NewTransaction, at: number): Promise<void>
  /** Takes the user's transactions out of their lists, inside the write that deletes the user. */
  removeUser (organizationId: string, userId: string): Promise<void>
}

export function ledgerStore (db: Db): LedgerStore {
  const write = groupCommit(db)
  const balanceRow = db.prepare<[string], { total: string, available: string }>('SELECT total, available FROM ledger_balances WHERE account_id = ?')
  const upsertBalance = db.prepare(`INSERT INTO ledger_balances (account_id, organization_id, user_id, asset, total, available, updated_at)
    VALUES (@accountId, @organizationId, @userId, @asset, @total, @available, @at)
    ON CONFLICT(account_id) DO UPDATE SET total = excluded.total, available = excluded.available, updated_at = excluded.updated_at`)
  const insertPosting = db.prepare(`INSERT INTO ledger_postings (organization_id, transaction_id, account_id, user_id, asset, total, available, total_after, available_after, at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const insertTransaction = db.prepare(`INSERT INTO transactions (id, organization_id, user_id, kind, quote_id, status, reason, body, origin_account_id,
    destination_account_id, hold_amount, settle_at, "authorization", return_url, withdrawal_key, created_at, updated_at, completed_at, created_ms)
    VALUES (@id, @organizationId, @userId, @kind, @quoteId, @status, @reason, @body, @originAccountId, @destinationAccountId, @holdAmount, @settleAt,
    @authorization, @returnUrl, @withdrawalKey, @createdAt, @updatedAt, @completedAt, @createdMs)`)
  const insertParty = db.prepare('INSERT INTO transaction_parties (transaction_id, organization_id, user_id, account_id, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING')
  const getAny = db.prepare<[string], TransactionRow>('SELECT * FROM transactions WHERE id = ?')
  const updateState = db.prepare(`UPDATE transactions SET status = @status, reason = @reason, settle_at = @settleAt, "authorization" = @authorization,
    updated_at = @updatedAt, completed_at = @completedAt WHERE id = @id`)
  // A completed transaction's parties keep its completion time: a statement reads them by it
  // (transaction_parties_completed).
  const completeParties = db.prepare('UPDATE transaction_parties SET completed_at = ? WHERE transaction_id = ?')
  const setSettleAt = db.prepare('UPDATE transactions SET settle_at = ?, "authorization" = NULL, updated_at = ? WHERE id = ? AND status = \'processing\'')
  const pendingWithdrawal = db.prepare<[string], number>("SELECT 1 FROM transactions WHERE withdrawal_key = ? AND status IN ('processing', 'on-hold') LIMIT 1").pluck()
  // A page of a user's transactions is read in the order of its index (transaction_parties_user:
  // organization, user, newest first), then joined: each page reads its own rows and those it skips,
  // not all of the user's. A user is a party of a transaction once per account (its origin and its
  // destination may both be the user's), so the page is of distinct transactions. Parties keep
  // their transaction's created_at. Selecting the transactions whose id is among the user's, then
  // sorting them, sorted every one the user ever had for each page: 52 ms a page for a user of
  // 20 000 transactions, against 0.3 ms read this way.
  const listUser = db.prepare<[string, string, number, number], TransactionRow>(`SELECT t.* FROM (
      SELECT DISTINCT created_at, transaction_id FROM transaction_parties WHERE organization_id = ? AND user_id = ?
      ORDER BY created_at DESC, transaction_id DESC LIMIT ? OFFSET ?) p
    JOIN transactions t ON t.id = p.transaction_id ORDER BY p.created_at DESC, p.transaction_id DESC`)
  const listAccount = db.prepare<[string, number, number], TransactionRow>(`SELECT t.* FROM transaction_parties p JOIN transactions t ON t.id = p.transaction_id
    WHERE p.account_id = ? ORDER BY p.created_at DESC, p.transaction_id DESC LIMIT ? OFFSET ?`)
  const dueRows = db.prepare<[number, string | null, string | null, number], string>(`SELECT id FROM transactions WHERE settle_at IS NOT NULL AND settle_at <= ? AND status = 'processing'
    AND ${onDueScope('organization_id')} ORDER BY settle_at, id LIMIT ?`).pluck()
  const earliestDue = db.prepare<[number, number], { organization_id: string, at: number }>(`SELECT organization_id, MIN(settle_at) AS at FROM transactions
      WHERE settle_at IS NOT NULL AND settle_at <= ? AND status = 'processing' GROUP BY organization_id
    UNION ALL SELECT organization_id, MIN(settle_at) AS at FROM ledger_unsettled WHERE settled_at IS NULL AND settle_at <= ? GROUP BY organization_id`)
  const unsettledOf = db.prepare<[string], { amount: string, settle_at: number }>('SELECT amount, settle_at FROM ledger_unsettled WHERE account_id = ? AND settled_at IS NULL')
  const insertUnsettled = db.prepare(`INSERT INTO ledger_unsettled (id, organization_id, account_id, transaction_id, asset, amount, reason, settle_at, settled_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)`)
  const dueFunds = db.prepare<[number, string | null, string | null, number], { id: string, organization_id: string, account_id: string, transaction_id: string, asset: string, amount: string }>(
    `SELECT id, organization_id, account_id, transaction_id, asset, amount FROM ledger_unsettled WHERE settled_at IS NULL AND settle_at <= ?
      AND ${onDueScope('organization_id')} ORDER BY settle_at, id LIMIT ?`)
  const markSettled = db.prepare('UPDATE ledger_unsettled SET settled_at = ? WHERE id = ? AND settled_at IS NULL')
  const ownerOf = db.prepare<[string], string | null>('SELECT user_id FROM ledger_balances WHERE account_id = ?').pluck()
  const userNonZero = db.prepare<[string], { total: string }>('SELECT total FROM ledger_balances WHERE user_id = ?')
  // By organization and user: transaction_parties_user finds the user's parties (by user alone,
  // every party of every organization would be read).
  const userPending = db.prepare<[string, string], number>(`SELECT 1 FROM transaction_parties p JOIN transactions t ON t.id = p.transaction_id
    WHERE p.organization_id = ? AND p.user_id = ? AND t.status IN ('processing', 'on-hold') LIMIT 1`).pluck()
  // Through the open transactions' partial indexes (the account's parties are every transaction it
  // ever had): the accounts of a transaction's parties are its origin and destination accounts.
  const accountPending = db.prepare<[string, string], number>(`SELECT 1 FROM transactions WHERE origin_account_id = ? AND status IN ('processing', 'on-hold')
    UNION ALL SELECT 1 FROM transactions WHERE destination_account_id = ? AND status IN ('processing', 'on-hold') LIMIT 1`).pluck()
  const insertRfi = db.prepare('INSERT INTO transaction_rfis (id, organization_id, transaction_id, type, status, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
  const rfisOf = db.prepare<[string], RfiRow>('SELECT * FROM transaction_rfis WHERE transaction_id = ? ORDER BY created_at, id')
  const rfiOf = db.prepare<[string, string], RfiRow>('SELECT * FROM transaction_rfis WHERE transaction_id = ? AND id = ?')
  const answer = db.prepare("UPDATE transaction_rfis SET status = 'ok', data = ?, updated_at = ? WHERE transaction_id = ? AND id = ? AND status = 'pending'")
  const closeRfi = db.prepare("UPDATE transaction_rfis SET status = ?, updated_at = ? WHERE transaction_id = ? AND id = ? AND status = 'pending'")
  const staleRfis = db.prepare<[string, string | null, string | null, number], { transaction_id: string, id: string }>(
    `SELECT transaction_id, id FROM transaction_rfis WHERE status = 'pending' AND created_at <= ? AND ${onDueScope('organization_id')} ORDER BY created_at, id LIMIT ?`)
  const oldestPendingRfis = db.prepare<[string], { organization_id: string, created_at: string }>(
    "SELECT organization_id, MIN(created_at) AS created_at FROM transaction_rfis WHERE status = 'pending' AND created_at <= ? GROUP BY organization_id")
  const closeRfis = db.prepare("UPDATE transaction_rfis SET status = ?, updated_at = ? WHERE transaction_id = ? AND status = 'pending'")
  const partyOf = db.prepare<[string, string, string], number>('SELECT 1 FROM transaction_parties WHERE transaction_id = ? AND organization_id = ? AND user_id = ? LIMIT 1').pluck()
  const pendingRfis = db.prepare<[string], number>("SELECT count(*) FROM transaction_rfis WHERE transaction_id = ? AND status = 'pending'").pluck()
  const userBalances = db.prepare<[string], { account_id: string, asset: string, total: string, available: string }>(
    'SELECT account_id, asset, total, available FROM ledger_balances WHERE user_id = ? ORDER BY account_id')
  const postingsOf = db.prepare<[string], { account_id: string, asset: string, total: string, available: string }>(
    'SELECT account_id, asset, total, available FROM ledger_postings WHERE transaction_id = ? ORDER BY seq')
  const recentRows = db.prepare<[number], TransactionRow>('SELECT * FROM transactions ORDER BY created_ms DESC, id DESC LIMIT ?')
  // By the organization's index, in its order: an organization's list reads its own rows only.
  const recentOfOrganization = db.prepare<[string, number], TransactionRow>(
    'SELECT * FROM transactions WHERE organization_id = ? ORDER BY created_ms DESC, id DESC LIMIT ?')
  const orgBalances = db.prepare<[string], { account_id: string, user_id: string | null, asset: string, total: string, available: string }>(
    'SELECT account_id, user_id, asset, total, available FROM ledger_balances WHERE organization_id = ? ORDER BY account_id')
  const orgPostings = db.prepare<[string], { transaction_id: string, account_id: string, user_id: string | null, asset: string, total: string, available: string, total_after: string, available_after: string }>(
    'SELECT transaction_id, account_id, user_id, asset, total, available, total_after, available_after FROM ledger_postings WHERE organization_id = ? ORDER BY seq')
  // A deleted user held nothing and had nothing pending (delete-user checks): the ledger's rows
  // stay, as financial records do, and the user's transactions leave their lists. A transaction
  // with another user stays in that user's lists.
  const removeParties = db.prepare('DELETE FROM transaction_parties WHERE organization_id = ? AND user_id = ?')
  const insertMetadata = metadataInserter(db)

  const balanceInWrite = async (accountId: string): Promise<Balance> => await balanceRow.get(accountId) ?? { total: '0', available: '0' }

  /**
   * Posts the legs of one transaction and the system legs that balance them, per asset and column,
   * on `contra(asset)`. Returns the user accounts whose balance moved, or the first user account
   * the legs would take below zero (or above its total), writing nothing in that case. Runs inside
   * the write that posts: the balances it reads are the ones it writes over.
   */
  const post = async (organizationId: string, transactionId: string, legs: Leg[], contra: (asset: string) => string, at: number):
  Promise<{ ok: true, moved: Map<string, Balance> } | { ok: false, accountId: string }> => {
    if (!db.inTransaction) throw new Error('the ledger posts only inside a write')
    const sums = new Map<string, { total: Decimal, available: Decimal }>()
    for (const leg of legs) {
      const sum = sums.get(leg.asset) ?? { total: ZERO, available: ZERO }
      sums.set(leg.asset, { total: sum.total.plus(leg.total), available: sum.available.plus(leg.available) })
    }
    const all = [...legs]
    for (const [asset, sum] of sums) {
      if (sum.total.isZero() && sum.available.isZero()) continue
      all.push({ accountId: contra(asset), userId: null, asset, total: sum.total.neg().toFixed(), available: sum.available.neg().toFixed() })
    }
    // Merge legs of one account, then compute every new balance before writing any.
    const merged = new Map<string, Leg>()
    for (const leg of all) {
      const m = merged.get(leg.accountId)
      merged.set(leg.accountId, m === undefined ? { ...leg } : { ...m, total: new Decimal(m.total).plus(leg.total).toFixed(), available: new Decimal(m.available).plus(leg.available).toFixed() })
    }
    const next: Array<{ leg: Leg, after: Balance }> = []
    for (const leg of merged.values()) {
      const before = await balanceInWrite(leg.accountId)
      const total = new Decimal(before.total).plus(leg.total)
      const available = new Decimal(before.available).plus(leg.available)
      if (!isSystem(leg.accountId) && (total.isNegative() || available.isNegative() || available.gt(total))) return { ok: false, accountId: leg.accountId }
      next.push({ leg, after: { total: total.toFixed(), available: available.toFixed() } })
    }
    const iso = new Date(at).toISOString()
    const moved = new Map<string, Balance>()
    // Nothing reads these statements' answers (the balances were read above): on PostgreSQL the
    // write goes on without waiting for each (runUnanswered); a later read of the write sees them.
    for (const { leg, after } of next) {
      if (new Decimal(leg.total).isZero() && new Decimal(leg.available).isZero()) continue
      await upsertBalance.runUnanswered({ accountId: leg.accountId, organizationId, userId: leg.userId, asset: leg.asset, total: after.total, available: after.available, at: iso })
      await insertPosting.runUnanswered(organizationId, transactionId, leg.accountId, leg.userId, leg.asset, leg.total, leg.available, after.total, after.available, at)
      if (leg.userId !== null) moved.set(leg.accountId, after)
    }
    return { ok: true, moved }
  }

  const announce = async (moved: Map<string, Balance>, events: LedgerEvents): Promise<void> => {
    for (const [accountId, balance] of moved) {
      const event = await events.balanceChanged(accountId, balance)
      if (event !== undefined) await recordEvent(db, event)
    }
  }

  // New rows nobody reads the answer of: on PostgreSQL sent without waiting (runUnanswered).
  const insert = async (input: NewTransaction): Promise<void> => {
    const r = input.record
    await insertTransaction.runUnanswered({ ...r, body: JSON.stringify(r.body), createdMs: Date.parse(r.createdAt) })
    for (const p of input.parties) await insertParty.runUnanswered(r.id, r.organizationId, p.userId, p.accountId, r.createdAt)
  }

  /** The system account that takes the other side of an asset's legs in a transaction. */
  const contraFor = (t: TransactionRecord) => (asset: string): string => {
    const originExternal = t.originAccountId === null
    const destinationExternal = t.destinationAccountId === null
    const { origin, destination } = t.body
    if (asset === origin.asset && (originExternal || (asset === destination.asset && destinationExternal))) return systemAccount(t.organizationId, 'world', asset)
    if (asset === destination.asset && asset !== origin.asset && destinationExternal) return systemAccount(t.organizationId, 'world', asset)
    return systemAccount(t.organizationId, 'exchange', asset)
  }

  const ownerOfAccount = async (accountId: string, fallback: string | null): Promise<string | null> => await ownerOf.get(accountId) ?? fallback

  /** The legs that complete a transaction: the hold becomes the debit; the destination and fees are credited. */
  const completionLegs = async (t: TransactionRecord, destinationOwner: string | null): Promise<Leg[]> => {
    const legs: Leg[] = []
    const { origin, destination, fees } = t.body
    if (t.originAccountId !== null && t.holdAmount !== null) {
      legs.push({ accountId: t.originAccountId, userId: await ownerOfAccount(t.originAccountId, t.userId), asset: origin.asset, total: new Decimal(t.holdAmount).neg().toFixed(), available: '0' })
      legs.push({ accountId: systemAccount(t.organizationId, 'holds', origin.asset), userId: null, asset: origin.asset, total: '0', available: new Decimal(t.holdAmount).neg().toFixed() })
    }
    if (t.destinationAccountId !== null) {
      legs.push({ accountId: t.destinationAccountId, userId: destinationOwner, asset: destination.asset, total: destination.amount, available: destination.amount })
    }
    for (const fee of fees) {
      if (new Decimal(fee.amount).isZero()) continue
      legs.push({ accountId: systemAccount(t.organizationId, 'fees', fee.asset), userId: null, asset: fee.asset, total: fee.amount, available: fee.amount })
    }
    return legs
  }

  const releaseLegs = async (t: TransactionRecord): Promise<Leg[]> => t.originAccountId === null || t.holdAmount === null
    ? []
    : [
        { accountId: t.originAccountId, userId: await ownerOfAccount(t.originAccountId, t.userId), asset: t.body.origin.asset, total: '0', available: t.holdAmount },
        { accountId: systemAccount(t.organizationId, 'holds', t.body.origin.asset), userId: null, asset: t.body.origin.asset, total: '0', available: new Decimal(t.holdAmount).neg().toFixed() }
      ]

  const changeStatusInWrite = async (organizationId: string | undefined, id: string, status: TransactionStatus, reason: string | null, at: number, settleAt: number | null, events: LedgerEvents): Promise<ChangeResult> => {
    if (!db.inTransaction) throw new Error('changeStatusInWrite runs inside a write')
    const row = await getAny.get(id)
    if (row === undefined || (organizationId !== undefined && row.organization_id !== organizationId)) return { ok: false, reason: 'not-found' }
    const t = toRecord(row)
    if (t.status === 'completed' || t.status === 'failed') return t.status === status ? { ok: true, transaction: t, changed: false } : { ok: false, reason: 'final' }
    if (t.status === status) return { ok: true, transaction: t, changed: false }
    const iso = new Date(at).toISOString()
    let moved = new Map<string, Balance>()
    if (status === 'completed') {
      const destinationOwner = t.destinationAccountId === null ? null : await ownerOfAccount(t.destinationAccountId, destinationOwnerFromBody(t))
      const posted = await post(t.organizationId, t.id, await completionLegs(t, destinationOwner), contraFor(t), at)
      // The hold covers the debit, so completion cannot overdraw; refuse rather than post if it would.
      if (!posted.ok) return { ok: false, reason: 'final' }
      moved = posted.moved
      if (t.destinationAccountId !== null) await events.credited(t.destinationAccountId)
      await closeRfis.run('ok', iso, t.id)
    } else if (status === 'failed') {
      const posted = await post(t.organizationId, t.id, await releaseLegs(t), contraFor(t), at)
      if (!posted.ok) return { ok: false, reason: 'final' }
      moved = posted.moved
      await closeRfis.run('failed', iso, t.id)
    } else if (status === 'on-hold') {
      await insertRfi.run(randomUUID(), t.organizationId, t.id, 'travel-rule', 'pending', null, iso, iso)
    }
    const next: TransactionRecord = {
      ...t,
      status,
      reason: status === 'on-hold' ? (reason ?? 'pending-requests-for-information') : status === 'failed' ? (reason ?? 'unspecified-error') : null,
      settleAt: status === 'processing' ? settleAt : null,
      authorization: status === 'processing' ? t.authorization : null,
      updatedAt: iso,
      completedAt: status === 'completed' ? iso : null
    }
    await updateState.run({ id: t.id, status: next.status, reason: next.reason, settleAt: next.settleAt, authorization: next.authorization, updatedAt: iso, completedAt: next.completedAt })
    if (next.completedAt !== null) await completeParties.run(next.completedAt, t.id)
    await recordEvent(db, events.transaction('core.transaction.status-changed', next))
    await announce(moved, events)
    return { ok: true, transaction: next, changed: true }
  }

  /** A deposit's credit and completion inside an open write; without `events` (a fixture) it records none. */
  const depositInWrite = async (input: NewTransaction, unsettled: { until: number, reason: string } | undefined, at: number, events: LedgerEvents | undefined): Promise<TransactionRecord> => {
    const r = input.record
    await insert(input)
    if (events !== undefined) await recordEvent(db, events.transaction('core.transaction.created', r))
    const accountId = r.destinationAccountId!
    const owner = input.parties.find(p => p.accountId === accountId)?.userId ?? r.userId
    const amount = r.body.destination.amount
    const asset = r.body.destination.asset
    const legs: Leg[] = [{ accountId, userId: owner, asset, total: amount, available: unsettled === undefined ? amount : '0' }]
    if (unsettled !== undefined) {
      legs.push({ accountId: systemAccount(r.organizationId, 'unsettled', asset), userId: null, asset, total: '0', available: amount })
      await insertUnsettled.run(randomUUID(), r.organizationId, accountId, r.id, asset, amount, unsettled.reason, unsettled.until)
    }
    for (const fee of r.body.fees) {
      if (!new Decimal(fee.amount).isZero()) legs.push({ accountId: systemAccount(r.organizationId, 'fees', fee.asset), userId: null, asset: fee.asset, total: fee.amount, available: fee.amount })
    }
    const posted = await post(r.organizationId, r.id, legs, a => systemAccount(r.organizationId, 'world', a), at)
    if (!posted.ok) throw new Error('a credit cannot overdraw')
    await events?.credited(accountId)
    const iso = new Date(at).toISOString()
    const completed: TransactionRecord = { ...r, status: 'completed', reason: null, settleAt: null, updatedAt: iso, completedAt: iso }
    await updateState.run({ id: r.id, status: 'completed', reason: null, settleAt: null, authorization: null, updatedAt: iso, completedAt: iso })
    await completeParties.run(iso, r.id)
    if (events !== undefined) {
      await recordEvent(db, events.transaction('core.transaction.status-changed', completed))
      await announce(posted.moved, events)
    }
    return completed
  }

  return {
    async balance (accountId) { return await balanceInWrite(accountId) },
    balanceInWrite,
    async unsettled (accountId) {
      const rows = await unsettledOf.all(accountId)
      if (rows.length === 0) return undefined
      return { amount: rows.reduce((a, r) => a.plus(r.amount), ZERO).toFixed(), settlementAt: Math.max(...rows.map(r => r.settle_at)) }
    },
    async userHoldings (organizationId, userId) {
      const [balances, pending] = await Promise.all([userNonZero.all(userId), userPending.get(organizationId, userId)])
      return {
        hasBalance: balances.some(r => !new Decimal(r.total).isZero()),
        hasPendingTransactions: pending !== undefined
      }
    },
    async accountPending (accountId) { return await accountPending.get(accountId, accountId) !== undefined },

    async commit ({ input, hold, consume, events, metadata, onHold }) {
      return await write(async (): Promise<CommitResult> => {
        const r = input.record
        if (r.withdrawalKey !== null && await pendingWithdrawal.get(r.withdrawalKey) !== undefined) return { ok: false, reason: 'duplicate-withdrawal' }
        if (hold !== undefined) {
          const available = new Decimal((await balanceInWrite(hold.accountId)).available)
          if (available.lt(new Decimal(hold.available).neg())) return { ok: false, reason: 'insufficient-balance' }
        }
        const consumed = await consume()
        if (consumed !== 'ok') return { ok: false, reason: consumed }
        await insert(input)
        if (metadata !== undefined) await insertMetadata({ organizationId: r.organizationId, entity: 'transactions', entityId: r.id }, metadata)
        await recordEvent(db, events.transaction('core.transaction.created', r))
        if (hold !== undefined) {
          const at = Date.parse(r.createdAt)
          const posted = await post(r.organizationId, r.id, [hold, { accountId: systemAccount(r.organizationId, 'holds', hold.asset), userId: null, asset: hold.asset, total: '0', available: new Decimal(hold.available).neg().toFixed() }], a => systemAccount(r.organizationId, 'holds', a), at)
          // Checked above in this same write: nothing can have spent it since.
          if (!posted.ok) throw new Error('hold refused after its check')
          await announce(posted.moved, events)
        }
        if (onHold === true) {
          const held = await changeStatusInWrite(r.organizationId, r.id, 'on-hold', 'pending-requests-for-information', Date.parse(r.createdAt), null, events)
          if (held.ok) return { ok: true, transaction: held.transaction }
        }
        return { ok: true, transaction: r }
      })
    },

    async deposit (input, unsettled, at, events) {
      return await write(async () => await depositInWrite(input, unsettled, at, events))
    },

    async changeStatus (organizationId, id, status, reason, at, settleAt, events) {
      return await write(async () => await changeStatusInWrite(organizationId, id, status, reason, at, settleAt, events))
    },
    changeStatusInWrite,
    async authorize (id, approved, at, settleAt, events) {
      return await write(async () => {
        const row = await getAny.get(id)
        if (row === undefined) return { ok: false as const, reason: 'not-found' as const }
        if (row.authorization === null || row.status !== 'processing') return { ok: false as const, reason: 'not-pending' as const }
        if (approved) {
          await setSettleAt.run(settleAt, new Date(at).toISOString(), id)
          return { ok: true as const, transaction: toRecord((await getAny.get(id))!) }
        }
        const failed = await changeStatusInWrite(undefined, id, 'failed', 'card-unauthorized', at, null, events)
        return failed.ok ? { ok: true as const, transaction: failed.transaction } : { ok: false as const, reason: 'not-pending' as const }
      })
    },

    async get (organizationId, id) {
      const row = await getAny.get(id)
      return row === undefined || (organizationId !== undefined && row.organization_id !== organizationId) ? undefined : toRecord(row)
    },
    async listForUser (organizationId, userId, offset, limit) { return (await listUser.all(organizationId, userId, limit, offset)).map(toRecord) },
    async listForAccount (accountId, offset, limit) { return (await listAccount.all(accountId, limit, offset)).map(toRecord) },
    async earliestDue (through) { return (await earliestDue.all(through, through)).map(toDueAt) },
    async oldestPendingRfis (cutoff) { return (await oldestPendingRfis.all(cutoff)).map(r => ({ organizationId: r.organization_id, createdAt: r.created_at })) },
    async due (now, limit, scope) { return await dueRows.all(now, ...dueScopeParams(scope), limit) },
    async settleFunds (now, limit, scope, events) {
      return await write(async () => {
        const rows = await dueFunds.all(now, ...dueScopeParams(scope), limit)
        for (const f of rows) {
          if ((await markSettled.run(now, f.id)).changes !== 1) continue
          const owner = await ownerOf.get(f.account_id) ?? null
          const posted = await post(f.organization_id, f.transaction_id, [
            { accountId: f.account_id, userId: owner, asset: f.asset, total: '0', available: f.amount },
            { accountId: systemAccount(f.organization_id, 'unsettled', f.asset), userId: null, asset: f.asset, total: '0', available: new Decimal(f.amount).neg().toFixed() }
          ], a => systemAccount(f.organization_id, 'unsettled', a), now)
          if (posted.ok) await announce(posted.moved, events)
        }
        return rows.length
      })
    },

    async rfis (transactionId) { return (await rfisOf.all(transactionId)).map(toRfi) },
    async rfi (transactionId, rfiId) {
      const row = await rfiOf.get(transactionId, rfiId)
      return row === undefined ? undefined : toRfi(row)
    },
    async isParty (organizationId, transactionId, userId) { return await partyOf.get(transactionId, organizationId, userId) !== undefined },
    async answerRfi (transactionId, rfiId, data, at, settleAt, events) {
      return await write(async () => {
        const iso = new Date(at).toISOString()
        if ((await answer.run(JSON.stringify(data), iso, transactionId, rfiId)).changes !== 1) {
          return { ok: false as const, reason: await rfiOf.get(transactionId, rfiId) === undefined ? 'not-found' as const : 'not-pending' as const }
        }
        const t = await getAny.get(transactionId)
        if (t !== undefined && t.status === 'on-hold' && await pendingRfis.get(transactionId) === 0) {
          await changeStatusInWrite(undefined, transactionId, 'processing', null, at, settleAt, events)
        }
        return { ok: true as const, rfi: toRfi((await rfiOf.get(transactionId, rfiId))!) }
      })
    },
    async closeRfi (transactionId, rfiId, status, at, events) {
      return await write(async () => {
        const iso = new Date(at).toISOString()
        if ((await closeRfi.run(status, iso, transactionId, rfiId)).changes !== 1) {
          return { ok: false as const, reason: await rfiOf.get(transactionId, rfiId) === undefined ? 'not-found' as const : 'not-pending' as const }
        }
        const row = (await getAny.get(transactionId))!
        let transaction = toRecord(row)
        if (row.status === 'on-hold') {
          const failed = await changeStatusInWrite(undefined, transactionId, 'failed', 'travel-rule-verification-failed', at, null, events)
          if (failed.ok) transaction = failed.transaction
        }
        return { ok: true as const, rfi: toRfi((await rfiOf.get(transactionId, rfiId))!), transaction }
      })
    },
    async staleRfis (cutoff, limit, scope) {
      return (await staleRfis.all(cutoff, ...dueScopeParams(scope), limit)).map(r => ({ transactionId: r.transaction_id, id: r.id }))
    },

    async userBalances (userId) {
      return (await userBalances.all(userId)).map(b => ({ accountId: b.account_id, asset: b.asset, total: b.total, available: b.available }))
    },
    async transactionPostings (transactionId) {
      return (await postingsOf.all(transactionId)).map(p => ({ accountId: p.account_id, asset: p.asset, total: p.total, available: p.available }))
    },
    async recent (organizationId, limit) {
      return (organizationId === undefined ? await recentRows.all(limit) : await recentOfOrganization.all(organizationId, limit)).map(toRecord)
    },
    async organizationLedger (organizationId) {
      // Both read in one write, so the balances and the postings are of one moment (the postings
      // sum to the balances) even while other writes commit between the two reads.
      return await write(async () => {
        const balances = await orgBalances.all(organizationId)
        const postings = await orgPostings.all(organizationId)
        return {
          balances: balances.map(b => ({ accountId: b.account_id, userId: b.user_id, asset: b.asset, total: b.total, available: b.available })),
          postings: postings.map(p => ({
            transactionId: p.transaction_id, accountId: p.account_id, userId: p.user_id, asset: p.asset, total: p.total, available: p.available, totalAfter: p.total_after, availableAfter: p.available_after
          }))
        }
      })
    },

    async fixtureDeposit (input, at) {
      await depositInWrite(input, undefined, at, undefined)
    },
    async removeUser (organizationId, userId) {
      await removeParties.run(organizationId, userId)
    }
  }
}

/** The owner of the destination account as the transaction shows it (the account node's `ownerId`, or the offchain execution's). */
function destinationOwnerFromBody (t: TransactionRecord): string | null {
  const node = t.body.destination.node as { ownerId?: string, execution?: { accountOwnerId?: string } }
  return node.ownerId ?? node.execution?.accountOwnerId ?? null
}
