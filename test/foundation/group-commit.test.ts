// The group commit: writes queued in one turn of the event loop share a transaction (and its
// fsync), each is atomic on its own, and none is acknowledged before its commit.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { groupCommit } from '../../src/storage/db.js'
import { openStorage } from '../../src/storage/index.js'

function fileStorage (t: { teardown: (fn: () => unknown) => void }): { path: string, storage: ReturnType<typeof openStorage> } {
  const dir = mkdtempSync(join(tmpdir(), 'group-commit-'))
  const path = join(dir, 'sandbox.db')
  const storage = openStorage(path)
  t.teardown(async () => { await storage.close(); rmSync(dir, { recursive: true, force: true }) })
  return { path, storage }
}

const setting = (db: Database.Database, key: string): unknown =>
  (db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined)?.value

t.test('a write is acknowledged only once its group is committed', async t => {
  const { storage } = fileStorage(t)
  const insert = storage.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  const written = groupCommit(storage.db)(() => insert.run('a', '1').changes)
  t.equal(setting(storage.db, 'a'), undefined, 'queued, not yet written')
  t.equal(await written, 1, 'the promise gives the write\'s result')
  t.equal(storage.db.inTransaction, false, 'committed when acknowledged')
  t.equal(setting(storage.db, 'a'), '1')
})

t.test('the database is the process\'s own: another connection cannot open it while it is open', async t => {
  const { path } = fileStorage(t)
  const other = new Database(path, { timeout: 0 })
  t.teardown(() => other.close())
  t.throws(() => other.prepare('SELECT COUNT(*) FROM settings').get(), { code: 'SQLITE_BUSY' })
})

t.test('writes of one turn share a commit, and a write that throws is undone and refused alone', async t => {
  const { storage } = fileStorage(t)
  const write = groupCommit(storage.db)
  const insert = storage.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  const seen: boolean[] = []
  const results = await Promise.allSettled([
    write(() => { seen.push(storage.db.inTransaction); insert.run('a', '1') }),
    write(() => { insert.run('b', '2'); throw new Error('refused') }),
    write(() => { seen.push(storage.db.inTransaction); insert.run('c', setting(storage.db, 'a') === '1' ? 'after a' : 'alone') })
  ])
  t.same(results.map(r => r.status), ['fulfilled', 'rejected', 'fulfilled'])
  t.match((results[1] as PromiseRejectedResult).reason, { message: 'refused' })
  // The throw made the group run again, each write in its own savepoint.
  t.ok(seen.length >= 2 && seen.every(Boolean), 'each runs inside the group transaction')
  t.equal(setting(storage.db, 'a'), '1')
  t.equal(setting(storage.db, 'b'), undefined, 'the refused write left nothing')
  t.equal(setting(storage.db, 'c'), 'after a', 'a later write sees the earlier ones of its group')
})

t.test('a commit that fails refuses every write of its group and keeps none', async t => {
  const { storage } = fileStorage(t)
  const write = groupCommit(storage.db)
  const insert = storage.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  const results = await Promise.allSettled([
    write(() => insert.run('kept?', '1')),
    write(() => {
      // A foreign key checked only at COMMIT: the whole group's commit fails.
      storage.db.pragma('defer_foreign_keys = ON')
      storage.db.prepare('INSERT INTO clients (id, organization_id, secret_salt, secret_hash, scopes, generation, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run('orphan', 'no-such-organization', 's', 'h', '[]', 'g', 'now')
    })
  ])
  t.same(results.map(r => r.status), ['rejected', 'rejected'])
  t.match((results[0] as PromiseRejectedResult).reason, { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })
  t.equal(setting(storage.db, 'kept?'), undefined)
  t.equal(storage.db.inTransaction, false)
  t.equal(await write(() => insert.run('next', '1').changes), 1, 'the next group commits')
})

t.test('closing the storage commits what is queued', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'group-commit-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'sandbox.db')
  const storage = openStorage(path)
  const insert = storage.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  const written = groupCommit(storage.db)(() => insert.run('late', 'yes'))
  await storage.close()
  await written
  const reopened = openStorage(path)
  t.teardown(() => reopened.close())
  t.equal(await reopened.settings.get('late'), 'yes')
})
