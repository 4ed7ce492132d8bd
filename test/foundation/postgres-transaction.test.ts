// postgres.js's transactions as the bundle ships them (scripts/postgres-transaction.js): once
// PostgreSQL has ended a transaction's connection, the statements its callback still sends fail as
// a lost connection instead of running on the session the pool opened again, outside any
// transaction. The build refuses a source the fix does not fit (./postgres-fixes.test.ts). The
// suite runs the fixed library (scripts/postgres-fixes.js, checked by ./postgres-fixes.test.ts); the
// check against a server runs on the PostgreSQL run of the suite.
import t from 'tap'
import postgres from 'postgres'
import { backend } from '../helpers.js'
import { testDatabase } from '../pg.js'

if (backend !== 'postgres') {
  t.comment('a transaction whose connection PostgreSQL ended: run with SANDBOX_TEST_BACKEND=postgres (npm run test:postgres)')
} else {
  t.test('PostgreSQL ends a transaction\'s connection between two statements: the transaction fails, and what its callback sends after runs nowhere', async t => {
    const url = await testDatabase(t)
    const sql = postgres(url, { max: 1, onnotice: () => {} })
    const admin = postgres(url, { max: 1, onnotice: () => {} })
    t.teardown(async () => { await Promise.all([sql.end({ timeout: 1 }), admin.end({ timeout: 1 })]) })
    await admin`CREATE TABLE written (n int)`
    const after: { other?: unknown, insert?: unknown } = {}
    let callbackDone: () => void = () => {}
    const callback = new Promise<void>(resolve => { callbackDone = resolve })
    const transaction = sql.begin(async tx => {
      try {
        await tx`INSERT INTO written VALUES (1)`
        const [{ pid }] = await tx<Array<{ pid: number }>>`SELECT pg_backend_pid() AS pid`
        await admin`SELECT pg_terminate_backend(${pid})`
        // The callback awaits something else while the connection closes, and the pool opens the
        // connection again for other work (the only one: max 1).
        await new Promise(resolve => setTimeout(resolve, 200))
        after.other = await sql`SELECT 5 AS five`.then(rows => [...rows], (error: { code?: string }) => error.code)
        after.insert = await tx`INSERT INTO written VALUES (2)`.then(() => 'inserted', (error: { code?: string }) => error.code)
      } finally {
        callbackDone()
      }
    }).then(() => 'committed', (error: { code?: string }) => error.code)
    t.equal(await transaction, 'CONNECTION_CLOSED', 'the transaction fails as a lost connection')
    await callback
    t.same(after.other, [{ five: 5 }], 'the pool serves other work on the connection, opened again')
    t.equal(after.insert, 'CONNECTION_CLOSED', 'the callback\'s next statement fails as a lost connection')
    // The rollback the failed callback sends would have ended nothing either; a beat for it.
    await new Promise(resolve => setTimeout(resolve, 50))
    t.same(await admin`SELECT n FROM written ORDER BY n`, [], 'nothing of the transaction is written: not its first insert, not the one after the loss')
    t.same(await sql`SELECT 6 AS six`, [{ six: 6 }], 'the pool serves on')
  })
}
