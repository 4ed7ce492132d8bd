// Fault rules and the request log are shared by replicas of one PostgreSQL database: each call goes
// to another of three apps built on the same database (as in test/e2e/replicas.test.ts). A rule's
// count is spent once across them; the log read on one holds the calls the others served, masked.
// (SQLite is one process's database: these tests run on the PostgreSQL run of the suite.)
import t from 'tap'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { backend, basic, build, DEMO_ID, DEMO_SECRET, REQUEST_ID, waitFor } from '../helpers.js'
import { Clock } from '../../src/clock.js'

type Replicas = [FastifyInstance, FastifyInstance, FastifyInstance]

/** Two more apps on the database of `first`, each with its own clock object frozen at the first's instant. */
async function replicasOf (t: Parameters<typeof build>[0], first: FastifyInstance): Promise<Replicas> {
  const another = async (): Promise<FastifyInstance> => {
    const clock = new Clock()
    clock.freeze(true)
    clock.set(first.clock.now())
    return await build(t, { ...first.config }, { clock })
  }
  return [first, await another(), await another()]
}

/** Round robin: the i-th call goes to replica i mod 3. */
function roundRobin (replicas: Replicas): (options: InjectOptions) => Promise<LightMyRequestResponse> {
  let next = 0
  return async options => await replicas[next++ % replicas.length].inject(options)
}

const addFault = async (app: FastifyInstance, payload: Record<string, unknown>): Promise<LightMyRequestResponse> =>
  await app.inject({ method: 'POST', url: '/_sandbox/faults', payload })
const faults = async (app: FastifyInstance): Promise<Array<Record<string, unknown>>> =>
  (await app.inject({ method: 'GET', url: '/_sandbox/faults' })).json().faults
const readLog = async (app: FastifyInstance, query = ''): Promise<{ requests: Array<Record<string, any>>, total: number, capacity: number }> =>
  (await app.inject({ method: 'GET', url: `/_sandbox/requests${query}` })).json()

if (backend !== 'postgres') {
  t.comment('replicas share a PostgreSQL database: these tests run with SANDBOX_TEST_BACKEND=postgres (npm run test:postgres)')
} else {
  t.test('a fault rule of count 6 fails exactly 6 of 30 calls spread over three replicas', async t => {
    const replicas = await replicasOf(t, await build(t))
    // Every replica has read (and cached) the empty rule list.
    for (const r of replicas) t.equal((await r.inject({ method: 'GET', url: '/core/spread' })).statusCode, 404)
    const rule = await addFault(replicas[1], { path: '/core/spread', status: 503, count: 6 })
    t.equal(rule.statusCode, 201)
    const call = roundRobin(replicas)
    const answers = await Promise.all(Array.from({ length: 30 }, async () => await call({ method: 'GET', url: '/core/spread' })))
    t.equal(answers.filter(a => a.statusCode === 503).length, 6, 'six 503s')
    t.equal(answers.filter(a => a.statusCode === 404).length, 24, 'the others served')
    for (const [i, r] of replicas.entries()) t.same(await faults(r), [], `the spent rule is gone on replica ${i}`)
  })

  t.test('rules added, used and deleted on one replica are seen by the others at their next request', async t => {
    const replicas = await replicasOf(t, await build(t))
    for (const r of replicas) t.equal((await r.inject({ method: 'GET', url: '/core/shared-rule' })).statusCode, 404)
    const counted = (await addFault(replicas[0], { method: 'GET', path: '/core/counted/*', status: 429, count: 10, retryAfterSeconds: 3 })).json()
    const forever = (await addFault(replicas[0], { path: '/core/shared-rule', status: 500 })).json()
    t.equal((await replicas[2].inject({ method: 'GET', url: '/core/shared-rule' })).statusCode, 500, 'a rule added on one replica applies on another at once')
    for (const r of replicas) {
      const res = await r.inject({ method: 'GET', url: '/core/counted/1' })
      t.equal(res.statusCode, 429)
      t.equal(res.headers['retry-after'], '3')
    }
    // Listing reads every replica's uses, in the order the rules are tried.
    t.match(await faults(replicas[1]), [
      { id: counted.id, count: 10, remaining: 7, applied: 3 },
      { id: forever.id, count: null, remaining: null, applied: 1 }
    ])
    t.equal((await replicas[1].inject({ method: 'DELETE', url: `/_sandbox/faults/${forever.id as string}` })).statusCode, 204)
    t.equal((await replicas[2].inject({ method: 'DELETE', url: `/_sandbox/faults/${forever.id as string}` })).statusCode, 404, 'deleted for every replica')
    t.equal((await replicas[2].inject({ method: 'GET', url: '/core/shared-rule' })).statusCode, 404, 'a rule deleted on one replica no longer applies on another')
    t.equal((await replicas[0].inject({ method: 'GET', url: '/core/shared-rule' })).statusCode, 404)
    t.equal((await replicas[0].inject({ method: 'DELETE', url: '/_sandbox/faults' })).statusCode, 204)
    t.equal((await replicas[1].inject({ method: 'GET', url: '/core/counted/1' })).statusCode, 404, 'deleting every rule on one replica ends them on another')

    await addFault(replicas[2], { path: '/core/*', status: 503 })
    t.equal((await replicas[0].inject({ method: 'GET', url: '/core/x' })).statusCode, 503)
    t.equal((await replicas[1].inject({ method: 'POST', url: '/_sandbox/reset' })).statusCode, 204)
    for (const [i, r] of replicas.entries()) {
      t.equal((await r.inject({ method: 'GET', url: '/core/x' })).statusCode, 404, `a reset on one replica removes the rules on replica ${i}`)
    }
  })

  t.test('the request log read on one replica holds the calls the others served, masked', async t => {
    const replicas = await replicasOf(t, await build(t))
    const card = '4111111111111111'
    const clientSecret = 'a-very-secret-value-on-replica-1'
    // Each call waits until its entry can be read on another replica, so the order is known.
    const served: string[] = []
    const serve = async (replica: number, options: InjectOptions): Promise<LightMyRequestResponse> => {
      const res = await replicas[replica].inject(options)
      const id = res.headers[REQUEST_ID] as string
      served.unshift(id)
      await waitFor(async () => (await readLog(replicas[(replica + 1) % 3])).requests.some(e => e.requestId === id), { what: `call ${id} in the log` })
      return res
    }
    await serve(0, { method: 'GET', url: '/core/nothing?secret=1' })
    const created = await serve(1, { method: 'POST', url: '/_sandbox/clients', payload: { clientId: 'logged-on-1', clientSecret, name: `card ${card}`, scopes: [] } })
    t.equal(created.statusCode, 201)
    const token = await serve(2, {
      method: 'POST',
      url: '/core/oauth2/token',
      headers: { authorization: basic(DEMO_ID, DEMO_SECRET), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials'
    })
    t.equal(token.statusCode, 200)
    const accessToken = token.json().access_token as string
    await serve(1, { method: 'GET', url: '/core/countries', headers: { authorization: `Bearer ${accessToken}`, cookie: 'session=abc' } })

    for (const [i, r] of replicas.entries()) {
      const log = await readLog(r)
      t.same(log.requests.map(e => e.requestId), served, `replica ${i} reads every replica's calls, newest first`)
      t.equal(log.total, 4)
      t.equal(log.capacity, 1000)
    }
    const log = await readLog(replicas[0])
    const [countries, tokenEntry, client, missing] = log.requests
    t.match(missing, { method: 'GET', path: '/core/nothing', status: 404, clientId: null })
    t.same(missing.response.body, { code: 'route_not_found', message: 'The route cannot be found' })
    t.match(client, { method: 'POST', path: '/_sandbox/clients', status: 201 })
    t.equal(client.request.body.clientSecret, '[redacted]')
    t.equal(client.request.body.name, 'card ************1111', 'a card number shows its last four digits')
    t.equal(client.response.body.clientSecret, '[redacted]')
    t.match(tokenEntry, { path: '/core/oauth2/token', status: 200, clientId: DEMO_ID })
    t.equal(tokenEntry.request.headers.authorization, 'Basic [redacted]')
    t.equal(tokenEntry.response.body.access_token, '[redacted]')
    t.match(countries, { path: '/core/countries', clientId: DEMO_ID, request: { headers: { authorization: 'Bearer [redacted]' } } })
    t.notOk('cookie' in countries.request.headers, 'cookies are left out')

    // Filters read the shared log on any replica.
    t.same((await readLog(replicas[1], `?clientId=${DEMO_ID}`)).requests.map(e => e.path), ['/core/countries', '/core/oauth2/token'])
    t.same((await readLog(replicas[2], '?status=4xx')).requests.map(e => e.path), ['/core/nothing'])
    t.same((await readLog(replicas[2], '?status=201&method=post')).requests.map(e => e.path), ['/_sandbox/clients'])
    t.same((await readLog(replicas[0], '?path=/core/*&limit=2')).requests.map(e => e.path), ['/core/countries', '/core/oauth2/token'])
    t.same((await readLog(replicas[0], '?path=/_sandbox/clients')).requests.length, 1)
    t.same((await readLog(replicas[0], '?path=/core/no_hing')).requests, [], 'LIKE wildcards in a pattern are literal')

    // What the table holds is masked already: no secret and no card number reach the database.
    const stored = JSON.stringify(await replicas[0].storage.db.prepare('SELECT * FROM sandbox_request_log').all())
    for (const [what, value] of Object.entries({ card, clientSecret, accessToken, 'demo secret': DEMO_SECRET, basic: basic(DEMO_ID, DEMO_SECRET).slice(6), cookie: 'session=abc' })) {
      t.notOk(stored.includes(value), `the table holds no ${what}`)
    }

    // A reset keeps the log; a clear on one replica empties it for all.
    t.equal((await replicas[2].inject({ method: 'POST', url: '/_sandbox/reset' })).statusCode, 204)
    await waitFor(async () => (await readLog(replicas[1])).total === 5, { what: 'the reset in the log' })
    t.same((await readLog(replicas[1])).requests.map(e => e.path), ['/_sandbox/reset', '/core/countries', '/core/oauth2/token', '/_sandbox/clients', '/core/nothing'], 'a reset keeps the log, and is in it')
    t.equal((await replicas[1].inject({ method: 'DELETE', url: '/_sandbox/requests' })).statusCode, 204)
    for (const r of replicas) t.same(await readLog(r), { requests: [], total: 0, capacity: 1000 })
  })

  t.test('the shared log keeps the newest REQUEST_LOG_SIZE calls of all replicas', async t => {
    const replicas = await replicasOf(t, await build(t, { requestLogSize: 5 }))
    const call = roundRobin(replicas)
    for (let i = 0; i < 12; i++) {
      await call({ method: 'GET', url: `/core/bounded/${i}` })
      // Each replica's entries reach the table in order; waiting keeps the replicas' order too.
      await waitFor(async () => (await readLog(replicas[0], '?limit=1')).requests[0]?.path === `/core/bounded/${i}`, { what: `call ${i} in the log` })
    }
    const log = await readLog(replicas[1], '?limit=100')
    t.equal(log.total, 5)
    t.equal(log.capacity, 5)
    t.same(log.requests.map(e => e.path), [11, 10, 9, 8, 7].map(i => `/core/bounded/${i}`))
    const rows = await replicas[0].storage.db.prepare<[], number>('SELECT count(*) FROM sandbox_request_log').pluck().get()
    t.equal(rows, 5, 'the table holds no more')
  })

  t.test('many calls answered at once on three replicas are all logged', async t => {
    const replicas = await replicasOf(t, await build(t))
    const call = roundRobin(replicas)
    const answers = await Promise.all(Array.from({ length: 90 }, async (_, i) => await call({ method: 'GET', url: `/core/burst/${i}` })))
    const ids = new Set(answers.map(a => a.headers[REQUEST_ID] as string))
    await waitFor(async () => (await readLog(replicas[0], '?limit=1000')).total === 90, { what: 'every call in the log' })
    const logged = (await readLog(replicas[2], '?limit=1000&path=/core/burst/*')).requests.map(e => e.requestId as string)
    t.equal(logged.length, 90)
    t.same(new Set(logged), ids, 'each call once')
  })
}
