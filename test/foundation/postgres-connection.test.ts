// postgres.js's connection as the bundle ships it (scripts/postgres-connection.js): PostgreSQL
// ending a connection in the middle of a transaction fails that transaction (and the statements
// sent on it) instead of crashing the process from a later turn of the event loop, and the pool
// serves again on a new connection, as many times as it has connections and more. The build refuses
// a source the fix does not fit. The suite runs the fixed library (scripts/postgres-fixes.js, checked
// by ./postgres-fixes.test.ts); the check against a server runs on the PostgreSQL run of the suite.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import postgres from 'postgres'
import { patchPostgresConnection, POSTGRES_CONNECTION, POSTGRES_CONNECTION_FIXED } from '../../scripts/postgres-connection.js'
import { backend } from '../helpers.js'
import { testDatabase } from '../pg.js'

const require = createRequire(import.meta.url)
// The package's CommonJS entry is cjs/src/index.js; the ES module build the bundle takes is src/.
const sourceDir = join(dirname(require.resolve('postgres')), '..', '..', 'src')
const source = readFileSync(join(sourceDir, 'connection.js'), 'utf8')

t.test('the bundle finds the module: both of the package\'s builds match, nothing else does', async t => {
  t.match(join(sourceDir, 'connection.js'), POSTGRES_CONNECTION)
  t.match(join('x', 'node_modules', 'postgres', 'cjs', 'src', 'connection.js'), POSTGRES_CONNECTION)
  t.notMatch(join('x', 'node_modules', 'postgres', 'src', 'query.js'), POSTGRES_CONNECTION)
  t.notMatch(join('x', 'node_modules', 'other', 'src', 'connection.js'), POSTGRES_CONNECTION)
})

t.test('a source the fix was not written for is refused', async t => {
  t.throws(() => patchPostgresConnection(source.replace('const x = socket.write(chunk, fn)', 'const x = socket.write(chunk)')), /not the source scripts\/postgres-connection.js was written for/)
  const patched = patchPostgresConnection(source)
  t.ok(patched.includes(POSTGRES_CONNECTION_FIXED), 'the installed source is patched')
  t.equal(patchPostgresConnection(source.replace(/\n/g, '\r\n')), patched, 'whatever its line endings')
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
}
