import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { accessToken, basic, bearer, build, DEMO_ID, DEMO_SECRET, makeClient, REQUEST_ID, tokenRequest, UUID_RE } from '../helpers.js'
import { FailureWindows } from '../../src/plugins/auth-failures.js'

t.test('rate limiting is off by default', async t => {
  const app = await build(t)
  for (let i = 0; i < 30; i++) {
    const res = await app.inject({ method: 'GET', url: '/core/nothing' })
    t.equal(res.statusCode, 404)
  }
})

t.test('with RATE_LIMIT_PER_MINUTE, each client gets its own budget and then 429 too_many_requests', async t => {
  const app = await build(t, { rateLimitPerMinute: 3 })
  const other = await makeClient(app)
  for (let i = 0; i < 3; i++) t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))).statusCode, 200)
  const limited = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))
  t.equal(limited.statusCode, 429)
  t.same(limited.json(), { code: 'too_many_requests', message: 'Try again later' })
  t.match(limited.headers['retry-after'], /^\d+$/)
  t.match(limited.headers[REQUEST_ID], UUID_RE)
  const otherClient = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(other.clientId, other.secret))
  t.equal(otherClient.statusCode, 200, 'another client is not limited')
  const control = await app.inject({ method: 'GET', url: '/_sandbox/health' })
  t.equal(control.statusCode, 200, 'the control API is never limited')
})

// Failed client authentication (OAuth 2.0 Security BCP): 401s count per address and per client id.
const wrongSecret = async (app: FastifyInstance, clientId: string, remoteAddress: string): Promise<LightMyRequestResponse> => await app.inject({
  method: 'POST',
  url: '/core/oauth2/token',
  headers: { authorization: basic(clientId, 'wrong-secret'), 'content-type': 'application/x-www-form-urlencoded' },
  payload: 'grant_type=client_credentials',
  remoteAddress
})

t.test('repeated bad credentials from one address reach 429 with Retry-After, whatever client they name', async t => {
  const app = await build(t, { rateLimitPerMinute: 4 })
  const statuses = []
  for (let i = 0; i < 6; i++) statuses.push((await wrongSecret(app, `guess-${i}`, '198.51.100.1')).statusCode)
  t.same(statuses, [401, 401, 401, 401, 429, 429])
  const limited = await wrongSecret(app, 'guess-9', '198.51.100.1')
  t.equal(limited.statusCode, 429)
  t.same(limited.json(), { code: 'too_many_requests', message: 'Try again later' })
  const retryAfter = Number(limited.headers['retry-after'])
  t.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter} within the minute`)
  t.match(limited.headers[REQUEST_ID], UUID_RE)
  // Refused before the secret is checked: the right one is refused too, from that address.
  const right = await app.inject({
    method: 'POST',
    url: '/core/oauth2/token',
    headers: { authorization: basic(DEMO_ID, DEMO_SECRET), 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials',
    remoteAddress: '198.51.100.1'
  })
  t.equal(right.statusCode, 429)
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))).statusCode, 200, 'another address is served')
})

t.test('repeated bad secrets for one client from many addresses reach 429 for that client', async t => {
  const app = await build(t, { rateLimitPerMinute: 3 })
  const other = await makeClient(app)
  const statuses = []
  for (let i = 0; i < 5; i++) statuses.push((await wrongSecret(app, DEMO_ID, `198.51.100.${10 + i}`)).statusCode)
  t.same(statuses, [401, 401, 401, 429, 429])
  const fresh = await wrongSecret(app, DEMO_ID, '198.51.100.99')
  t.equal(fresh.statusCode, 429, 'from a new address too')
  t.match(fresh.headers['retry-after'], /^\d+$/)
  // Credentials in the body name the client as well.
  const inBody = await app.inject({
    method: 'POST',
    url: '/core/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `grant_type=client_credentials&client_id=${DEMO_ID}&client_secret=wrong`,
    remoteAddress: '198.51.100.98'
  })
  t.equal(inBody.statusCode, 429)
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic(other.clientId, other.secret))).statusCode, 200, 'another client is served')
})

t.test('repeated bad tokens on Bearer routes reach 429 with Retry-After for that address', async t => {
  const app = await build(t, { rateLimitPerMinute: 3 })
  const statuses = []
  for (let i = 0; i < 5; i++) {
    statuses.push((await app.inject({ method: 'POST', url: '/core/webhooks/management-link', headers: bearer(`not-a-token-${i}`), remoteAddress: '198.51.100.20' })).statusCode)
  }
  t.same(statuses, [401, 401, 401, 429, 429])
  const limited = await app.inject({ method: 'GET', url: '/core/users/me/metadata', remoteAddress: '198.51.100.20' })
  t.equal(limited.statusCode, 429, 'every Bearer route, no credentials at all included')
  t.match(limited.headers['retry-after'], /^\d+$/)
  t.same(limited.json(), { code: 'too_many_requests', message: 'Try again later' })
  const token = await accessToken(app)
  t.equal((await app.inject({ method: 'POST', url: '/core/webhooks/management-link', headers: bearer(token) })).statusCode, 201, 'another address is served')
})

t.test('an expired token counts toward its client at the token endpoint', async t => {
  const app = await build(t, { rateLimitPerMinute: 2 })
  const token = await accessToken(app)
  app.clock.advance(601)
  for (let i = 0; i < 2; i++) {
    const res = await app.inject({ method: 'POST', url: '/core/webhooks/management-link', headers: bearer(token), remoteAddress: `198.51.100.${30 + i}` })
    t.equal(res.json().code, 'token_expired')
  }
  t.equal((await wrongSecret(app, DEMO_ID, '198.51.100.40')).statusCode, 429, 'the client has had its failures')
})

t.test('without a limit, failed authentication is never answered 429', async t => {
  const app = await build(t)
  for (let i = 0; i < 20; i++) t.equal((await wrongSecret(app, DEMO_ID, '198.51.100.50')).statusCode, 401)
})

t.test('failure windows reset after their minute and stay bounded', async t => {
  let now = 0
  const windows = new FailureWindows(2, 60_000, () => now, 3)
  windows.record(['a'])
  windows.record(['a'])
  t.equal(windows.retryAfterSeconds(['b', 'a']), 60)
  now = 59_001
  t.equal(windows.retryAfterSeconds(['a']), 1)
  now = 60_000
  t.equal(windows.retryAfterSeconds(['a']), 0, 'a new minute')
  windows.record(['a'])
  t.equal(windows.retryAfterSeconds(['a']), 0, 'counting again from one')
  for (const key of ['b', 'c', 'd', 'e']) windows.record([key])
  t.equal(windows.size, 3, 'never more keys than its capacity')
})
