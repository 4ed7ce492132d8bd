// Migrations named per owner: applied once, in order, recorded by name; duplicates refused before
// anything runs; a database of the numbered scheme read into the named one.
import t from 'tap'
import Database from 'better-sqlite3'
import { migrate } from '../../src/storage/migrate.js'
import { openStorage } from '../../src/storage/index.js'
import { migrations as coreMigrations } from '../../src/storage/core-migrations.js'
import { migrations as webhooksMigrations } from '../../src/webhooks/migrations.js'
import { migrations as sandboxMigrations } from '../../src/sandbox/migrations.js'
import { build, fileDatabasePath } from '../helpers.js'

const names = (db: Database.Database): string[] =>
  (db.prepare('SELECT name FROM migrations ORDER BY rowid').all() as Array<{ name: string }>).map(r => r.name)
const tables = (db: Database.Database): string[] =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map(r => r.name)

t.test('a new database records the core\'s and every area\'s migrations by name, in area order', async t => {
  const app = await build(t)
  t.strictSame(names(app.storage.db), ['core/001-core', 'catalogue/001-catalogue', 'files/001-files', 'kyc/001-kyc', 'webhooks/001-webhooks', 'webhooks/002-rotation-retention', 'sandbox/001-seeds'])
  t.ok(tables(app.storage.db).includes('webhook_endpoints'))
  t.ok(tables(app.storage.db).includes('sandbox_seeds'))
})

t.test('migrations run once, in the order given, and report what they ran', async t => {
  const db = new Database(':memory:')
  t.teardown(() => db.close())
  const list = [{ name: 'a/001', sql: 'CREATE TABLE one (x)' }, { name: 'a/002', sql: 'ALTER TABLE one ADD COLUMN y' }]
  t.strictSame(migrate(db, list), ['a/001', 'a/002'])
  t.strictSame(migrate(db, list), [], 'nothing runs twice')
  t.strictSame(migrate(db, [...list, { name: 'b/001', sql: 'CREATE TABLE two (x)' }]), ['b/001'])
  t.strictSame(names(db), ['a/001', 'a/002', 'b/001'])
})

t.test('two migrations of one name are refused before any runs', async t => {
  const db = new Database(':memory:')
  t.teardown(() => db.close())
  t.throws(() => migrate(db, [{ name: 'a/001', sql: 'CREATE TABLE one (x)' }, { name: 'a/001', sql: 'CREATE TABLE two (x)' }]), /Two migrations are named a\/001/)
  t.notOk(tables(db).includes('one'), 'the first did not run either')
})

t.test('a failing migration leaves no trace and stops the ones after it', async t => {
  const db = new Database(':memory:')
  t.teardown(() => db.close())
  t.throws(() => migrate(db, [{ name: 'a/001', sql: 'CREATE TABLE one (x); CREATE TABLE one (x)' }, { name: 'a/002', sql: 'CREATE TABLE two (x)' }]))
  t.strictSame(names(db), [])
  t.notOk(tables(db).includes('one'))
  t.notOk(tables(db).includes('two'))
})

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

  const app = await build(t, { databasePath: path }, { storage: openStorage(path) })
  // The numbered ones first, as recorded; then those no numbered database had.
  t.strictSame(names(app.storage.db), ['core/001-core', 'webhooks/001-webhooks', 'sandbox/001-seeds', 'catalogue/001-catalogue', 'files/001-files', 'kyc/001-kyc', 'webhooks/002-rotation-retention'])
  t.notOk(tables(app.storage.db).includes('schema_migrations'), 'the numbered record is gone')
  t.equal(await app.storage.settings.get('kept'), 'yes')
  const health = await app.inject({ method: 'GET', url: '/_sandbox/health' })
  t.equal(health.statusCode, 200)
})
