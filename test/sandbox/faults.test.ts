import t from 'tap'
import { connect } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { basic, build, DEMO_ID, DEMO_SECRET, REQUEST_ID, tokenRequest, UUID_RE } from '../helpers.js'

const addFault = (app: FastifyInstance, payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/_sandbox/faults', payload })
const health = (app: FastifyInstance) => app.inject({ method: 'GET', url: '/_sandbox/health' })

t.test('a rule with count 3 answers 503 three times, then normal service resumes', async t => {
  const app = await build(t)
  const rule = await addFault(app, { path: '/core/oauth2/token', status: 503, count: 3 })
  t.equal(rule.statusCode, 201)
  t.match(rule.json(), { id: UUID_RE, method: null, path: '/core/oauth2/token', status: 503, count: 3, remaining: 3, applied: 0, drop: false, delayMs: 0, probability: 1 })

  const seen = []
  for (let i = 0; i < 4; i++) seen.push(await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET)))
  for (const res of seen.slice(0, 3)) {
    t.equal(res.statusCode, 503)
    t.same(res.json(), { code: 'service_unavailable', message: 'The service is temporarily unavailable' })
    t.match(res.headers[REQUEST_ID], UUID_RE, 'the request id is still sent')
    t.notOk(res.headers['retry-after'])
  }
  t.equal(seen[3].statusCode, 200, 'the fourth is served')
  t.ok(seen[3].json().access_token)
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/faults' })).json(), { faults: [] }, 'the spent rule is gone')
})

t.test('429 answers too_many_requests with Retry-After; the remaining count is shown', async t => {
  const app = await build(t)
  await addFault(app, { method: 'get', path: '/core/users/*', status: 429, count: 2, retryAfterSeconds: 7 })
  const res = await app.inject({ method: 'GET', url: '/core/users/123/metadata' })
  t.equal(res.statusCode, 429)
  t.same(res.json(), { code: 'too_many_requests', message: 'Try again later' })
  t.equal(res.headers['retry-after'], '7')
  const list = (await app.inject({ method: 'GET', url: '/_sandbox/faults' })).json().faults
  t.match(list, [{ method: 'GET', remaining: 1, applied: 1 }])

  const post = await app.inject({ method: 'POST', url: '/core/users/123/metadata' })
  t.not(post.statusCode, 429, 'another method is not matched')
  const other = await app.inject({ method: 'GET', url: '/core/files/1' })
  t.not(other.statusCode, 429, 'another path is not matched')

  await addFault(app, { path: '/core/files/1', status: 429 })
  const byDefault = await app.inject({ method: 'GET', url: '/core/files/1?x=1' })
  t.equal(byDefault.statusCode, 429, 'the query string is not part of the path')
  t.equal(byDefault.headers['retry-after'], '1', 'Retry-After defaults to 1 second')
})

t.test('status codes get the API\'s bodies; the token endpoint gets OAuth bodies for 4xx', async t => {
  const app = await build(t)
  const expect: Array<[number, string]> = [[500, 'internal_server_error'], [502, 'bad_gateway'], [504, 'gateway_timeout'], [401, 'token_invalid'], [418, 'i_m_a_teapot']]
  for (const [status, code] of expect) {
    await app.inject({ method: 'DELETE', url: '/_sandbox/faults' })
    await addFault(app, { path: '/core/thing', status })
    const res = await app.inject({ method: 'GET', url: '/core/thing' })
    t.equal(res.statusCode, status)
    t.equal(res.json().code, code, `${status} ${code}`)
    t.type(res.json().message, 'string')
    t.notMatch(res.body, /stack|\.ts:/)
  }
  await app.inject({ method: 'DELETE', url: '/_sandbox/faults' })
  await addFault(app, { path: '/core/oauth2/token', status: 400, count: 1 })
  await addFault(app, { path: '/core/oauth2/token', status: 401, count: 1 })
  const bad = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().error, 'invalid_request')
  t.type(bad.json().error_description, 'string')
  t.equal(bad.headers['cache-control'], 'no-store')
  const unauthorized = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))
  t.equal(unauthorized.statusCode, 401)
  t.same(unauthorized.json(), { error: 'invalid_client', error_description: 'Client does not exist or secret is incorrect' })
  t.match(unauthorized.headers['www-authenticate'], /^Basic/)
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))).statusCode, 200)
})

t.test('the control API is never affected, and rules cannot target it', async t => {
  const app = await build(t)
  const wild = await addFault(app, { path: '*', status: 500 })
  t.equal(wild.statusCode, 201)
  t.equal((await health(app)).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/clock' })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/core/anything' })).statusCode, 500)

  const sandbox = await addFault(app, { path: '/_sandbox/clock', status: 500 })
  t.equal(sandbox.statusCode, 400)
  t.same(sandbox.json().details.violations, [{ property: 'path', rule: 'not', ruleParams: { prefix: '/_sandbox' } }])
})

t.test('rules are checked: something to do, no drop with a status, bounds', async t => {
  const app = await build(t)
  const nothing = await addFault(app, { path: '/core/x' })
  t.equal(nothing.statusCode, 400)
  t.equal(nothing.json().details.violations[0].property, 'status')
  const both = await addFault(app, { path: '/core/x', drop: true, status: 500 })
  t.same(both.json().details.violations, [{ property: 'drop', rule: 'not', ruleParams: { with: 'status' } }])
  const bounds = await addFault(app, { path: 'core', status: 200, probability: 2, count: 0 })
  t.same(bounds.json().details.violations.map((v: { property: string }) => v.property).sort(), ['count', 'path', 'probability', 'status'])
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/faults' })).json(), { faults: [] })
})

t.test('probability 0 never applies; delay alone serves normally; rules can be deleted one by one', async t => {
  const app = await build(t)
  const never = (await addFault(app, { path: '/core/*', status: 500, probability: 0 })).json()
  for (let i = 0; i < 20; i++) t.equal((await app.inject({ method: 'GET', url: '/core/x' })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/faults' })).json().faults[0].applied, 0)

  const del = await app.inject({ method: 'DELETE', url: `/_sandbox/faults/${never.id}` })
  t.equal(del.statusCode, 204)
  t.equal((await app.inject({ method: 'DELETE', url: `/_sandbox/faults/${never.id}` })).statusCode, 404)
  t.equal((await app.inject({ method: 'DELETE', url: '/_sandbox/faults/not-a-uuid' })).statusCode, 400)

  await addFault(app, { path: '/core/x', delayMs: 5, count: 1 })
  const slow = await app.inject({ method: 'GET', url: '/core/x' })
  t.equal(slow.statusCode, 404, 'a delay-only rule lets the request through')
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/faults' })).json(), { faults: [] })
})

t.test('drop closes the connection without an answer (real server); the next request is served', async t => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port
  await addFault(app, { path: '/core/oauth2/token', drop: true, count: 1 })

  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('POST /core/oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 29\r\n\r\ngrant_type=client_credentials')
    })
    let data = ''
    socket.on('data', chunk => { data += chunk.toString() })
    socket.on('close', () => resolve(data))
    socket.on('error', reject)
  })
  t.equal(raw, '', 'the connection closed with no bytes sent')

  const next = await fetch(`http://127.0.0.1:${port}/core/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic(DEMO_ID, DEMO_SECRET), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  t.equal(next.status, 200)
  const log = (await app.inject({ method: 'GET', url: '/_sandbox/requests?path=/core/oauth2/token' })).json()
  t.same(log.requests.map((e: { status: number }) => e.status), [200, 0], 'the dropped request is logged with status 0')
})

t.test('a full reset removes every rule', async t => {
  const app = await build(t)
  await addFault(app, { path: '/core/*', status: 500 })
  await app.inject({ method: 'POST', url: '/_sandbox/reset' })
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/faults' })).json(), { faults: [] })
  t.equal((await app.inject({ method: 'GET', url: '/core/x' })).statusCode, 404)
})
