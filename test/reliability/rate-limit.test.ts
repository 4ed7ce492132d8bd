// Rate limiting on a demo open to the internet: nobody spends another client's request budget by
// naming it, with a forged token or a wrong secret; failed authentication is limited on its own
// (per address, and per client id at the token endpoint). (Budgets, 429 and Retry-After:
// test/plugins/rate-limit.test.ts.)
import t from 'tap'
import { basic, bearer, build, DEMO_ID, DEMO_SECRET, tokenRequest } from '../helpers.js'

const forged = (clientId: string): string =>
  ['{"alg":"HS256","typ":"JWT"}', JSON.stringify({ cid: clientId, org: 'x', sty: 'client', scope: '', gen: 'x', exp: 9_999_999_999 })]
    .map(part => Buffer.from(part).toString('base64url')).join('.') + '.forged-signature'

t.test('forged tokens naming a client do not spend that client\'s budget', async t => {
  const app = await build(t, { rateLimitPerMinute: 5 })
  for (let i = 0; i < 10; i++) {
    const res = await app.inject({ method: 'POST', url: '/core/webhooks/management-link', headers: bearer(forged(DEMO_ID)), remoteAddress: '203.0.113.7' })
    t.equal(res.statusCode, i < 5 ? 401 : 429, 'a forged token is refused, then its address is limited')
  }
  const token = (await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))).json().access_token as string
  const served = []
  for (let i = 0; i < 5; i++) served.push((await app.inject({ method: 'POST', url: '/core/webhooks/management-link', headers: bearer(token) })).statusCode)
  t.same(served, [201, 201, 201, 201, 201], 'the named client still has its whole budget')
  const over = await app.inject({ method: 'POST', url: '/core/webhooks/management-link', headers: bearer(token) })
  t.equal(over.statusCode, 429, 'and then is limited')
})

t.test('wrong secrets sent from elsewhere stop guesses at the client\'s secret, not the client\'s tokens', async t => {
  const app = await build(t, { rateLimitPerMinute: 5 })
  const token = (await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))).json().access_token as string
  for (let i = 0; i < 10; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/core/oauth2/token',
      headers: { authorization: basic(DEMO_ID, 'wrong-secret'), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
      remoteAddress: '203.0.113.8'
    })
    t.equal(res.statusCode, i < 5 ? 401 : 429)
  }
  const own = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))
  t.equal(own.statusCode, 429, 'the secret is not checked again for the rest of the minute, from any address')
  const served = []
  for (let i = 0; i < 5; i++) served.push((await app.inject({ method: 'POST', url: '/core/webhooks/management-link', headers: bearer(token) })).statusCode)
  t.same(served, [201, 201, 201, 201, 201], 'a token the client holds keeps its whole request budget')
})
