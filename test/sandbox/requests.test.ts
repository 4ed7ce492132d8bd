import t from 'tap'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { basic, bearer, build, DEMO_ID, DEMO_SECRET, REQUEST_ID, tokenRequest } from '../helpers.js'

const readLog = async (app: FastifyInstance, query = '') => (await app.inject({ method: 'GET', url: `/_sandbox/requests${query}` })).json()

t.test('each request is logged newest first with method, path, status, duration, request id, client and sandbox time', async t => {
  const app = await build(t)
  const missing = await app.inject({ method: 'GET', url: '/core/nothing?secret=1' })
  const token = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))
  t.equal(token.statusCode, 200)
  const log = await readLog(app)
  t.equal(log.total, 2)
  t.equal(log.capacity, 1000)
  const [first, second] = log.requests
  t.match(first, { method: 'POST', path: '/core/oauth2/token', status: 200, clientId: DEMO_ID, requestId: token.headers[REQUEST_ID], timestamp: app.clock.iso() })
  t.type(first.durationMs, 'number')
  t.match(second, { method: 'GET', path: '/core/nothing', status: 404, clientId: null, requestId: missing.headers[REQUEST_ID] })
  t.same(second.response.body, { code: 'route_not_found', message: 'The route cannot be found' })
})

t.test('an answered request is in the log at once, with the sandbox time it was answered at; a clear drops it', async t => {
  const app = await build(t)
  app.clock.freeze(true)
  const answeredAt = app.clock.iso()
  // Entries are written at the end of the event loop's turn: what is read before then is written first.
  const missing = await app.inject({ method: 'GET', url: '/core/nothing' })
  app.clock.advance(60)
  t.equal(await app.requestLog.size(), 1)
  const [entry] = (await readLog(app)).requests
  t.match(entry, { requestId: missing.headers[REQUEST_ID], status: 404, timestamp: answeredAt })

  const dropped = await app.inject({ method: 'GET', url: '/core/nothing/else' })
  t.equal(dropped.statusCode, 404)
  await app.requestLog.clear()
  await new Promise(resolve => setImmediate(resolve))
  t.equal(await app.requestLog.size(), 0, 'an entry not yet written when the log was cleared is not written after')
})

t.test('credentials never reach the log: headers, form and JSON bodies, answers', async t => {
  const app = await build(t, {}, {
    plugins: [async p => { p.get('/probe/protected', { config: { auth: { scopes: [], subjects: ['client'] } } }, async () => ({ ok: true })) }]
  })
  const token = await tokenRequest(app, { grant_type: 'client_credentials', client_id: DEMO_ID, client_secret: DEMO_SECRET })
  const { access_token: accessToken, refresh_token: refreshToken } = token.json()
  t.ok(refreshToken, 'the demo client gets refresh tokens')
  const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken }, basic(DEMO_ID, DEMO_SECRET))
  t.equal(refreshed.statusCode, 200)
  const guarded = await app.inject({ method: 'GET', url: '/probe/protected', headers: { ...bearer(accessToken), cookie: 'session=abc' } })
  t.equal(guarded.statusCode, 200)
  const created = await app.inject({ method: 'POST', url: '/_sandbox/clients', payload: { clientId: 'logged', clientSecret: 'a-very-secret-value', scopes: [] } })
  t.equal(created.statusCode, 201)

  const log = await readLog(app)
  const text = JSON.stringify(log)
  for (const secret of [DEMO_SECRET, accessToken, refreshToken, refreshed.json().access_token, refreshed.json().refresh_token, 'a-very-secret-value', Buffer.from(`${DEMO_ID}:${DEMO_SECRET}`).toString('base64'), 'session=abc']) {
    t.notOk(text.includes(secret), 'a secret is masked')
  }
  const [client, bearerCall, refresh, form] = log.requests
  t.equal(client.request.body.clientSecret, '[redacted]')
  t.equal(client.request.body.clientId, 'logged')
  t.equal(client.response.body.clientSecret, '[redacted]')
  t.equal(bearerCall.request.headers.authorization, 'Bearer [redacted]')
  t.notOk('cookie' in bearerCall.request.headers)
  t.equal(bearerCall.clientId, DEMO_ID, 'the client of the Bearer token')
  t.equal(refresh.request.headers.authorization, 'Basic [redacted]')
  t.equal(refresh.request.body.refresh_token, '[redacted]')
  t.equal(refresh.clientId, DEMO_ID, 'the client named by Basic credentials')
  t.equal(refresh.response.body.access_token, '[redacted]')
  t.equal(refresh.response.body.refresh_token, '[redacted]')
  t.equal(refresh.response.body.token_type, 'Bearer')
  t.same(form.request.body, { grant_type: 'client_credentials', client_id: DEMO_ID, client_secret: '[redacted]' })
  t.equal(form.clientId, DEMO_ID, 'the client named in the form')
})

t.test('a request refused for an expired token still names its client', async t => {
  const app = await build(t, {}, {
    plugins: [async p => { p.get('/probe/protected', { config: { auth: { scopes: [], subjects: ['client'] } } }, async () => ({ ok: true })) }]
  })
  const token = (await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))).json().access_token
  app.clock.advance(601)
  t.equal((await app.inject({ method: 'GET', url: '/probe/protected', headers: bearer(token) })).json().code, 'token_expired')
  const forged = token.split('.').slice(0, 2).join('.') + '.forged-signature'
  t.equal((await app.inject({ method: 'GET', url: '/probe/protected', headers: bearer(forged) })).json().code, 'token_invalid')
  const [invalid, expired] = (await readLog(app, '?path=/probe/*')).requests
  t.equal(expired.clientId, DEMO_ID)
  t.equal(invalid.clientId, null, 'a token whose signature fails names no one')
  t.same((await readLog(app, `?clientId=${DEMO_ID}&status=401`)).requests.map((e: { requestId: string }) => e.requestId), [expired.requestId])
})

t.test('the token endpoint\'s entries name the client its credentials name, however far the request got', async t => {
  const app = await build(t)
  const named = 'a client+with spaces'
  const cases = [
    // Answered, and refused at the secret: the route read Basic.
    { status: 200, res: await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET)), clientId: DEMO_ID },
    { status: 401, res: await tokenRequest(app, { grant_type: 'client_credentials' }, basic(named, 'wrong')), clientId: named },
    // Refused before Basic is read (the grant type), and with a header Basic cannot read.
    { status: 400, res: await tokenRequest(app, { grant_type: 'password' }, basic(named, 'wrong')), clientId: named },
    { status: 401, res: await tokenRequest(app, { grant_type: 'client_credentials' }, 'Basic !!'), clientId: null },
    // Another method on the token's path never reaches the token route.
    { status: 404, res: await app.inject({ method: 'GET', url: '/core/oauth2/token', headers: { authorization: basic(named, 'x') } }), clientId: named }
  ]
  const entries = (await readLog(app)).requests.reverse()
  t.equal(entries.length, cases.length)
  cases.forEach(({ status, res, clientId }, i) => {
    t.equal(res.statusCode, status, `case ${i}: status`)
    t.match(entries[i], { requestId: res.headers[REQUEST_ID], status, clientId }, `case ${i}: its entry`)
    t.notMatch(JSON.stringify(entries[i]), /wrong|sandbox-demo-secret/, `case ${i}: no secret in the entry`)
  })
})

t.test('long bodies are cut', async t => {
  const app = await build(t)
  await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { organizations: [{ id: 'x'.repeat(6000) }] } })
  const [entry] = (await readLog(app)).requests
  t.equal(entry.status, 400)
  t.equal(entry.request.truncated, true)
  t.equal(entry.request.body.length, 4096)

  const huge = JSON.stringify({ organizations: [{ id: 'x'.repeat(20_000) }] })
  await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: huge, headers: { 'content-type': 'application/json' } })
  const [large] = (await readLog(app)).requests
  t.same(large.request, { headers: large.request.headers, body: `[${Buffer.byteLength(huge)} bytes, not kept]`, truncated: true }, 'a large body is not even held')
})

t.test('filters: method, path (exact or *), status (exact or class), clientId, limit', async t => {
  const app = await build(t)
  await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))
  await app.inject({ method: 'GET', url: '/core/a' })
  await app.inject({ method: 'DELETE', url: '/core/b' })
  await app.inject({ method: 'GET', url: '/partner/c' })
  const paths = async (query: string) => (await readLog(app, query)).requests.map((e: { path: string }) => e.path)
  t.same(await paths('?method=get'), ['/partner/c', '/core/a'])
  t.same(await paths('?path=/core/a'), ['/core/a'])
  t.same(await paths('?path=/core/*'), ['/core/b', '/core/a', '/core/oauth2/token'])
  t.same(await paths('?status=404&method=DELETE'), ['/core/b'])
  t.same(await paths('?status=2xx'), ['/core/oauth2/token'])
  t.same(await paths(`?clientId=${DEMO_ID}`), ['/core/oauth2/token'])
  t.same(await paths('?limit=2'), ['/partner/c', '/core/b'])
  const bad = await app.inject({ method: 'GET', url: '/_sandbox/requests?status=abc&limit=0&other=1' })
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().details.context, 'query')
})

t.test('reads of the control API and the log\'s own routes are not logged; DELETE clears', async t => {
  const app = await build(t)
  await app.inject({ method: 'GET', url: '/_sandbox/health' })
  await app.inject({ method: 'GET', url: '/_sandbox/clock' })
  await app.inject({ method: 'GET', url: '/_sandbox/' })
  await app.inject({ method: 'GET', url: '/_sandbox/requests' })
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 1 } })
  t.same((await readLog(app)).requests.map((e: { method: string, path: string }) => `${e.method} ${e.path}`), ['POST /_sandbox/clock'])

  const cleared = await app.inject({ method: 'DELETE', url: '/_sandbox/requests' })
  t.equal(cleared.statusCode, 204)
  t.same(await readLog(app), { requests: [], total: 0, capacity: 1000 })
})

t.test('the log stays at its bound under 10 000 requests and keeps the newest', async t => {
  const app = await build(t, { requestLogSize: 50 })
  const batch = 500
  // The requests of a batch may be answered in any order (on PostgreSQL each first reads the shared
  // row): the log keeps the last answered.
  const answered: number[] = []
  for (let i = 0; i < 10_000; i += batch) {
    await Promise.all(Array.from({ length: batch }, async (_, k) => {
      await app.inject({ method: 'GET', url: `/core/missing/${i + k}` })
      answered.push(i + k)
    }))
  }
  const log = await readLog(app, '?limit=1000')
  t.equal(log.total, 50)
  t.equal(log.capacity, 50)
  t.equal(log.requests.length, 50)
  const numbers = log.requests.map((e: { path: string }) => Number(e.path.split('/').pop()))
  t.ok(numbers.every((n: number) => n >= 10_000 - batch), 'only requests of the last batch are kept')
  t.same(numbers, answered.slice(-50).reverse(), 'the last 50 answered, newest first')
})

t.test('a reset keeps the log', async t => {
  const app = await build(t)
  await app.inject({ method: 'GET', url: '/core/before-reset' })
  await app.inject({ method: 'POST', url: '/_sandbox/reset' })
  t.same((await readLog(app)).requests.map((e: { path: string }) => e.path), ['/_sandbox/reset', '/core/before-reset'])
})

t.test('an entry that cannot be written is reported and left out; the others of its turn are kept', async t => {
  const { RequestLog } = await import('../../src/sandbox/request-log.js')
  const { Clock } = await import('../../src/clock.js')
  const errors: unknown[] = []
  const log = new RequestLog(10, new Clock(), error => { errors.push(error) })
  const reply = { statusCode: 200, elapsedTime: 1.5, getHeaders: () => ({ 'content-type': 'text/plain' }) }
  const request = (id: string, headers: () => Record<string, string>) =>
    ({ id, method: 'GET', url: `/probe/${id}`, get headers () { return headers() }, body: undefined, auth: null }) as unknown as FastifyRequest
  log.record(request('one', () => ({ host: 'sandbox' })), reply as unknown as FastifyReply, 'first')
  log.record(request('two', () => { throw new Error('unreadable headers') }), reply as unknown as FastifyReply, 'second')
  log.record(request('three', () => ({ host: 'sandbox' })), reply as unknown as FastifyReply, 'third')
  t.same(log.list().map(e => [e.requestId, e.response.body]), [['three', 'third'], ['one', 'first']])
  t.equal(log.size, 2)
  t.equal(errors.length, 1)
  t.match(errors[0], { message: 'unreadable headers' })
})

t.test('offset pages the log: each page holds older entries than the one before, filters apply first', async t => {
  const app = await build(t)
  for (let i = 0; i < 7; i++) await app.inject({ method: 'GET', url: `/core/nothing/${i}` })
  await app.inject({ method: 'GET', url: '/core/other' })

  const page = async (query: string): Promise<{ status: number, paths: string[], total: number }> => {
    const res = await app.inject({ method: 'GET', url: `/_sandbox/requests${query}` })
    t.match(res.headers['content-type'], /^application\/json/)
    const body = res.json()
    return { status: res.statusCode, paths: body.requests?.map((r: { path: string }) => r.path), total: body.total }
  }
  t.same(await page('?path=/core/nothing/*&limit=3'), { status: 200, paths: ['/core/nothing/6', '/core/nothing/5', '/core/nothing/4'], total: 8 })
  t.same(await page('?path=/core/nothing/*&limit=3&offset=3'), { status: 200, paths: ['/core/nothing/3', '/core/nothing/2', '/core/nothing/1'], total: 8 }, 'the second page: older entries')
  t.same(await page('?path=/core/nothing/*&limit=3&offset=6'), { status: 200, paths: ['/core/nothing/0'], total: 8 }, 'the last page is short')
  t.same((await page('?limit=3&offset=8')).paths, [], 'past the end: no entries')
  t.same((await page('?limit=2&offset=0')).paths, ['/core/other', '/core/nothing/6'], 'offset 0 is the first page')
  t.equal((await page('?offset=-1')).status, 400, 'a negative offset is refused')
  t.equal((await page('?offset=abc')).status, 400)
})
