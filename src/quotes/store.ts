// The quotes area's store: quotes as answered, immutable, and consumed exactly once. Every
// statement is prepared once, here; request-path writes go through the group commit. The ledger
// (area 5) consumes a quote with `consume`, or with `consumeInWrite` inside its own write.
import { groupCommit, type Db } from '../storage/db.js'
import type { Quote } from '../../schemas/quotes.js'

export interface QuoteRecord {
  id: string
  organizationId: string
  userId: string
  /** The quote as the API answered it. */
  quote: Quote
  /** Which daily limit it counts against (`card-deposit`, `bank-withdrawal`, ...; `none`). */
  limitGroup: string
  /** Its value in USD, a decimal string, for the daily limits. */
  usdValue: string
  /** When it expires, ms on the sandbox clock. */
  expiresAt: number
  /** When it was consumed, ms; null while unused. */
  usedAt: number | null
  createdAt: string
}

export type ConsumeResult =
  | { ok: true, quote: QuoteRecord }
  | { ok: false, reason: 'not-found' | 'used' | 'expired' }

export interface QuotesStore {
  create (quote: QuoteRecord): Promise<QuoteRecord>
  /** A quote of the organization, or undefined. */
  get (organizationId: string, id: string): Promise<QuoteRecord | undefined>
  /**
   * Consumes the quote at `now` (ms): refused when there is none in the organization, when it was
   * used, or when it has expired (`now >= expiresAt`). Exactly one of any number of concurrent
   * calls succeeds: the check and the mark are one statement in one write.
   */
  consume (organizationId: string, id: string, now: number): Promise<ConsumeResult>
  /** The same, for a caller already inside a write (the ledger committing a transaction): it joins that write. */
  consumeInWrite (organizationId: string, id: string, now: number): Promise<ConsumeResult>
  /** The USD values of the user's quotes of a limit group consumed at or after `since` (ms). */
  usedSince (userId: string, limitGroup: string, since: number): Promise<string[]>
  /** The same, inside the ledger's write that commits a quote (its daily limit). */
  usedSinceInWrite (userId: string, limitGroup: string, since: number): Promise<string[]>
  /** Up to `limit` quotes never used, after the id `after`, in id order: the retention's walk. */
  unusedAfter (after: string, limit: number): Promise<Array<{ key: string, organizationId: string, expiresAt: number }>>
  /** Deletes these quotes, if still unused; how many went. */
  deleteUnused (ids: string[]): Promise<number>
}

interface Row {
  id: string
  organization_id: string
  user_id: string
  body: string
  limit_group: string
  usd_value: string
  expires_at: number
  used_at: number | null
  created_at: string
}

const toRecord = (r: Row): QuoteRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  userId: r.user_id,
  quote: JSON.parse(r.body),
  limitGroup: r.limit_group,
  usdValue: r.usd_value,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  createdAt: r.created_at
})

export function quotesStore (db: Db): QuotesStore {
  const insert = db.prepare(`INSERT INTO quotes (id, organization_id, user_id, body, limit_group, usd_value, expires_at, used_at, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const get = db.prepare<[string, string], Row>('SELECT * FROM quotes WHERE organization_id = ? AND id = ?')
  const markUsed = db.prepare('UPDATE quotes SET used_at = ? WHERE organization_id = ? AND id = ? AND used_at IS NULL AND expires_at > ?')
  const usedSince = db.prepare<[string, string, number], string>('SELECT usd_value FROM quotes WHERE user_id = ? AND limit_group = ? AND used_at >= ?').pluck()
  // The retention's walk, by the primary key's index: the unused quotes are filtered out of it.
  const unusedAfter = db.prepare<[string, number], { id: string, organization_id: string, expires_at: number }>(
    'SELECT id, organization_id, expires_at FROM quotes WHERE id > ? AND used_at IS NULL ORDER BY id LIMIT ?')
  const deleteUnused = db.prepare<[string | string[]]>({
    sqlite: 'DELETE FROM quotes WHERE id IN (SELECT value FROM json_each(?)) AND used_at IS NULL',
    postgres: 'DELETE FROM quotes WHERE id = ANY(?::text[]) AND used_at IS NULL'
  })
  const write = groupCommit(db)

  const consumeInWrite = async (organizationId: string, id: string, now: number): Promise<ConsumeResult> => {
    if ((await markUsed.run(now, organizationId, id, now)).changes === 1) return { ok: true, quote: toRecord((await get.get(organizationId, id))!) }
    const row = await get.get(organizationId, id)
    if (row === undefined) return { ok: false, reason: 'not-found' }
    return { ok: false, reason: row.used_at !== null ? 'used' : 'expired' }
  }

  return {
    async create (q) {
      // A new row nobody reads the answer of: on PostgreSQL the group goes on without waiting for it.
      await write(async () => {
        await insert.runUnanswered(q.id, q.organizationId, q.userId, JSON.stringify(q.quote), q.limitGroup, q.usdValue, q.expiresAt, q.usedAt, q.createdAt)
      })
      return q
    },
    async get (organizationId, id) {
      const row = await get.get(organizationId, id)
      return row === undefined ? undefined : toRecord(row)
    },
    async consume (organizationId, id, now) {
      return await write(async () => await consumeInWrite(organizationId, id, now))
    },
    consumeInWrite,
    async usedSince (userId, limitGroup, since) {
      return await usedSince.all(userId, limitGroup, since)
    },
    async usedSinceInWrite (userId, limitGroup, since) {
      return await usedSince.all(userId, limitGroup, since)
    },
    async unusedAfter (after, limit) {
      return (await unusedAfter.all(after, limit)).map(r => ({ key: r.id, organizationId: r.organization_id, expiresAt: r.expires_at }))
    },
    async deleteUnused (ids) {
      if (ids.length === 0) return 0
      return await write(async () => (await deleteUnused.run(db.dialect === 'postgres' ? ids : JSON.stringify(ids))).changes)
    }
  }
}
