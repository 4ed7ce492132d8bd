// Migrations named per owner: applied once, in order, recorded by name; duplicates refused before
// anything runs; a database of the numbered scheme read into the named one.
import t from 'tap'
import Database from 'better-sqlite3'
import { migrate, type Migration } from '../../src/storage/migrate.js'
import type { Db } from '../../src/storage/db.js'
import { openStorage } from '../../src/storage/index.js'
import { migrations as coreMigrations } from '../../src/storage/core-migrations.js'
import { migrations as webhooksMigrations } from '../../src/webhooks/migrations.js'
import { migrations as sandboxMigrations } from '../../src/sandbox/migrations.js'
import { backend, build, emptyDatabase, fileDatabasePath } from '../helpers.js'
import { AreaRegistry } from '../../src/kit/area.js'
import { areas } from '../../src/areas.js'

const CORE_MIGRATIONS = coreMigrations.map(m => `core/${m.name}`)
const AREA_MIGRATIONS = new AreaRegistry(areas).migrations().map(m => m.name)

// The record of migrations, in the order they ran. PostgreSQL's table has no rowid; a table only
// ever inserted into, one row per transaction, keeps its rows in that order (ctid).
const names = async (db: Db): Promise<string[]> =>
  await db.prepare<[], string>({ sqlite: 'SELECT name FROM migrations ORDER BY rowid', postgres: 'SELECT name FROM migrations ORDER BY ctid' }).pluck().all()
const tables = async (db: Db): Promise<string[]> =>
  await db.prepare<[], string>({
    sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
    postgres: "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY name"
  }).pluck().all()

/** A migration whose text is the same on both backends. */
const same = (name: string, sql: string): Migration => ({ name, sql, postgres: sql })

t.test('a new database records the core\'s and every area\'s migrations by name, in area order', async t => {
  const app = await build(t)
  t.strictSame(await names(app.storage.db), [...CORE_MIGRATIONS, ...AREA_MIGRATIONS])
  t.ok(AREA_MIGRATIONS.indexOf('webhooks/001-webhooks') < AREA_MIGRATIONS.indexOf('webhooks/002-rotation-retention'), 'an area\'s own in its order')
  t.ok((await tables(app.storage.db)).includes('webhook_endpoints'))
  t.ok((await tables(app.storage.db)).includes('sandbox_seeds'))
})

t.test('migrations run once, in the order given, and report what they ran', async t => {
  const db = await emptyDatabase(t)
  const list = [same('a/001', 'CREATE TABLE one (x TEXT)'), same('a/002', 'ALTER TABLE one ADD COLUMN y TEXT')]
  t.strictSame(await migrate(db, list), ['a/001', 'a/002'])
  t.strictSame(await migrate(db, list), [], 'nothing runs twice')
  t.strictSame(await migrate(db, [...list, same('b/001', 'CREATE TABLE two (x TEXT)')]), ['b/001'])
  t.strictSame(await names(db), ['a/001', 'a/002', 'b/001'])
})

t.test('two migrations of one name are refused before any runs', async t => {
  const db = await emptyDatabase(t)
  await t.rejects(migrate(db, [same('a/001', 'CREATE TABLE one (x TEXT)'), same('a/001', 'CREATE TABLE two (x TEXT)')]), /Two migrations are named a\/001/)
  t.notOk((await tables(db)).includes('one'), 'the first did not run either')
})

t.test('the pending migrations of a call commit together, once', async t => {
  const db = await emptyDatabase(t)
  await migrate(db, [same('a/001', 'CREATE TABLE one (x TEXT)')])
  let commits = 0
  db.afterCommit(() => { commits++ })
  const list = [same('a/001', 'CREATE TABLE one (x TEXT)'), same('a/002', 'CREATE TABLE two (x TEXT)'), same('a/003', 'CREATE TABLE three (x TEXT)')]
  t.strictSame(await migrate(db, list), ['a/002', 'a/003'])
  t.equal(commits, 2, 'one commit for the record\'s table, one for the two migrations')
  t.strictSame(await names(db), ['a/001', 'a/002', 'a/003'])
})

t.test('a migration that fails leaves the database as the call found it, earlier migrations of the call included', async t => {
  const db = await emptyDatabase(t)
  await migrate(db, [same('a/001', 'CREATE TABLE one (x TEXT)')])
  await t.rejects(migrate(db, [same('a/002', 'CREATE TABLE two (x TEXT)'), same('a/003', 'CREATE TABLE two (x TEXT)')]))
  t.strictSame(await names(db), ['a/001'], 'a/002 is not recorded')
  t.notOk((await tables(db)).includes('two'), 'nor is its table there')
  t.strictSame(await migrate(db, [same('a/002', 'CREATE TABLE two (x TEXT)')]), ['a/002'], 'the next start applies it')
})

t.test('a failing migration leaves no trace and stops the ones after it', async t => {
  const db = await emptyDatabase(t)
  await t.rejects(migrate(db, [same('a/001', 'CREATE TABLE one (x TEXT); CREATE TABLE one (x TEXT)'), same('a/002', 'CREATE TABLE two (x TEXT)')]))
  t.strictSame(await names(db), [])
  t.notOk((await tables(db)).includes('one'))
  t.notOk((await tables(db)).includes('two'))
})

// The numbered scheme was SQLite's alone (PostgreSQL came with named migrations): no PostgreSQL
// database was ever made with it.
if (backend === 'sqlite') {
  t.test('a database made with numbered migrations is read into named ones and keeps its data', async t => {
    const path = fileDatabasePath(t)
    // As the numbered scheme left a database: its three migrations applied and recorded as versions.
    const old = new Database(path)
    old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
    for (const [version, m] of [[1, coreMigrations[0]], [2, webhooksMigrations[0]], [3, sandboxMigrations[0]]] as const) {
      old.exec(m.sql)
      old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(version, m.name, '2026-01-01T00:00:00.000Z')
    }
    old.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('kept', 'yes')
    old.close()

    const app = await build(t, { databasePath: path }, { storage: await openStorage(path) })
    const numbered = ['core/001-core', 'webhooks/001-webhooks', 'sandbox/001-seeds']
    t.strictSame(await names(app.storage.db), [...numbered, ...[...CORE_MIGRATIONS, ...AREA_MIGRATIONS].filter(n => !numbered.includes(n))], 'the numbered ones kept, the newer ones run')
    t.notOk((await tables(app.storage.db)).includes('schema_migrations'), 'the numbered record is gone')
    t.equal(await app.storage.settings.get('kept'), 'yes')
    const health = await app.inject({ method: 'GET', url: '/_sandbox/health' })
    t.equal(health.statusCode, 200)
  })
}
