// The ledger's read model for other areas (the portfolio and its statements), read-only: a user's
// running balances, the postings of their accounts with what each transaction paid, and the
// transactions that completed in a statement period. The tables are this area's
// (migrations.ts); every statement is prepared once, here, so no other area holds their SQL.
import type { FastifyInstance } from 'fastify'
import type { Db } from '../storage/db.js'

export interface HeldBalance { accountId: string, asset: string, total: string, available: string }

/** One posting on one of the user's accounts, with the origin of its transaction. */
export interface UserPosting {
  seq: number
  accountId: string
  asset: string
  /** The change of the account's total (zero for a hold or its release). */
  total: string
  totalAfter: string
  availableAfter: string
  /** ms on the sandbox clock. */
  at: number
  transactionId: string
  /** What left the transaction's origin (the whole amount paid, fees included). */
  origin: { asset: string, amount: string } | undefined
}

export interface LedgerReader {
  /** The user's accounts' running balances. */
  balances (userId: string): Promise<HeldBalance[]>
  /** The postings on the user's accounts up to `until` (ms), oldest first. */
  postings (userId: string, until: number): Promise<UserPosting[]>
  /** Ids of the user's transactions completed between `from` and `to` (ISO instants, inclusive), newest first. */
  completedBetween (organizationId: string, userId: string, from: string, to: string, offset: number, limit: number): Promise<string[]>
}

interface PostingRow {
  seq: number,
  account_id: string,
  asset: string,
  total: string,
  total_after: string,
  available_after: string,
  at: number,
  transaction_id: string
  origin_asset: unknown,
  origin_amount: unknown
}

export function ledgerReader (db: Db): LedgerReader {
  const balances = db.prepare<[string], { account_id: string, asset: string, total: string, available: string }>(
    'SELECT account_id, asset, total, available FROM ledger_balances WHERE user_id = ? ORDER BY asset, account_id')
  // Reads the ledger_postings_user index (user_id, at, seq).
  const postingsFrom = `FROM ledger_postings p LEFT JOIN transactions t ON t.id = p.transaction_id
    WHERE p.user_id = ? AND p.at <= ? ORDER BY p.at, p.seq`
  const postings = db.prepare<[string, number], PostingRow>({
    sqlite: `SELECT p.seq, p.account_id, p.asset, p.total, p.total_after, p.available_after, p.at, p.transaction_id,
      json_extract(t.body, '$.origin.asset') AS origin_asset, json_extract(t.body, '$.origin.amount') AS origin_amount
    ${postingsFrom}`,
    postgres: `SELECT p.seq, p.account_id, p.asset, p.total, p.total_after, p.available_after, p.at, p.transaction_id,
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
    async postings (userId, until) {
      return (await postings.all(userId, until)).map(p => ({
        seq: p.seq,
        accountId: p.account_id,
        asset: p.asset,
        total: p.total,
        totalAfter: p.total_after,
        availableAfter: p.available_after,
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
