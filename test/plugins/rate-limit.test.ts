import t from 'tap'
import { basic, build, DEMO_ID, DEMO_SECRET, makeClient, REQUEST_ID, tokenRequest, UUID_RE } from '../helpers.js'

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
