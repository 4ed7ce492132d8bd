// DATABASE_POOL_SIZE: how many connections one replica opens to PostgreSQL at most. Connections
// stay open once made (the pool closes none when idle), so after a burst of concurrent reads the
// server's sessions in pg_stat_activity are the most it held at once.
import t, { type Test } from 'tap'
import postgres from 'postgres'
import type { FastifyInstance } from 'fastify'
import { loadConfig } from '../../src/config.js'
import { backend, build } from '../helpers.js'

t.test('DATABASE_POOL_SIZE: 10 by default, from 2 to 100', async t => {
  t.equal(loadConfig({}).databasePoolSize, 10)
  t.equal(loadConfig({ DATABASE_POOL_SIZE: '3' }).databasePoolSize, 3)
  for (const size of ['1', '0', '101', 'many', '2.5']) {
    t.throws(() => loadConfig({ DATABASE_POOL_SIZE: size }), { name: 'ConfigError', message: new RegExp(`^DATABASE_POOL_SIZE must be a whole number from 2 to 100; got "${size.replace('.', '\\.')}"`) }, size)
  }
})

/** The sessions the app's process holds on its database, after 40 concurrent reads of the request log. */
async function sessionsAfterBurst (t: Test, app: FastifyInstance): Promise<number> {
  const answers = await Promise.all(Array.from({ length: 40 }, async () => await app.inject({ method: 'GET', url: '/_sandbox/requests?limit=5' })))
  t.same([...new Set(answers.map(a => a.statusCode))], [200], 'every read answered')
  const url = new URL(app.config.databaseUrl!)
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {} })
  t.teardown(async () => { await sql.end() })
  // Not this connection: it names no application.
  const [{ n }] = await sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${url.pathname.slice(1)} AND application_name = 'sandbox'`
  return n
}

if (backend !== 'postgres') {
  t.comment('the pool is PostgreSQL\'s: these tests run with SANDBOX_TEST_BACKEND=postgres (npm run test:postgres)')
} else {
  t.test('a replica holds at most DATABASE_POOL_SIZE connections, plus the one that hears the other replicas', async t => {
    const small = await sessionsAfterBurst(t, await build(t, { databasePoolSize: 2 }))
    t.ok(small >= 2 && small <= 3, `2 to 3 sessions with a pool of 2 (got ${small})`)
    const usual = await sessionsAfterBurst(t, await build(t))
    t.ok(usual > 3 && usual <= 11, `more with the default pool of 10, and at most 11 (got ${usual})`)
  })
}
