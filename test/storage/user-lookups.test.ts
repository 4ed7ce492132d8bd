// A user's rows are found by index: every statement the stores prepare that picks rows by user, and
// the deletion of a user with the cascades its foreign keys set off, reads no table whole. In a
// shared sandbox a full scan grows with every organization's data, and `DELETE /core/users/me`
// would take longer the more quotes, tokens and transactions all the others have made.
// Checked on SQLite's query plans (on either suite backend: the plans are SQLite's). The statements
// are the ones the app prepares when it is built, taken from the driver as they are prepared, not a
// hand-kept list; the migrations give PostgreSQL the same indexes.
import t from 'tap'
import Database from 'better-sqlite3'
import { openStorage } from '../../src/storage/index.js'
import { build } from '../helpers.js'

/** The SQL texts prepared while `work` runs, with the connection of each. */
async function preparedDuring (work: () => Promise<void>): Promise<Map<string, Database.Database>> {
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

/** The steps of a statement's plan that read a table (or an index) whole. */
function scans (db: Database.Database, sql: string): string[] {
  const positional = (sql.match(/\?/g) ?? []).length
  const named = new Proxy({}, { get: () => null, has: () => true })
  const explain = db.prepare(`EXPLAIN QUERY PLAN ${sql}`)
  const plan = (positional > 0 ? explain.all(...Array(positional).fill(null)) : explain.all(named)) as Array<{ detail: string }>
  // A table-valued function over a parameter (json_each of a list sent with the request) is no table.
  return plan.map(p => p.detail).filter(d => d.startsWith('SCAN ') && !/^SCAN json_each\b/.test(d))
}

t.test('the statements that find a user\'s rows, and a user\'s deletion, read no table whole', async t => {
  const prepared = await preparedDuring(async () => {
    const storage = await openStorage({ databasePath: ':memory:' })
    // The app, every area's stores and migrations included, on that SQLite storage.
    await build(t, {}, { storage })
  })
  const byUser = [...prepared].filter(([sql]) => /\buser_id\s*=\s*[?@]/.test(sql) || /^\s*DELETE FROM users\b/.test(sql))
  t.ok(byUser.some(([sql]) => /^\s*DELETE FROM users\b/.test(sql)), 'the deletion of a user is among them')
  t.ok(byUser.length >= 20, `the stores' lookups by user are found (${byUser.length})`)
  for (const [sql, db] of byUser) {
    t.same(scans(db, sql), [], sql.replace(/\s+/g, ' ').trim())
  }
})
