// The group commit (src/storage/db.ts), on the suite's backend: writes queued in one turn of the
// event loop share a transaction (and its fsync, or its round of the write lock), one group runs at
// a time, each write is atomic on its own, none is acknowledged before its commit, a read from
// outside never sees what may still be rolled back, and a write inside a write joins it.
import t from 'tap'
import Database from 'better-sqlite3'
import { groupCommit, isConstraint, type Db } from '../../src/storage/db.js'
import type { Storage } from '../../src/storage/index.js'
import { Clock } from '../../src/clock.js'
import { backend, fileDatabasePath, openTestStorage, writeLockHeldElsewhere } from '../helpers.js'

interface Teardown { teardown: (fn: () => unknown) => void }

async function open (t: Teardown, path?: string): Promise<Storage> {
  const storage = await openTestStorage(t, path)
  t.teardown(() => storage.close())
  return storage
}

/** The setting `key`, as the caller's connection sees it (inside a write: the write's own). */
const setting = async (db: Db, key: string): Promise<string | undefined> =>
  await db.prepare<[string], string>('SELECT value FROM settings WHERE key = ?').pluck().get(key)

const sleep = async (ms: number): Promise<void> => { await new Promise(resolve => setTimeout(resolve, ms)) }

/** A promise, and what settles it. */
function signal (): { promise: Promise<void>, done: () => void } {
  let done!: () => void
  const promise = new Promise<void>(resolve => { done = resolve })
  return { promise, done }
}

/** Counts the commits of `db` (the hooks run once per group that committed). */
function commits (db: Db): () => number {
  let count = 0
  db.afterCommit(() => { count++ })
  return () => count
}

t.test('a write is acknowledged only once its group is committed', async t => {
  const path = fileDatabasePath(t)
  const { db } = await open(t, path)
  let committed = false
  db.afterCommit(() => { committed = true })
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  // On PostgreSQL the read below goes to the database: the write must not commit before it does.
  const release = await writeLockHeldElsewhere(t, path)
  const written = groupCommit(db)(async () => (await insert.run('a', '1')).changes)
  const before = setting(db, 'a')
  await before
  release()
  let committedWhenAcknowledged: boolean | undefined
  const result = await written.then(value => { committedWhenAcknowledged = committed; return value })
  t.equal(await before, undefined, 'queued, not yet written')
  t.equal(result, 1, 'the promise gives the write\'s result')
  t.equal(committedWhenAcknowledged, true, 'committed when acknowledged')
  t.equal(await setting(db, 'a'), '1')
})

t.test('writes of one turn share a commit; a write queued while a group runs waits for the next', async t => {
  const { db } = await open(t)
  const write = groupCommit(db)
  const count = commits(db)
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  await Promise.all(['a', 'b', 'c'].map(async key => await write(async () => await insert.run(key, '1'))))
  t.equal(count(), 1, 'three writes of one turn, one commit')

  await write(async () => await insert.run('d', '1'))
  await write(async () => await insert.run('e', '1'))
  t.equal(count(), 3, 'writes of later turns, a commit each')

  const order: string[] = []
  // Queued once the slow group is running (a fixed sleep here raced the group's start on a loaded machine).
  const running = signal()
  const slow = write(async () => {
    await insert.run('slow', '1')
    running.done()
    await sleep(30)
    order.push('slow')
  })
  await running.promise
  const queued = Promise.all(['f', 'g'].map(async key => await write(async () => { await insert.run(key, '1'); order.push(key) })))
  await Promise.all([slow, queued])
  t.strictSame(order, ['slow', 'f', 'g'], 'the group running ends before the next starts')
  t.equal(count(), 5, 'the two queued meanwhile share the next commit')
})

t.test('each write of a group runs in its caller\'s context (its organization\'s clock), not the group\'s first', async t => {
  const { db } = await open(t)
  const write = groupCommit(db)
  const count = commits(db)
  const clock = new Clock(() => Date.parse('2026-01-01T00:00:00.000Z'))
  clock.adoptOrganizations(new Map([['org-a', { offsetMs: 0, frozenAt: Date.parse('2030-01-01T00:00:00.000Z') }]]))
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  const stamped = (key: string) => async (): Promise<string> => {
    await insert.run(key, clock.iso())
    return clock.iso()
  }
  const seen = await Promise.all([
    clock.within('org-a', async () => await write(stamped('a'))),
    write(stamped('global')),
    clock.within('org-a', async () => await write(stamped('a2')))
  ])
  t.equal(count(), 1, 'one group')
  t.same(seen, ['2030-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z'], 'each on its caller\'s clock, after its statement too')
  t.equal(await setting(db, 'global'), '2026-01-01T00:00:00.000Z', 'stored with its caller\'s time')
  t.equal(await setting(db, 'a2'), '2030-01-01T00:00:00.000Z')
  t.equal(clock.organization, undefined, 'no context left behind')
})

t.test('a write that throws is undone and refused alone; the others of its group commit', async t => {
  const { db } = await open(t)
  const write = groupCommit(db)
  const count = commits(db)
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  const seen: boolean[] = []
  const results = await Promise.allSettled([
    write(async () => { seen.push(db.inTransaction); await insert.run('a', '1') }),
    write(async () => { await insert.run('b', '2'); throw new Error('refused') }),
    write(async () => { seen.push(db.inTransaction); await insert.run('c', await setting(db, 'a') === '1' ? 'after a' : 'alone') })
  ])
  t.same(results.map(r => r.status), ['fulfilled', 'rejected', 'fulfilled'])
  t.match((results[1] as PromiseRejectedResult).reason, { message: 'refused' })
  // The throw made the group run again, each write in its own savepoint.
  t.ok(seen.length >= 2 && seen.every(Boolean), 'each runs inside the group transaction')
  t.equal(count(), 1, 'still one commit')
  t.equal(await setting(db, 'a'), '1')
  t.equal(await setting(db, 'b'), undefined, 'the refused write left nothing')
  t.equal(await setting(db, 'c'), 'after a', 'a later write sees the earlier ones of its group')
})

t.test('a read from outside never sees what the write in progress may still roll back', async t => {
  const { db } = await open(t)
  const write = groupCommit(db)
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  let committed = false
  db.afterCommit(() => { committed = true })

  // Written, then refused: the read made meanwhile must not see it.
  let inserted = signal()
  const refused = write(async () => {
    await insert.run('x', '1')
    inserted.done()
    await sleep(30)
    throw new Error('refused')
  })
  // Awaited below; attached now, so a slow read (a loaded machine) cannot leave the refusal unhandled.
  const refusal = t.rejects(refused, /refused/)
  await inserted.promise
  t.equal(await setting(db, 'x'), undefined, 'a row that was rolled back was never seen')
  await refusal
  t.equal(await setting(db, 'x'), undefined)

  // Written, then committed: the read made meanwhile sees it only if the commit came first
  // (SQLite's reads wait for the group to end; PostgreSQL's see what was committed when they ran).
  inserted = signal()
  committed = false
  const kept = write(async () => {
    await insert.run('y', '1')
    inserted.done()
    await sleep(30)
  })
  await inserted.promise
  const meanwhile = await setting(db, 'y')
  t.ok(meanwhile === undefined || committed, `seen (${String(meanwhile)}) only once committed`)
  await kept
  t.equal(await setting(db, 'y'), '1')
})

t.test('a write inside a write joins it: it runs at once, and commits or rolls back with it', async t => {
  const { db } = await open(t)
  const write = groupCommit(db)
  const count = commits(db)
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')

  const inner: boolean[] = []
  await write(async () => {
    await insert.run('outer', '1')
    const sees = await write(async () => { inner.push(db.inTransaction); await insert.run('inner', '1'); return await setting(db, 'outer') })
    t.equal(sees, '1', 'the inner write sees the outer one\'s changes')
  })
  t.strictSame(inner, [true], 'it ran inside the outer write')
  t.equal(count(), 1, 'one commit for both')
  t.equal(await setting(db, 'inner'), '1')

  await t.rejects(write(async () => {
    await write(async () => await insert.run('inner-2', '1'))
    throw new Error('refused')
  }), /refused/)
  t.equal(await setting(db, 'inner-2'), undefined, 'the outer write refused, the inner one is undone with it')
})

t.test('a commit that fails refuses every write of its group and keeps none', async t => {
  const { db } = await open(t)
  // A foreign key checked only at COMMIT: the whole group's commit fails.
  await db.exec('CREATE TABLE deferred_child (id TEXT PRIMARY KEY, organization_id TEXT REFERENCES organizations (id) DEFERRABLE INITIALLY DEFERRED)')
  const write = groupCommit(db)
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  const orphan = db.prepare('INSERT INTO deferred_child (id, organization_id) VALUES (?, ?)')
  const results = await Promise.allSettled([
    write(async () => await insert.run('kept?', '1')),
    write(async () => await orphan.run('orphan', 'no-such-organization'))
  ])
  t.same(results.map(r => r.status), ['rejected', 'rejected'])
  t.ok(isConstraint((results[0] as PromiseRejectedResult).reason), 'refused for the foreign key')
  t.equal(await setting(db, 'kept?'), undefined)
  t.equal(db.inTransaction, false)
  t.equal(await write(async () => (await insert.run('next', '1')).changes), 1, 'the next group commits')
})

t.test('statements sent unanswered: later statements and writes of the group see them; one that fails is its write\'s alone', async t => {
  const { db } = await open(t)
  const write = groupCommit(db)
  const count = commits(db)
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  await insert.run('taken', 'before')
  const results = await Promise.allSettled([
    write(async () => {
      await insert.runUnanswered('first', '1')
      await insert.runUnanswered('second', '2')
      // The write's own read follows its unanswered inserts on the same connection.
      return await setting(db, 'second')
    }),
    // Refused as `run` would refuse it, though its own code went on as if it had been written.
    write(async () => {
      await insert.runUnanswered('taken', 'again')
      await insert.runUnanswered('mine', 'x')
      return 'went on'
    }),
    write(async () => await setting(db, 'first'))
  ])
  t.same(results.map(r => r.status), ['fulfilled', 'rejected', 'fulfilled'])
  t.equal((results[0] as PromiseFulfilledResult<unknown>).value, '2', 'a write reads its own unanswered insert')
  t.ok(isConstraint((results[1] as PromiseRejectedResult).reason), 'the failing insert refuses its write, with the constraint error')
  t.equal((results[2] as PromiseFulfilledResult<unknown>).value, '1', 'a later write of the group reads an earlier write\'s unanswered insert')
  t.equal(await setting(db, 'taken'), 'before', 'the refused write changed nothing')
  t.equal(await setting(db, 'mine'), undefined, 'not even its other statement')
  t.equal(await setting(db, 'first'), '1', 'the others committed')
  t.equal(await setting(db, 'second'), '2')
  t.ok(count() >= 1, 'committed')
  // Outside a write it is `run`: done when it settles.
  await insert.runUnanswered('outside', 'o')
  t.equal(await setting(db, 'outside'), 'o', 'outside a write, written when it settles')
})

t.test('closing the storage commits what is queued', async t => {
  const path = fileDatabasePath(t)
  const storage = await openTestStorage(t, path)
  const insert = storage.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  const written = groupCommit(storage.db)(async () => await insert.run('late', 'yes'))
  await storage.close()
  await written
  const reopened = await open(t, path)
  t.equal(await reopened.settings.get('late'), 'yes')
})

// SQLite's exclusive locking mode: one process owns the file. PostgreSQL is a server that replicas
// share by design, so the check has no meaning there.
if (backend === 'sqlite') {
  t.test('the SQLite file is the process\'s own: another connection cannot read it while it is open', async t => {
    const path = fileDatabasePath(t)
    await open(t, path)
    const other = new Database(path, { timeout: 0 })
    t.teardown(() => other.close())
    t.throws(() => other.prepare('SELECT COUNT(*) FROM settings').get(), { code: 'SQLITE_BUSY' })
  })
}
