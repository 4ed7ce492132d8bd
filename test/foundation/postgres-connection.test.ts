// postgres.js's connection as the bundle ships it (scripts/postgres-connection.js): PostgreSQL
// ending a connection in the middle of a transaction fails that transaction (and the statements
// sent on it) instead of crashing the process from a later turn of the event loop, and the pool
// serves again on a new connection, as many times as it has connections and more. A socket that
// closes while a statement waits for its turn to be written leaves a connection that writes again
// on its next socket. A statement given to a connection between its socket's error and its close
// fails at the close instead of taking the next socket's answers. PostgreSQL away, the sandbox's
// attempts to connect wait at most a second each (src/storage/db.ts). The sandbox's own binding of
// arrays (src/storage/db.ts) reaches the server unchanged, whatever the text holds. The build
// refuses a source the fix does not fit (./postgres-fixes.test.ts). The suite runs the fixed library
// (scripts/postgres-fixes.js, checked by ./postgres-fixes.test.ts); the checks against a server run
// on the PostgreSQL run of the suite.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import postgres from 'postgres'
import { openPostgres, reconnectDelaySeconds } from '../../src/storage/db.js'
import { backend, closedPort } from '../helpers.js'
import { testDatabase } from '../pg.js'

/** A pool of one connection to `database`, and each socket it opened, in order, to act on. */
function oneConnection (database: string): { sql: postgres.Sql, sockets: Socket[] } {
  const url = new URL(database)
  const sockets: Socket[] = []
  // The library's `socket` option (its README's "Custom socket"), which its types leave out.
  const options = {
    max: 1,
    onnotice: () => {},
    socket: () => {
      const socket = connect(Number(url.port), url.hostname)
      sockets.push(socket)
      return socket
    }
  }
  return { sql: postgres(url.href, options as postgres.Options<Record<string, never>>), sockets }
}

t.test('PostgreSQL away: each of the sandbox\'s attempts fails within about a second, however many failed before it', async t => {
  // postgres.js waits longer before each new connection after every one that closed on an error:
  // 3^failures / 100 s, up to 20 s, so that a PostgreSQL ending the pool's connections left the
  // sandbox's requests waiting that long after it was back. The sandbox caps the wait at 1 s
  // (reconnectDelaySeconds). Ten refused connections in a row: with postgres.js's own wait, the
  // attempts from the eighth on waited 10 to 20 s each.
  const db = await openPostgres({ url: `postgres://sandbox@127.0.0.1:${await closedPort()}/sandbox`, max: 1, connectTimeoutSeconds: 2 })
  t.teardown(async () => { await db.close() })
  const took: number[] = []
  for (let attempt = 0; attempt < 10; attempt++) {
    const started = performance.now()
    t.equal(await db.ping(), false, `attempt ${attempt + 1}: the database is away`)
    took.push(Math.round(performance.now() - started))
  }
  t.ok(Math.max(...took) < 1_500, `each attempt answered within 1.5 s (${took.join(', ')} ms)`)
  t.ok(took.slice(7).every(ms => ms >= 400), `a failing PostgreSQL is not retried at once: the later attempts waited (${took.slice(7).join(', ')} ms)`)
  for (const failures of [0, 1, 5, 10, 100]) {
    const delay = reconnectDelaySeconds(failures)
    t.ok(delay > 0 && delay <= 1, `after ${failures} failures: ${delay.toFixed(3)} s`)
  }
})

if (backend !== 'postgres') {
  t.comment('a connection ended by PostgreSQL: run with SANDBOX_TEST_BACKEND=postgres (npm run test:postgres)')
} else {
  t.test('PostgreSQL ends the connection of a transaction: the transaction fails, the process lives, the pool serves again', async t => {
    const url = await testDatabase(t)
    const sql = postgres(url, { max: 2, onnotice: () => {} })
    const admin = postgres(url, { max: 1, onnotice: () => {} })
    const uncaught: unknown[] = []
    const onUncaught = (error: unknown): void => { uncaught.push(error) }
    process.on('uncaughtException', onUncaught)
    try {
      // More rounds than the pool has connections: none is lost to a failed transaction.
      for (let round = 0; round < 5; round++) {
        const ended = sql.begin(async tx => {
          const [{ pid }] = await tx<Array<{ pid: number }>>`SELECT pg_backend_pid() AS pid`
          await admin`SELECT pg_terminate_backend(${pid})`
          // The connection is gone before the transaction's next statement: as when PostgreSQL
          // restarts while a group commit runs its writes' code between two statements.
          await new Promise(resolve => setTimeout(resolve, 100))
          await tx`SELECT 2`
        })
        await t.rejects(ended, { code: 'CONNECTION_CLOSED' }, `round ${round}: the transaction fails as a lost connection`)
        // The library's failing ROLLBACK wrote in the turns after the failure.
        await new Promise(resolve => setTimeout(resolve, 50))
        t.same(uncaught, [], `round ${round}: nothing thrown outside the transaction`)
        // A statement may still meet the ended connection (57P01) before the pool has dropped it.
        let served: unknown
        for (let attempt = 0; attempt < 20 && served === undefined; attempt++) served = await sql`SELECT 1 AS one`.catch(() => undefined)
        t.same(served, [{ one: 1 }], `round ${round}: the pool serves again`)
      }
    } finally {
      process.off('uncaughtException', onUncaught)
      // Before the database's teardown drops it: its DROP waits for these connections.
      await Promise.all([sql.end({ timeout: 1 }), admin.end({ timeout: 1 })])
    }
  })

  t.test('the socket closes while a statement waits for its turn to be written: the statement fails, and the connection writes again on its next socket', async t => {
    // A statement shorter than 1 KiB is written in the next turn of the event loop. A close in
    // between (PostgreSQL ending the connection: its close arrives before that turn) left the
    // connection unable to write on any later socket: its start-up, and every statement the pool
    // gave it, waited for ever. The close is the socket's own event, emitted here at that moment.
    const { sql, sockets } = oneConnection(await testDatabase(t))
    try {
      t.same(await sql`SELECT 1 AS one`, [{ one: 1 }], 'connected')
      const lost = sql`SELECT 2 AS two`.execute().then(() => 'answered', (error: { code?: string }) => error.code)
      // The statement reaches the connection a few microtasks later, and waits for its write.
      for (let i = 0; i < 20; i++) await Promise.resolve()
      sockets[0].emit('close', false)
      sockets[0].destroy()
      t.equal(await lost, 'CONNECTION_CLOSED', 'the statement in its socket\'s last moment fails as a lost connection')
      const again = await Promise.race([sql`SELECT 3 AS three`, new Promise(resolve => setTimeout(resolve, 5_000, 'no answer within 5 s'))])
      t.same(again, [{ three: 3 }], 'the next statement is answered, on a new socket')
      t.equal(sockets.length, 2, 'one new socket')
    } finally {
      await sql.end({ timeout: 1 })
    }
  })

  t.test('a statement given to a connection between its socket\'s error and its close fails at the close, and the next socket answers each statement with its own rows', async t => {
    // A socket that fails (ECONNRESET) fails the statements sent on it; it closes in a later turn.
    // A statement the connection got in between (a failed transaction's ROLLBACK is given at once)
    // stayed queued into the next socket, where it took the answer of the statement after it: the
    // last statement waited for ever, and when that was a transaction's advisory lock, every write
    // waited behind the lock it held.
    const { sql, sockets } = oneConnection(await testDatabase(t))
    const settled = async (query: Promise<unknown>): Promise<unknown> => await Promise.race([
      query.then(rows => rows, (error: { code?: string }) => error.code),
      new Promise(resolve => setTimeout(resolve, 5_000, 'not settled within 5 s'))
    ])
    try {
      t.same(await sql`SELECT 1 AS one`, [{ one: 1 }], 'connected')
      const inFlight = sql`SELECT pg_sleep(0.2)`.execute()
      for (let i = 0; i < 20; i++) await Promise.resolve()
      sockets[0].emit('error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))
      // Given to the connection after the error, before the close.
      const between = sql`SELECT 2 AS two`.execute()
      for (let i = 0; i < 20; i++) await Promise.resolve()
      sockets[0].emit('close', true)
      sockets[0].destroy()
      t.equal(await settled(inFlight), 'ECONNRESET', 'the statement in flight fails with the socket\'s error')
      t.equal(await settled(between), 'CONNECTION_CLOSED', 'the statement given in between fails as a lost connection')
      t.same(await settled(sql`SELECT 3 AS three`), [{ three: 3 }], 'the next statement gets its own answer, on a new socket')
      t.same(await settled(sql`SELECT 4 AS four`), [{ four: 4 }], 'and so does the one after it')
      t.equal(sockets.length, 2, 'one new socket')
    } finally {
      await sql.end({ timeout: 1 })
    }
  })

  t.test('arrays bound by the sandbox reach PostgreSQL element for element, whatever their text', async t => {
    const db = await openPostgres({ url: await testDatabase(t), max: 1 })
    t.teardown(() => db.close())
    const values = ['plain', '', 'NULL', 'a,b', '{braces}', 'say "hi"', 'back\\slash\\', '\\"', ' spaced ', 'naïve €', 'nul\u0000byte', 'line\nbreak']
    const read = db.prepare<[unknown[]], string>('SELECT v FROM unnest(?::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n').pluck()
    t.same(await read.all(values), values.map(v => v.replaceAll('\u0000', '\uFFFD')), 'each text as it was (NUL as U+FFFD, as in any text bound)')
    t.same(await read.all([]), [], 'an empty array')
    const sum = db.prepare<[unknown[]], number>('SELECT sum(v)::bigint FROM unnest(?::bigint[]) AS u(v)').pluck()
    t.equal(await sum.get([1, 20, 300, 9_007_199_254_740]), 9_007_199_255_061, 'numbers, as bigint')
    const anyOf = db.prepare<{ ids: unknown[] | null }, number>('SELECT count(*)::int FROM unnest(ARRAY[\'x\', \'y"\', \'z\']) AS u(v) WHERE CAST(@ids AS TEXT[]) IS NULL OR v = ANY(CAST(@ids AS TEXT[]))').pluck()
    t.equal(await anyOf.get({ ids: ['y"', 'z'] }), 2, 'ANY of an array')
    t.equal(await anyOf.get({ ids: null }), 3, 'no array: NULL')
  })
}
