// Three replicas on one PostgreSQL database behave as one sandbox: each call goes to another of
// three apps built on the same database, each with its own caches, clock object and group commit.
// (SQLite is one process's database, locked exclusively: replicas need PostgreSQL, so this file
// runs its tests on the PostgreSQL run of the suite, `npm run test:postgres`.)
import t from 'tap'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { backend, basic, build, DEMO_ID, DEMO_ORG, DEMO_SECRET, tokenRequest, waitFor } from '../helpers.js'
import { goodFixture, ORG } from '../sandbox/fixture-data.js'
import { Clock } from '../../src/clock.js'
import { testDatabase } from '../pg.js'
import { clientToken, startServer, type Server } from '../reliability/support.js'
import { transactionSetup, acct, USER_CONTEXT } from '../transactions/support.js'

type Replicas = [FastifyInstance, FastifyInstance, FastifyInstance]

/**
 * Two more apps on the database of `first`: three replicas. Each has its own clock object, frozen
 * at the instant of the first's (the machines of real replicas read one time).
 */
async function replicasOf (t: Parameters<typeof build>[0], first: FastifyInstance): Promise<Replicas> {
  const url = first.config.databaseUrl!
  const another = async (): Promise<FastifyInstance> => {
    const clock = new Clock()
    clock.freeze(true)
    clock.set(first.clock.now())
    return await build(t, { ...first.config, databaseUrl: url }, { clock })
  }
  return [first, await another(), await another()]
}

/** Round robin: the i-th call goes to replica i mod 3. */
function roundRobin (replicas: Replicas): (options: InjectOptions) => Promise<LightMyRequestResponse> {
  let next = 0
  return async options => await replicas[next++ % replicas.length].inject(options)
}

const tokenForm = (form: Record<string, string>, authorization = basic(DEMO_ID, DEMO_SECRET)): InjectOptions => ({
  method: 'POST',
  url: '/core/oauth2/token',
  headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(form).toString()
})

if (backend !== 'postgres') {
  t.comment('replicas share a PostgreSQL database: these tests run with SANDBOX_TEST_BACKEND=postgres (npm run test:postgres)')
} else {
  t.test('a token and a user made on one replica are used on the others', async t => {
    const replicas = await replicasOf(t, await build(t))
    const token = (await replicas[0].inject(tokenForm({ grant_type: 'client_credentials' }))).json().access_token as string
    const made = await replicas[1].inject({
      method: 'POST',
      url: '/core/users',
      headers: { authorization: `Bearer ${token}`, 'x-service-user-ip': '47.174.97.164' },
      payload: { email: 'replica@example.com', termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } }
    })
    t.equal(made.statusCode, 201, made.body)
    const userId = made.json().user.id as string
    const me = await replicas[2].inject({ method: 'GET', url: '/core/users/me', headers: { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${userId}` } })
    t.equal(me.statusCode, 200)
    t.equal(me.json().user.email, 'replica@example.com')
  })

  t.test('a user deleted on one replica, or by a reset, is unknown at once to the others, which had seen it', async t => {
    const replicas = await replicasOf(t, await build(t))
    const token = (await replicas[0].inject(tokenForm({ grant_type: 'client_credentials' }))).json().access_token as string
    const makeUser = async (email: string): Promise<string> => (await replicas[0].inject({
      method: 'POST',
      url: '/core/users',
      headers: { authorization: `Bearer ${token}`, 'x-service-user-ip': '47.174.97.164' },
      payload: { email, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } }
    })).json().user.id as string
    const userOf = async (replica: FastifyInstance, userId: string): Promise<LightMyRequestResponse> =>
      await replica.inject({ method: 'GET', url: '/core/users/me', headers: { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${userId}` } })
    const unknown = await userOf(replicas[1], '0195f1c6-0000-7000-8000-000000000000')
    t.equal(unknown.statusCode, 404)

    const deleted = await makeUser('deleted@example.com')
    const reset = await makeUser('reset@example.com')
    for (const userId of [deleted, reset]) {
      for (const r of replicas) t.equal((await userOf(r, userId)).statusCode, 200, 'seen by every replica')
    }
    const del = await replicas[0].inject({
      method: 'DELETE',
      url: '/core/users/me',
      headers: { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${deleted}` },
      payload: { review: { reason: 'closure-per-user-request', note: 'User requested account closure' } }
    })
    t.equal(del.statusCode, 204, del.body)
    // A write for the user: no read of the user's row would refuse it after the guard.
    const putFor = async (replica: FastifyInstance, userId: string, authorization = `Bearer ${token}`): Promise<LightMyRequestResponse> =>
      await replica.inject({ method: 'PUT', url: '/core/users/me/metadata', headers: { authorization, 'x-on-behalf-of': `user ${userId}` }, payload: { after: 'deletion' } })
    const unknownPut = await putFor(replicas[1], '0195f1c6-0000-7000-8000-000000000000')
    t.equal(unknownPut.statusCode, 404)
    for (const r of replicas.slice(1)) {
      const answer = await userOf(r, deleted)
      t.same([answer.statusCode, answer.json()], [unknown.statusCode, unknown.json()], 'deleted: answered as a user never made')
      const put = await putFor(r, deleted)
      t.same([put.statusCode, put.json()], [unknownPut.statusCode, unknownPut.json()], 'deleted: a write for it is refused as for a user never made')
    }
    t.equal(await replicas[0].storage.db.prepare<[string], number>('SELECT count(*) FROM metadata WHERE entity_id = ?').pluck().get(deleted), 0, 'no metadata of the deleted user was stored')
    t.equal((await userOf(replicas[2], reset)).statusCode, 200, 'the other user is still there')
    t.equal((await replicas[0].inject({ method: 'POST', url: '/_sandbox/reset', payload: { organizationId: DEMO_ORG } })).statusCode, 204)
    const again = (await replicas[0].inject(tokenForm({ grant_type: 'client_credentials' }))).json().access_token as string
    for (const r of replicas.slice(1)) {
      const answer = await r.inject({ method: 'GET', url: '/core/users/me', headers: { authorization: `Bearer ${again}`, 'x-on-behalf-of': `user ${reset}` } })
      t.same([answer.statusCode, answer.json()], [unknown.statusCode, unknown.json()], 'reset: answered as a user never made')
      const put = await putFor(r, reset, `Bearer ${again}`)
      t.same([put.statusCode, put.json()], [unknownPut.statusCode, unknownPut.json()], 'reset: a write for it is refused as for a user never made')
    }
  })

  t.test('24 If-Match PUTs of one ETag across three replicas: exactly one winner', async t => {
    const replicas = await replicasOf(t, await build(t))
    const call = roundRobin(replicas)
    const token = (await call(tokenForm({ grant_type: 'client_credentials' }))).json().access_token as string
    const user = await call({ method: 'POST', url: '/core/users', headers: { authorization: `Bearer ${token}`, 'x-service-user-ip': '47.174.97.164' }, payload: { email: 'etag@example.com', termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } } })
    const headers = { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${user.json().user.id as string}` }
    const first = await call({ method: 'PUT', url: '/core/users/me/metadata', headers, payload: { writer: 'first' } })
    t.equal(first.statusCode, 201)
    const etag = first.headers.etag as string
    const answers = await Promise.all(Array.from({ length: 24 }, async (_, i) =>
      await call({ method: 'PUT', url: '/core/users/me/metadata', headers: { ...headers, 'if-match': etag }, payload: { writer: i } })))
    const winners = answers.filter(a => a.statusCode === 200)
    t.equal(winners.length, 1, 'one 200')
    t.equal(answers.filter(a => a.statusCode === 412 && a.json().code === 'precondition_failed').length, 23, 'the others 412')
    const stored = await replicas[2].inject({ method: 'GET', url: '/core/users/me/metadata', headers })
    t.same(stored.json(), winners[0].json(), 'every replica reads the winner')
  })

  t.test('a rotated secret is refused on every replica within 500 ms, with the tokens it issued', async t => {
    const replicas = await replicasOf(t, await build(t))
    const made = await replicas[0].inject({ method: 'POST', url: '/_sandbox/clients', payload: { organizationId: DEMO_ORG, name: 'rotating', scopes: ['core.users:read'] } })
    t.equal(made.statusCode, 201, made.body)
    const { clientId, clientSecret } = made.json() as { clientId: string, clientSecret: string }
    // Every replica has verified (and cached) the old secret and its token.
    const tokens: string[] = []
    for (const r of replicas) {
      const res = await r.inject(tokenForm({ grant_type: 'client_credentials' }, basic(clientId, clientSecret)))
      t.equal(res.statusCode, 200)
      tokens.push(res.json().access_token)
    }
    const rotated = await replicas[1].inject({ method: 'POST', url: `/_sandbox/clients/${clientId}/rotate-secret` })
    t.equal(rotated.statusCode, 200, rotated.body)
    // Every replica, at once, right after the rotation was acknowledged.
    const started = Date.now()
    const refusals = await Promise.all(replicas.map(async (r, i) => ({
      secret: (await r.inject(tokenForm({ grant_type: 'client_credentials' }, basic(clientId, clientSecret)))).statusCode,
      token: (await r.inject({ method: 'GET', url: '/core/countries', headers: { authorization: `Bearer ${tokens[i]}` } })).statusCode
    })))
    t.ok(Date.now() - started < 500, `refused everywhere within 500 ms (${Date.now() - started} ms)`)
    t.same(refusals, replicas.map(() => ({ secret: 401, token: 401 })), 'every replica refuses the old secret and its tokens')
    for (const [i, r] of replicas.entries()) {
      const fresh = await r.inject(tokenForm({ grant_type: 'client_credentials' }, basic(clientId, rotated.json().clientSecret)))
      t.equal(fresh.statusCode, 200, `replica ${i} takes the new secret`)
    }
  })

  t.test('the clock moved on one replica is read on the others and expires their older tokens', async t => {
    const replicas = await replicasOf(t, await build(t))
    const tokens = await Promise.all(replicas.map(async r => (await r.inject(tokenForm({ grant_type: 'client_credentials' }))).json().access_token as string))
    const before = (await replicas[2].inject({ method: 'GET', url: '/_sandbox/clock' })).json()
    const moved = await replicas[0].inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 601 } })
    t.equal(moved.statusCode, 200)
    for (const [i, r] of replicas.entries()) {
      const clock = (await r.inject({ method: 'GET', url: '/_sandbox/clock' })).json()
      t.equal(Date.parse(clock.now) - Date.parse(before.now), 601_000, `replica ${i} reads the moved clock`)
      for (const token of tokens) {
        const res = await r.inject({ method: 'POST', url: '/core/webhooks/management-link', headers: { authorization: `Bearer ${token}` } })
        t.equal(res.statusCode, 401, `replica ${i} finds a 600 s token expired`)
      }
    }
  })

  t.test('30 trades racing over three replicas: exactly as many as the balance covers, the balance exact', async t => {
    const s = await transactionSetup(t)
    const replicas = await replicasOf(t, s.app)
    await s.fund(s.accounts.GBP, 'GBP', '600')
    const quotes: string[] = []
    for (let i = 0; i < 30; i++) quotes.push(await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '30' } }))
    const call = roundRobin(replicas)
    const headers = { authorization: `Bearer ${s.token}`, 'x-on-behalf-of': `user ${s.userId}`, ...USER_CONTEXT }
    const results = await Promise.all(quotes.map(async quoteId => await call({ method: 'POST', url: '/core/transactions', headers, payload: { quoteId } })))
    t.equal(results.filter(r => r.statusCode === 201).length, 20, '600 / 30 = 20 succeed')
    t.ok(results.filter(r => r.statusCode !== 201).every(r => r.statusCode === 409 && r.json().code === 'insufficient_balance'), 'the rest are insufficient_balance')
    for (const r of replicas) {
      const res = await r.inject({ method: 'GET', url: `/core/accounts/${s.accounts.GBP}`, headers })
      t.same(res.json().account.balance, { total: '600', available: '0' }, 'every replica reads the exact balance')
    }
  })

  t.test('one quote committed 9 times over three replicas succeeds once', async t => {
    const s = await transactionSetup(t)
    const replicas = await replicasOf(t, s.app)
    await s.fund(s.accounts.GBP, 'GBP', '1000')
    const quoteId = await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '30' } })
    const call = roundRobin(replicas)
    const headers = { authorization: `Bearer ${s.token}`, 'x-on-behalf-of': `user ${s.userId}`, ...USER_CONTEXT }
    const results = await Promise.all(Array.from({ length: 9 }, async () => await call({ method: 'POST', url: '/core/transactions', headers, payload: { quoteId } })))
    t.equal(results.filter(r => r.statusCode === 201).length, 1, 'one 201')
    t.same((await s.balance(s.accounts.GBP)), { total: '1000', available: '970' }, 'one hold')
  })

  t.test('a replica whose writes are acknowledged leaves them for the others when it closes at once', async t => {
    const replicas = await replicasOf(t, await build(t))
    const token = (await replicas[0].inject(tokenForm({ grant_type: 'client_credentials' }))).json().access_token as string
    const writes = await Promise.all(Array.from({ length: 20 }, async (_, i) => await replicas[0].inject({
      method: 'POST', url: '/core/users', headers: { authorization: `Bearer ${token}`, 'x-service-user-ip': '47.174.97.164' }, payload: { email: `kept-${i}@example.com`, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } }
    })))
    await replicas[0].close()
    for (const w of writes.filter(w => w.statusCode === 201)) {
      const res = await replicas[1].inject({ method: 'GET', url: '/core/users/me', headers: { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${w.json().user.id as string}` } })
      t.equal(res.statusCode, 200, 'an acknowledged user is there')
    }
    await waitFor(async () => (await replicas[2].inject({ method: 'GET', url: '/_sandbox/health' })).statusCode === 200, { what: 'the others answering' })
  })

  t.test('three replica processes: one killed with SIGKILL mid-burst loses no acknowledged write, and the others answer every call', async t => {
    const url = await testDatabase(t)
    const servers: Server[] = []
    for (let i = 0; i < 3; i++) servers.push(await startServer(':memory:', { DATABASE_URL: url }))
    t.teardown(() => { for (const s of servers) s.child.kill('SIGKILL') })
    const token = await clientToken(servers[0].base, DEMO_ID, DEMO_SECRET)
    const create = async (base: string, i: number): Promise<{ base: string, status: number, id?: string }> => {
      try {
        const res = await fetch(`${base}/core/users`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-service-user-ip': '47.174.97.164' },
          body: JSON.stringify({ email: `burst-${i}@example.com`, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } })
        })
        const body = await res.json() as { user?: { id: string } }
        return { base, status: res.status, id: body.user?.id }
      } catch {
        return { base, status: 0 } // the killed replica's connection was cut: never acknowledged
      }
    }
    const victim = servers[0]
    // Twenty calls in flight at a time, round robin; the victim is killed once it has acknowledged ten.
    const results: Array<Awaited<ReturnType<typeof create>>> = []
    let next = 0
    let killed = false
    await Promise.all(Array.from({ length: 20 }, async () => {
      while (next < 150) {
        const i = next++
        const r = await create(servers[i % 3].base, i)
        results.push(r)
        if (!killed && results.filter(x => x.base === victim.base && x.status === 201).length >= 10) {
          killed = true
          victim.child.kill('SIGKILL')
        }
      }
    }))
    t.ok(killed, 'the victim was killed mid-burst')
    await victim.exited
    const others = results.filter(r => r.base !== victim.base)
    t.ok(others.length === 100 && others.every(r => r.status === 201), 'every call sent to the two others is answered 201')
    const acknowledged = results.filter(r => r.status === 201)
    for (const r of acknowledged) {
      const res = await fetch(`${servers[1 + (acknowledged.indexOf(r) % 2)].base}/core/users/me`, { headers: { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${r.id!}` } })
      if (res.status !== 200) t.fail(`acknowledged user ${r.id!} (from ${r.base}) is missing`)
    }
    t.pass(`${acknowledged.length} acknowledged writes, ${acknowledged.filter(r => r.base === victim.base).length} of them by the killed replica, all there`)
  })

  t.test('three replicas starting together with one SEED_FILE: all start, the seed is loaded once', async t => {
    const dir = mkdtempSync(join(tmpdir(), 'seed-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'seed.json')
    writeFileSync(file, JSON.stringify(goodFixture))
    const url = await testDatabase(t)
    const replicas = await Promise.all([0, 1, 2].map(async () => await build(t, { databaseUrl: url, seedFile: file })))
    for (const r of replicas) {
      t.equal((await r.storage.users.recent(ORG, 1000)).length, 1, 'one seeded user, read on every replica')
      t.equal((await tokenRequest(r, { grant_type: 'client_credentials' }, basic('acme-ci', 'acme-ci-secret'))).statusCode, 200)
    }
  })
}
