// SQLite's query plans of the statements the app prepares, for the tests that check a lookup goes
// by index (on either suite backend: the plans are SQLite's; the migrations give PostgreSQL the
// same indexes).
import Database from 'better-sqlite3'

/** The SQL texts prepared while `work` runs, with the connection of each. */
export async function preparedDuring (work: () => Promise<void>): Promise<Map<string, Database.Database>> {
  const prepared = new Map<string, Database.Database>()
  const prepare = Database.prototype.prepare
  Database.prototype.prepare = function (this: Database.Database, sql: string) {
    if (!prepared.has(sql)) prepared.set(sql, this)
    return prepare.call(this, sql)
  } as typeof prepare
  try {
    await work()
  } finally {
    Database.prototype.prepare = prepare
  }
  return prepared
}

/** The steps of a statement's plan (EXPLAIN QUERY PLAN's details), every parameter null. */
export function planOf (db: Database.Database, sql: string): string[] {
  const positional = (sql.match(/\?/g) ?? []).length
  const named = Object.fromEntries([...sql.matchAll(/[@$:](\w+)/g)].map(m => [m[1], null]))
  const explain = db.prepare(`EXPLAIN QUERY PLAN ${sql}`)
  const plan = (positional > 0 ? explain.all(...Array(positional).fill(null)) : explain.all(named)) as Array<{ detail: string }>
  return plan.map(p => p.detail)
}

/** The steps of a statement's plan that read a table (or an index) whole. */
export function scans (db: Database.Database, sql: string): string[] {
  const plan = planOf(db, sql)
  // A subquery's own rows (a co-routine or a materialized result, already limited) are no table;
  // nor is a table-valued function over a parameter (json_each of a list sent with the request).
  const subqueries = new Set(plan.flatMap(d => /^(?:CO-ROUTINE|MATERIALIZE) (\S+)$/.exec(d)?.[1] ?? []))
  return plan.filter(d => d.startsWith('SCAN ') && !/^SCAN json_each\b/.test(d) && !subqueries.has(d.slice(5)))
}

/** One line of SQL, for an assertion's message. */
export const oneLine = (sql: string): string => sql.replace(/\s+/g, ' ').trim()
