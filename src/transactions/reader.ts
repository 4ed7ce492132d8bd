// The ledger's read model for other areas (the portfolio and its statements), read-only: a user's
// running balances, what their accounts held at given instants, the postings that moved their
// totals with what each transaction paid, and the transactions that completed in a statement
// period. The tables are this area's (migrations.ts); every statement is prepared once, here, so no
// other area holds their SQL.
import type { FastifyInstance } from 'fastify'
import type { Db } from '../storage/db.js'

export interface HeldBalance { accountId: string, asset: string, total: string, available: string }

/** One posting that changed the total of one of the user's accounts, with the origin of its transaction. */
export interface UserPosting {
  accountId: string
  asset: string
  /** The change of the account's total (never zero). */
  total: string
  /** ms on the sandbox clock. */
  at: number
  transactionId: string
  /** What left the transaction's origin (the whole amount paid, fees included). */
  origin: { asset: string, amount: string } | undefined
}

/** What an account held at an instant: what its last posting at or before it left. */
export interface HeldAt { at: number, accountId: string, asset: string, totalAfter: string, availableAfter: string }

export interface LedgerReader {
  /** The user's accounts' running balances. */
  balances (userId: string): Promise<HeldBalance[]>
  /**
   * At each instant (ms), each of the user's accounts with a posting at or before it: what its last
   * one left, in no particular order. One index seek per instant and account
   * (ledger_postings_account_at), whatever the length of the history.
   */
  heldAt (userId: string, instants: number[]): Promise<HeldAt[]>
  /**
   * The postings that changed the total of one of the user's accounts after `after` (ms, exclusive;
   * omitted: from the first) up to `until`, oldest first. Holds and their releases, which move only
   * what is available, are left out.
   */
  postings (userId: string, until: number, after?: number): Promise<UserPosting[]>
  /** Ids of the user's transactions completed between `from` and `to` (ISO instants, inclusive), newest first. */
  completedBetween (organizationId: string, userId: string, from: string, to: string, offset: number, limit: number): Promise<string[]>
}

interface PostingRow {
  account_id: string,
  asset: string,
  total: string,
  at: number,
  transaction_id: string
  origin_asset: unknown,
  origin_amount: unknown
}

export function ledgerReader (db: Db): LedgerReader {
  const balances = db.prepare<[string], { account_id: string, asset: string, total: string, available: string }>(
    'SELECT account_id, asset, total, available FROM ledger_balances WHERE user_id = ? ORDER BY asset, account_id')
  // The last posting of each of the user's accounts at or before each instant, found through the
  // account's index by time (account_id, at, seq) rather than by reading the user's history.
  // `instants` is a JSON array of ms: SQLite reads it with json_each, PostgreSQL with
  // jsonb_array_elements_text (the parameter typed text, as accounts/store.ts explains).
  const heldAtSql = (instants: string): string => `SELECT i.at, p.account_id, p.asset, p.total_after, p.available_after
    FROM ${instants} CROSS JOIN ledger_balances b
    JOIN ledger_postings p ON p.seq = (SELECT q.seq FROM ledger_postings q WHERE q.account_id = b.account_id AND q.at <= i.at
      ORDER BY q.at DESC, q.seq DESC LIMIT 1)
    WHERE b.user_id = ?`
  const heldAt = db.prepare<[string, string], { at: number, account_id: string, asset: string, total_after: string, available_after: string }>({
    sqlite: heldAtSql('(SELECT CAST(value AS INTEGER) AS at FROM json_each(?)) AS i'),
    postgres: heldAtSql('(SELECT CAST(value AS BIGINT) AS at FROM jsonb_array_elements_text(CAST(CAST(? AS TEXT) AS jsonb)) AS e(value)) AS i')
  })
  // Reads the ledger_postings_user index (user_id, at, seq). The totals are decimal text ('0',
  // '-2.00', '0.000000000000000001'): as NUMERIC, a zero is zero whatever its decimals on both
  // backends (SQLite's cast of a tiny amount is a REAL, never zero). Leaving out the holds and their
  // releases (a third of a trader's postings) spares their rows and their transactions' JSON.
  const postingsFrom = `FROM ledger_postings p LEFT JOIN transactions t ON t.id = p.transaction_id
    WHERE p.user_id = ? AND p.at > ? AND p.at <= ? AND CAST(p.total AS NUMERIC) <> 0 ORDER BY p.at, p.seq`
  const postings = db.prepare<[string, number, number], PostingRow>({
    sqlite: `SELECT p.account_id, p.asset, p.total, p.at, p.transaction_id,
      json_extract(t.body, '$.origin.asset') AS origin_asset, json_extract(t.body, '$.origin.amount') AS origin_amount
    ${postingsFrom}`,
    postgres: `SELECT p.account_id, p.asset, p.total, p.at, p.transaction_id,
      t.body::jsonb #>> '{origin,asset}' AS origin_asset, t.body::jsonb #>> '{origin,amount}' AS origin_amount
    ${postingsFrom}`
  })
  // The user's transactions completed in the period, read in the order of the parties' index by
  // completion time (transaction_parties_completed): a page reads its own rows and those it skips.
  // A user is a party of a transaction once per account, so the page is of distinct transactions.
  const completed = db.prepare<[string, string, string, string, number, number], string>(`SELECT DISTINCT transaction_id, completed_at
    FROM transaction_parties WHERE organization_id = ? AND user_id = ? AND completed_at IS NOT NULL AND completed_at >= ? AND completed_at <= ?
    ORDER BY completed_at DESC, transaction_id DESC LIMIT ? OFFSET ?`).pluck()

  const originOf = (asset: unknown, amount: unknown): UserPosting['origin'] =>
    typeof asset === 'string' && typeof amount === 'string' ? { asset, amount } : undefined

  return {
    async balances (userId) {
      return (await balances.all(userId)).map(b => ({ accountId: b.account_id, asset: b.asset, total: b.total, available: b.available }))
    },
    async heldAt (userId, instants) {
      return (await heldAt.all(JSON.stringify(instants), userId)).map(p => ({
        at: p.at, accountId: p.account_id, asset: p.asset, totalAfter: p.total_after, availableAfter: p.available_after
      }))
    },
    async postings (userId, until, after = Number.MIN_SAFE_INTEGER) {
      return (await postings.all(userId, after, until)).map(p => ({
        accountId: p.account_id,
        asset: p.asset,
        total: p.total,
        at: p.at,
        transactionId: p.transaction_id,
        origin: originOf(p.origin_asset, p.origin_amount)
      }))
    },
    async completedBetween (organizationId, userId, from, to, offset, limit) {
      return await completed.all(organizationId, userId, from, to, limit, offset)
    }
  }
}

/** The ledger's reader on the app's storage. */
export const ledgerReaderOf = (app: FastifyInstance): LedgerReader => app.storage.store(ledgerReader)
