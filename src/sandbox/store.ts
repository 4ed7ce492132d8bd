// The sandbox area's stores: which seed files this database has loaded, the fault rules, and the
// request log's table (PostgreSQL).
import { groupCommit, type Db } from '../storage/db.js'
import { sharedVersionBump } from '../storage/shared.js'

export interface SeedsStore {
  /** Whether a seed file with this digest was loaded into this database (a full reset forgets it). */
  loaded (digest: string): Promise<boolean>
  markLoaded (digest: string, at: string): Promise<void>
}

export function seedsStore (db: Db): SeedsStore {
  const loaded = db.prepare<[string], { digest: string }>('SELECT digest FROM sandbox_seeds WHERE digest = ?')
  const mark = db.prepare('INSERT INTO sandbox_seeds (digest, loaded_at) VALUES (?, ?) ON CONFLICT DO NOTHING')
  const write = groupCommit(db)
  return {
    async loaded (digest) { return await loaded.get(digest) !== undefined },
    async markLoaded (digest, at) { await write(async () => { await mark.run(digest, at) }) }
  }
}

// ---- Fault rules ----

/** A fault rule as stored. */
export interface FaultRow {
  id: string
  method: string | null
  path: string
  status: number | null
  delayMs: number
  drop: boolean
  count: number | null
  probability: number
  retryAfterSeconds: number | null
  remaining: number | null
  applied: number
  organizationId: string | null
  createdAt: string
}

export interface FaultsStore {
  /** Every rule, in the order they are tried (oldest first). */
  list (): Promise<FaultRow[]>
  add (rule: FaultRow): Promise<void>
  /** Whether a rule had this id (of this organization, when one is named). */
  delete (id: string, organizationId?: string): Promise<boolean>
  /** Deletes every rule, or one organization's. */
  clear (organizationId?: string): Promise<void>
  /**
   * Counts one application of a rule: spends one of its `remaining` (atomically, across replicas),
   * deleting it once spent. `applied` is false when there was nothing left to spend (spent or
   * deleted meanwhile, maybe by another replica): the request is then served as if it did not match.
   */
  spend (id: string): Promise<{ applied: boolean, usedUp: boolean }>
}

interface StoredFault {
  id: string
  method: string | null
  path: string
  status: number | null
  delay_ms: number
  drop_connection: number
  count: number | null
  probability: number
  retry_after_seconds: number | null
  remaining: number | null
  applied: number
  organization_id: string | null
  created_at: string
}

const faultRow = (r: StoredFault): FaultRow => ({
  id: r.id,
  method: r.method,
  path: r.path,
  status: r.status,
  delayMs: r.delay_ms,
  drop: r.drop_connection !== 0,
  count: r.count,
  probability: r.probability,
  retryAfterSeconds: r.retry_after_seconds,
  remaining: r.remaining,
  applied: r.applied,
  organizationId: r.organization_id,
  createdAt: r.created_at
})

// Every write that changes the rule list bumps the shared version (src/storage/shared.ts), so each
// replica reloads the list it caches before its next request. Spending one of a rule's count does
// not change the list, unless it spends the last.
export function faultsStore (db: Db): FaultsStore {
  const list = db.prepare<[], StoredFault>(`SELECT id, method, path, status, delay_ms, drop_connection, count, probability, retry_after_seconds,
    remaining, applied, organization_id, created_at FROM sandbox_faults ORDER BY rowid`)
  const insert = db.prepare(`INSERT INTO sandbox_faults (id, method, path, status, delay_ms, drop_connection, count, probability, retry_after_seconds,
    remaining, applied, organization_id, created_at)
    VALUES (@id, @method, @path, @status, @delayMs, @drop, @count, @probability, @retryAfterSeconds, @remaining, @applied, @organizationId, @createdAt)`)
  const remove = db.prepare('DELETE FROM sandbox_faults WHERE id = ?')
  const removeOwn = db.prepare('DELETE FROM sandbox_faults WHERE id = ? AND organization_id = ?')
  const removeAll = db.prepare('DELETE FROM sandbox_faults')
  const removeAllOwn = db.prepare('DELETE FROM sandbox_faults WHERE organization_id = ?')
  // Only a rule with something left (or no count) is applied: under the write lock, so replicas
  // racing for a rule's last use find one winner.
  const spend = db.prepare('UPDATE sandbox_faults SET remaining = remaining - 1, applied = applied + 1 WHERE id = ? AND (remaining IS NULL OR remaining > 0)')
  const removeSpent = db.prepare('DELETE FROM sandbox_faults WHERE id = ? AND remaining = 0')
  const stale = sharedVersionBump(db)
  const write = groupCommit(db)
  return {
    async list () { return (await list.all()).map(faultRow) },
    async add (rule) {
      await write(async () => {
        await insert.run({ ...rule, drop: rule.drop ? 1 : 0 })
        await stale()
      })
    },
    async delete (id, organizationId) {
      return await write(async () => {
        const deleted = (await (organizationId === undefined ? remove.run(id) : removeOwn.run(id, organizationId))).changes > 0
        if (deleted) await stale()
        return deleted
      })
    },
    async clear (organizationId) {
      await write(async () => {
        await (organizationId === undefined ? removeAll.run() : removeAllOwn.run(organizationId))
        await stale()
      })
    },
    async spend (id) {
      return await write(async () => {
        if ((await spend.run(id)).changes === 0) return { applied: false, usedUp: false }
        const usedUp = (await removeSpent.run(id)).changes > 0
        if (usedUp) await stale()
        return { applied: true, usedUp }
      })
    }
  }
}

// ---- The request log's table (PostgreSQL) ----

/** One request log entry as the table keeps it: the entry as the log shows it (masked) and the columns filters read. */
export interface RequestLogRow {
  method: string
  path: string
  status: number
  clientId: string | null
  /**
   * The entry's JSON, as `JSON.stringify` writes it: so no line break (nor any control character,
   * nor a lone surrogate) is in it, which the PostgreSQL store's append relies on.
   */
  entry: string
}

export interface RequestLogSearch {
  method?: string
  /** Exact path, or a pattern where `*` matches any characters. */
  path?: string
  /** An inclusive range of statuses. */
  status?: [number, number]
  clientId?: string
  /** Only entries of these clients. */
  clientIds?: readonly string[]
  limit: number
  /** Matching entries skipped (newest first) before the `limit` returned. */
  offset?: number
}

export interface RequestLogStore {
  /** Adds entries (oldest first) and deletes the oldest beyond `capacity`, in one statement. */
  append (rows: RequestLogRow[], capacity: number): Promise<void>
  /** The JSON of the newest `limit` entries that match after the first `offset` of them, among the newest `capacity`, newest first. */
  search (search: RequestLogSearch, capacity: number): Promise<string[]>
  /** How many entries there are, at most `capacity`. */
  count (capacity: number): Promise<number>
  /** Deletes every entry, or those of these clients. */
  clear (clientIds?: readonly string[]): Promise<void>
}

/** A LIKE pattern (escape `\`) for a request log path pattern: `*` matches any characters, the rest is literal. */
const likePattern = (pattern: string): string => pattern.replace(/[\\%_]/g, '\\$&').replace(/\*/g, '%')
/** PostgreSQL text holds no NUL character (a client id sent to the token endpoint may have one). */
const pgText = (text: string): string => text.includes('\0') ? text.replace(/\0/g, '\uFFFD') : text

/** How often an append of the request log deletes from the bottom (see requestLogStore). */
const FULL_SWEEP_EVERY = 1000

/**
 * PostgreSQL only. None of these statements runs in a write: a log insert takes no part in the
 * group commit and does not wait for its global write lock (it runs on the pool, on its own), so
 * logging never queues behind ledger writes. Each statement is atomic by itself: an insert and the
 * deletion of what it pushes beyond the capacity are one statement; reads look at the newest
 * `capacity` only.
 *
 * An append keeps the entries numbered within `capacity` of its newest and deletes those below
 * (a number lost to a failed insert counts, so the entries lost with it are not made up for), by a
 * range of the key. A deleted row stays in the key's index until autovacuum reaches it, and the
 * earlier deletion of every row below a bound walked all of them from the index's start: under
 * steady traffic, tens of thousands of dead entries and milliseconds of PostgreSQL's CPU per
 * append, more than every other statement of a GET together. The range starts above what this
 * process deleted last: a hint in its memory, which needs no other replica's, as each process's
 * ranges cover every number above its first. Every FULL_SWEEP_EVERY-th append (the first too)
 * starts at the bottom, which also takes a row committed below a range already deleted (an insert
 * that stayed open while `capacity` newer entries were numbered).
 */
export function requestLogStore (db: Db): RequestLogStore {
  if (db.dialect !== 'postgres') throw new Error('The request log table is used on PostgreSQL only (SQLite keeps the log in memory)')
  // The deletion cannot see the rows its own statement inserts; they are newer than its range.
  // The entries go as one text, a line each, split by PostgreSQL: as a text array the driver
  // escaped every quote of every entry's JSON (a regular expression over each), about a twentieth
  // of a GET's CPU on PostgreSQL. JSON text has no line break (JSON.stringify escapes them).
  const append = db.prepare<[string[], string[], number[], Array<string | null>, string, number, number], number>(`WITH added AS (
      INSERT INTO sandbox_request_log (method, path, status, client_id, entry)
      SELECT method, path, status, client_id, entry FROM unnest(?::text[], ?::text[], ?::bigint[], ?::text[], string_to_array(CAST(? AS TEXT), chr(10)))
        WITH ORDINALITY AS batch(method, path, status, client_id, entry, n)
      ORDER BY n
      RETURNING seq
    ), below AS (
      SELECT max(seq) - CAST(? AS BIGINT) AS seq FROM added
    ), deleted AS (
      DELETE FROM sandbox_request_log WHERE seq > CAST(? AS BIGINT) AND seq <= (SELECT seq FROM below)
    )
    SELECT seq FROM below`).pluck()
  /** Every entry numbered at or below it was deleted by this process (see the comment above). */
  let deletedThrough = 0
  let appends = 0
  const search = db.prepare<Record<string, unknown>, string>(`SELECT entry FROM sandbox_request_log
    WHERE seq > COALESCE((SELECT seq FROM sandbox_request_log ORDER BY seq DESC OFFSET @capacity LIMIT 1), 0)
      AND (CAST(@method AS TEXT) IS NULL OR method = @method)
      AND (CAST(@path AS TEXT) IS NULL OR path LIKE @path ESCAPE '\\')
      AND (CAST(@statusFrom AS BIGINT) IS NULL OR status BETWEEN @statusFrom AND @statusTo)
      AND (CAST(@clientId AS TEXT) IS NULL OR client_id = @clientId)
      AND (CAST(@clientIds AS TEXT[]) IS NULL OR client_id = ANY(CAST(@clientIds AS TEXT[])))
    ORDER BY seq DESC LIMIT @limit OFFSET @offset`).pluck()
  const count = db.prepare<[number], number>('SELECT count(*) FROM (SELECT 1 FROM sandbox_request_log ORDER BY seq DESC LIMIT ?) AS newest').pluck()
  const clear = db.prepare('DELETE FROM sandbox_request_log')
  const clearClients = db.prepare<[string[]]>('DELETE FROM sandbox_request_log WHERE client_id = ANY(CAST(? AS TEXT[]))')
  return {
    async append (rows, capacity) {
      const kept = rows.length > capacity ? rows.slice(rows.length - capacity) : rows
      if (kept.length === 0) return
      // A line break would shift every entry after it onto the wrong row: refused, never written.
      if (kept.some(r => r.entry.includes('\n'))) throw new Error('a request log entry holds a line break: not JSON.stringify\'s text')
      const from = appends++ % FULL_SWEEP_EVERY === 0 ? 0 : deletedThrough
      const through = await append.get(kept.map(r => pgText(r.method)), kept.map(r => pgText(r.path)), kept.map(r => r.status),
        kept.map(r => r.clientId === null ? null : pgText(r.clientId)), kept.map(r => r.entry).join('\n'), capacity, from)
      if (through !== undefined) deletedThrough = Math.max(deletedThrough, Number(through))
    },
    async search (s, capacity) {
      return await search.all({
        capacity,
        method: s.method ?? null,
        path: s.path === undefined ? null : likePattern(pgText(s.path)),
        statusFrom: s.status?.[0] ?? null,
        statusTo: s.status?.[1] ?? null,
        clientId: s.clientId === undefined ? null : pgText(s.clientId),
        clientIds: s.clientIds === undefined ? null : s.clientIds.map(pgText),
        limit: s.limit,
        offset: s.offset ?? 0
      })
    },
    async count (capacity) { return (await count.get(capacity)) ?? 0 },
    async clear (clientIds) { await (clientIds === undefined ? clear.run() : clearClients.run(clientIds.map(pgText))) }
  }
}
