// One clock per organization, over HTTP alone: two organizations A and B, each driving its own
// sandbox with a client-credentials token holding `sandbox:control`. Everything time-based of A
// (its tokens, quotes, settlements, KYC reviews, prices) follows A's clock when A moves it, and
// nothing of B changes; the admin's global clock moves both; `{ real: true }` puts an organization
// back on the global clock; a frozen organization's clock stays frozen (moved by the global's moves
// only); a control token cannot see or move another organization's clock; its events, webhook
// deliveries, pinned prices and request log entries are on its clock too (a body read from a real
// socket included); and the clocks outlast a restart.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { basic, build, fileDatabasePath, generalTerms, userIp } from '../helpers.js'
import { Clock } from '../../src/clock.js'
import { Decimal } from '../../src/money/decimal.js'
import { fpsDeposit, fpsDetails, newAccount, readyUser, type Answer, type Http } from '../transactions/http-support.js'
import { acct } from '../transactions/support.js'
import { startReceiver, until } from '../webhooks/support.js'
import { ADMIN_TOKEN, asAdmin, injectHttp, organization, type Call, type Organization } from './organization-support.js'

const DAY = 86_400
const SETTLEMENT = 600
const REVIEW = 3600
const CDD_STEPS = [{ purpose: { activities: ['investing'] } }, { finances: { 'source-of-funds': 'salary', 'annual-income': 'under-25000' } }, { occupation: { status: 'employed' } }]

const config = { adminToken: ADMIN_TOKEN, transactionSettlementSeconds: SETTLEMENT, kycReviewDelaySeconds: REVIEW }

const expect = (what: string, res: Answer, status: number): Answer => {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`)
  return res
}

/** What an organization has that depends on time, made through its own token. */
interface Setup {
  org: Organization
  h: Http
  token: string
  user: string
  gbp: string
  btc: string
  /** A trade, processing until its settlement. */
  trade: string
  /** A quote not yet committed. */
  quote: { id: string, expiresAt: string, origin: { amount: string }, destination: { amount: string } }
  /** A user whose customer due diligence waits for the service's review. */
  reviewed: string
}

async function setUp (app: FastifyInstance, call: Call): Promise<Setup> {
  const org = await organization(call, randomUUID(), app.config.partnerArea)
  const token = await org.token()
  const h = injectHttp(call, token, app.config.serviceName)
  const user = await readyUser(h, `trader-${org.organizationId}@example.com`)
  const gbp = await newAccount(h, user, 'GBP')
  const btc = await newAccount(h, user, 'BTC')
  await fpsDeposit(h, user, await fpsDetails(h, user, gbp), '500')
  const quoted = expect('trade quote', await h.call('POST', '/core/transactions/quote', { user, body: { origin: acct(gbp), destination: acct(btc), denomination: { asset: 'GBP', amount: '100' } } }), 201)
  const traded = expect('trade', await h.call('POST', '/core/transactions', { user, body: { quoteId: quoted.body.quote.id }, headers: h.context }), 201)
  const quote = expect('quote', await h.call('POST', '/core/transactions/quote', { user, body: { origin: acct(gbp), destination: acct(btc), denomination: { asset: 'GBP', amount: '50' } } }), 201).body.quote
  const reviewed = expect('KYC user', await h.call('POST', '/core/users', {
    headers: h.context,
    body: { email: `reviewed-${org.organizationId}@example.com`, termsOfService: generalTerms('PT'), primaryCitizenship: 'PT', address: { country: 'PT' } }
  }), 201).body.user.id as string
  for (const answers of CDD_STEPS) expect('CDD step', await h.call('PATCH', '/core/kyc/processes/customer-due-diligence', { user: reviewed, body: { input: { answers } } }), 200)
  return { org, h, token, user, gbp, btc, trade: traded.body.transaction.id, quote, reviewed }
}

/** Everything of an organization that depends on its clock, read over the API with a token of it. */
async function observe (s: Setup, token: string): Promise<Record<string, unknown>> {
  s.h.setToken(token)
  try {
    const read = async (what: string, path: string, user?: string): Promise<unknown> => expect(what, await s.h.call('GET', path, { user }), 200).body
    return {
      clock: await read('clock', '/_sandbox/clock'),
      trade: await read('trade', `/core/transactions/${s.trade}`, s.user),
      gbp: await read('GBP account', `/core/accounts/${s.gbp}`, s.user),
      btc: await read('BTC account', `/core/accounts/${s.btc}`, s.user),
      kyc: await read('KYC', '/core/kyc', s.reviewed),
      price: await read('price', '/core/assets/BTC/rates?denomination=USD,EUR')
    }
  } finally {
    s.h.setToken(s.token)
  }
}

const cddOf = (view: Record<string, any>): string => view.kyc.processes.customerDueDiligence.status
/** A control call with a fresh token of the organization (an older one may have expired on its clock). */
const control = async (call: Call, org: Organization, method: 'GET' | 'POST', url: string, body?: object): Promise<Answer> =>
  await injectHttp(call, await org.token(call)).call(method, url, { body })
const clockOf = async (call: Call, org: Organization): Promise<{ now: string, frozen: boolean, organizationId: string | null }> =>
  expect('clock', await control(call, org, 'GET', '/_sandbox/clock'), 200).body
const seconds = (later: string, earlier: string): number => (Date.parse(later) - Date.parse(earlier)) / 1000

t.test('an organization moving its clock moves its tokens, quotes, settlements, reviews and prices, and nothing of another', async t => {
  // A running clock, which the admin freezes.
  const app = await build(t, config, { clock: new Clock() })
  const call: Call = async options => await app.inject(options)
  // The global clock stands still, so what B reads before and after can be compared exactly.
  t.equal(expect('freeze', await asAdmin(call, 'POST', '/_sandbox/clock', { frozen: true }), 200).body.frozen, true)
  const globalBefore = expect('global clock', await asAdmin(call, 'GET', '/_sandbox/clock'), 200).body

  const a = await setUp(app, call)
  const b = await setUp(app, call)
  const aBefore = await observe(a, a.token)
  const bBefore = await observe(b, b.token)
  for (const [name, view] of [['A', aBefore], ['B', bBefore]] as const) {
    t.match(view, { clock: { now: globalBefore.now, frozen: true }, trade: { transaction: { status: 'processing' } } }, `${name}: on the global clock, its trade processing`)
    t.equal(cddOf(view), 'pending', `${name}: its customer due diligence waits for the review`)
  }
  t.equal((aBefore.clock as { organizationId: string }).organizationId, a.org.organizationId)
  t.same(aBefore.price, bBefore.price, 'one price for both on one clock')
  t.ok(Date.parse(a.quote.expiresAt) > Date.parse(globalBefore.now), 'A\'s quote holds')

  // A moves its own clock by a day, with its control token.
  const moved = expect('A moves its clock', await a.h.call('POST', '/_sandbox/clock', { body: { advanceSeconds: DAY } }), 200).body
  t.same(moved, { now: new Date(Date.parse(globalBefore.now) + DAY * 1000).toISOString(), frozen: true, organizationId: a.org.organizationId }, 'A\'s clock a day on')

  // A's token, issued a day ago on A's clock, has expired.
  const refused = await a.h.call('GET', '/_sandbox/clock')
  t.equal(refused.status, 401)
  t.equal(refused.body.code, 'token_expired')
  const refusedCore = await a.h.call('GET', `/core/transactions/${a.trade}`, { user: a.user })
  t.equal(refusedCore.status, 401)
  t.equal(refusedCore.body.code, 'token_expired')

  // A's trade settled, its review done, its price moved, its quote expired.
  const aToken = await a.org.token()
  const aAfter = await observe(a, aToken)
  t.same(aAfter.clock, moved, 'a new token of A reads A\'s clock')
  t.match(aAfter.trade, { transaction: { id: a.trade, status: 'completed', completedAt: String } }, 'A\'s trade completed')
  const credit = (aBefore.trade as any).transaction.destination.amount as string
  const balance = (view: unknown): string[] => { const { total, available } = (view as any).account.balance; return [new Decimal(total).toFixed(), new Decimal(available).toFixed()] }
  t.same(balance(aAfter.gbp), ['400', '400'], 'A\'s GBP debited')
  t.same(balance(aAfter.btc), [new Decimal(credit).toFixed(), new Decimal(credit).toFixed()], 'A\'s BTC credited')
  t.equal(cddOf(aAfter), 'ok', 'A\'s review came due: ok')
  t.not(JSON.stringify(aAfter.price), JSON.stringify(aBefore.price), 'A\'s price moved')
  a.h.setToken(aToken)
  const expired = await a.h.call('POST', '/core/transactions', { user: a.user, body: { quoteId: a.quote.id }, headers: a.h.context })
  t.equal(expired.status, 404, 'A\'s quote expired')
  t.match(expired.body, { code: 'entity_not_found', details: { entity: 'quote' } })

  // B: not a thing changed, and its token still works.
  t.same(await observe(b, b.token), bBefore, 'B reads exactly what it read before')
  t.same(expect('global clock', await asAdmin(call, 'GET', '/_sandbox/clock'), 200).body, globalBefore, 'the global clock did not move')
  const committed = await b.h.call('POST', '/core/transactions', { user: b.user, body: { quoteId: b.quote.id }, headers: b.h.context })
  t.equal(committed.status, 201, 'B\'s quote still holds')
  t.match(committed.body.transaction, { status: 'processing', origin: { amount: b.quote.origin.amount }, destination: { amount: b.quote.destination.amount } })

  // The admin moves the global clock: both organizations' clocks move with it.
  const bClock = await clockOf(call, b.org)
  const global = expect('global move', await asAdmin(call, 'POST', '/_sandbox/clock', { advanceSeconds: 3600 }), 200).body
  t.same(global, { now: new Date(Date.parse(globalBefore.now) + 3600_000).toISOString(), frozen: true, organizationId: null })
  const aMoved = await clockOf(call, a.org)
  t.equal(seconds(aMoved.now, moved.now), 3600, 'A\'s clock moved by an hour')
  t.equal(seconds(aMoved.now, global.now), DAY, 'A keeps its day ahead')
  const bToken = await b.org.token()
  const bMoved = await clockOf(call, b.org)
  t.equal(seconds(bMoved.now, bClock.now), 3600, 'B\'s clock moved by an hour')
  t.equal(bMoved.now, global.now, 'B is on the global clock')
  // B's time-based rules follow: its old token expired, its trade settled, its review done.
  const bExpired = await injectHttp(call, b.token).call('GET', '/_sandbox/clock')
  t.equal(bExpired.status, 401)
  t.equal(bExpired.body.code, 'token_expired')
  const bAfter = await observe(b, bToken)
  t.match(bAfter.trade, { transaction: { id: b.trade, status: 'completed' } }, 'B\'s trade completed on the global move')
  t.equal(cddOf(bAfter), 'ok', 'B\'s review came due on the global move')
  t.not(JSON.stringify(bAfter.price), JSON.stringify(bBefore.price), 'B\'s price moved')
})

t.test('real time again, frozen organizations and the global clock', async t => {
  const app = await build(t, config)
  const call: Call = async options => await app.inject(options)
  const a = await organization(call, randomUUID(), app.config.partnerArea)
  const b = await organization(call, randomUUID(), app.config.partnerArea)
  const globalNow = async (): Promise<string> => expect('global clock', await asAdmin(call, 'GET', '/_sandbox/clock'), 200).body.now

  // A an hour ahead, then back on the global clock with `{ real: true }`.
  expect('A ahead', await control(call, a, 'POST', '/_sandbox/clock', { advanceSeconds: 3600 }), 200)
  t.equal(seconds((await clockOf(call, a)).now, await globalNow()), 3600)
  const real = expect('A real', await control(call, a, 'POST', '/_sandbox/clock', { real: true }), 200).body
  t.same(real, { now: await globalNow(), frozen: true, organizationId: a.organizationId }, 'A is on the global clock again')
  const later = expect('global move', await asAdmin(call, 'POST', '/_sandbox/clock', { advanceSeconds: 60 }), 200).body
  t.equal((await clockOf(call, a)).now, later.now, 'and follows it')

  // A at an instant of its own: `{ now }` for A only.
  const instant = '2031-03-04T05:06:07.000Z'
  const set = expect('A set', await control(call, a, 'POST', '/_sandbox/clock', { now: instant }), 200).body
  t.same(set, { now: instant, frozen: true, organizationId: a.organizationId })
  t.equal((await clockOf(call, b)).now, later.now, 'B did not move')

  // The global clock runs: B runs with it, A frozen on its own stands still.
  expect('global runs', await asAdmin(call, 'POST', '/_sandbox/clock', { frozen: false }), 200)
  const aFrozen = expect('A freezes', await control(call, a, 'POST', '/_sandbox/clock', { frozen: true }), 200).body
  t.match(aFrozen, { frozen: true, organizationId: a.organizationId })
  t.ok(seconds(aFrozen.now, instant) >= 0 && seconds(aFrozen.now, instant) < 60, 'A frozen where it stood: its instant, and the moment since the global clock runs')
  const bRunning = await clockOf(call, b)
  t.equal(bRunning.frozen, false, 'B runs')
  await new Promise(resolve => setTimeout(resolve, 50))
  t.ok(Date.parse((await clockOf(call, b)).now) > Date.parse(bRunning.now), 'B\'s time passes')
  t.same(await clockOf(call, a), aFrozen, 'A\'s does not')

  // The admin moves the global clock: a frozen organization is moved by the same amount, and stays frozen.
  expect('global advance', await asAdmin(call, 'POST', '/_sandbox/clock', { advanceSeconds: 7200 }), 200)
  const aShifted = await clockOf(call, a)
  t.same(aShifted, { now: new Date(Date.parse(aFrozen.now) + 7200_000).toISOString(), frozen: true, organizationId: a.organizationId }, 'A moved by two hours, still frozen')
  const bShifted = await clockOf(call, b)
  t.ok(seconds(bShifted.now, bRunning.now) >= 7200 && seconds(bShifted.now, bRunning.now) < 7260, `B moved by two hours and runs (${seconds(bShifted.now, bRunning.now)} s)`)
  t.equal(bShifted.frozen, false)

  // A restarts: it runs on from where it stood, its offset kept.
  const aRuns = expect('A runs', await control(call, a, 'POST', '/_sandbox/clock', { frozen: false }), 200).body
  t.equal(aRuns.frozen, false)
  t.ok(Math.abs(seconds(aRuns.now, aShifted.now)) < 60, 'A runs on from where it stood')
  await new Promise(resolve => setTimeout(resolve, 50))
  t.ok(Date.parse((await clockOf(call, a)).now) > Date.parse(aRuns.now), 'A\'s time passes')

  // The admin reads and moves one organization's clock with `?organizationId=`.
  const byAdmin = expect('admin reads A', await asAdmin(call, 'GET', `/_sandbox/clock?organizationId=${a.organizationId}`), 200).body
  t.equal(byAdmin.organizationId, a.organizationId)
  t.ok(Math.abs(seconds(byAdmin.now, aRuns.now)) < 60, 'the admin reads A\'s clock')
  const bBefore = await clockOf(call, b)
  const adminMovesB = expect('admin moves B', await asAdmin(call, 'POST', `/_sandbox/clock?organizationId=${b.organizationId}`, { frozen: true }), 200).body
  t.equal(adminMovesB.frozen, true)
  t.equal(adminMovesB.organizationId, b.organizationId)
  t.same(await clockOf(call, b), adminMovesB, 'B\'s token reads what the admin set')
  t.ok(seconds(adminMovesB.now, bBefore.now) >= 0 && seconds(adminMovesB.now, bBefore.now) < 60, 'B frozen at its now')
  t.equal((await clockOf(call, a)).frozen, false, 'A still runs')
  t.equal(expect('global clock', await asAdmin(call, 'GET', '/_sandbox/clock'), 200).body.frozen, false, 'the global clock still runs')

  // The admin puts the global clock back on real time: A, running, keeps its offset; B, frozen, is
  // moved by as much as the global clock (both clocks run: a second of slack).
  const globalBefore = await globalNow()
  const aOffset = seconds((await clockOf(call, a)).now, globalBefore)
  const realGlobal = expect('global real', await asAdmin(call, 'POST', '/_sandbox/clock', { real: true }), 200).body
  t.equal(realGlobal.frozen, false)
  t.ok(Math.abs(Date.parse(realGlobal.now) - Date.now()) < 60_000, 'the global clock reads the machine\'s time')
  const shift = seconds(realGlobal.now, globalBefore)
  t.ok(shift < -7200, `the global clock went back ${-shift} s`)
  t.ok(Math.abs(seconds((await clockOf(call, a)).now, await globalNow()) - aOffset) < 1, 'A keeps its offset')
  const bReal = await clockOf(call, b)
  t.equal(bReal.frozen, true, 'B stays frozen')
  t.ok(Math.abs(seconds(bReal.now, adminMovesB.now) - shift) < 1, `B moved with the global clock (${seconds(bReal.now, adminMovesB.now)} s)`)
})

t.test('a control token reaches its own organization\'s clock only', async t => {
  const app = await build(t, config)
  const call: Call = async options => await app.inject(options)
  const a = await organization(call, randomUUID(), app.config.partnerArea)
  const b = await organization(call, randomUUID(), app.config.partnerArea)
  const aHttp = injectHttp(call, await a.token())
  const bBefore = await clockOf(call, b)

  for (const [method, body] of [['GET', undefined], ['POST', { advanceSeconds: 60 }]] as const) {
    const other = await aHttp.call(method, `/_sandbox/clock?organizationId=${b.organizationId}`, { body })
    t.equal(other.status, 404, `${method}: another organization does not exist for A`)
    t.match(other.body, { code: 'entity_not_found', details: { entity: 'organization' } })
    const unknown = await asAdmin(call, method, `/_sandbox/clock?organizationId=${randomUUID()}`, body)
    t.equal(unknown.status, 404, `${method}: the admin naming an unknown organization`)
    t.match(unknown.body, { code: 'entity_not_found', details: { entity: 'organization' } })
  }
  const own = await aHttp.call('GET', `/_sandbox/clock?organizationId=${a.organizationId}`)
  t.equal(own.status, 200, 'naming its own is fine')
  t.equal(own.body.organizationId, a.organizationId)
  t.same(await clockOf(call, b), bBefore, 'B\'s clock did not move')

  // Global controls are the admin's.
  for (const [method, url, body] of [['GET', '/_sandbox/organizations', undefined], ['POST', '/_sandbox/clients', { organizationId: a.organizationId, name: 'more', scopes: ['core.users:read'] }]] as const) {
    const res = await aHttp.call(method, url, { body })
    t.equal(res.status, 403, `${method} ${url}`)
    t.equal(res.body.code, 'forbidden')
  }

  // A token without the scope, or acting for a user, does not drive the sandbox.
  const plain = await asAdmin(call, 'POST', '/_sandbox/clients', { organizationId: a.organizationId, name: 'plain', scopes: ['core.users:read'] })
  const token = await call({
    method: 'POST',
    url: '/core/oauth2/token',
    headers: { authorization: basic(plain.body.clientId, plain.body.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials'
  })
  const scoped = await injectHttp(call, token.json().access_token).call('POST', '/_sandbox/clock', { body: { advanceSeconds: 60 } })
  t.equal(scoped.status, 403)
  t.equal(scoped.body.code, 'token_insufficient_scopes')
  const none = await call({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 60 } })
  t.equal(none.statusCode, 401, 'no token, with an admin token configured')
  t.equal(none.json().code, 'token_invalid')
  // A client whose tokens act as a user of the organization.
  const user = expect('user', await aHttp.call('POST', '/core/users', {
    headers: userIp(),
    body: { email: 'acting@example.com', termsOfService: generalTerms('GB'), primaryCitizenship: 'GB', address: { country: 'GB' } }
  }), 201).body.user.id as string
  const acting = expect('user client', await asAdmin(call, 'POST', '/_sandbox/clients', { organizationId: a.organizationId, name: 'acting', scopes: ['sandbox:control'], userId: user }), 201).body
  const userToken = await call({
    method: 'POST',
    url: '/core/oauth2/token',
    headers: { authorization: basic(acting.clientId, acting.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials'
  })
  t.equal(userToken.statusCode, 200, userToken.body)
  const asUser = await injectHttp(call, userToken.json().access_token).call('POST', '/_sandbox/clock', { body: { advanceSeconds: 60 } })
  t.equal(asUser.status, 403, 'a token acting as a user')
  t.equal(asUser.body.code, 'token_subject_not_allowed')
  t.same(await clockOf(call, b), bBefore, 'no clock moved')
})

t.test('an organization\'s events, webhook deliveries and pinned prices are on its clock, with its own pins', async t => {
  const app = await build(t, config)
  const call: Call = async options => await app.inject(options)
  const receiver = await startReceiver(t)
  const a = await organization(call, randomUUID(), app.config.partnerArea)
  const b = await organization(call, randomUUID(), app.config.partnerArea)
  for (const org of [a, b]) {
    expect('endpoint', await control(call, org, 'POST', '/_sandbox/webhooks/endpoints', { url: receiver.url, eventTypes: ['core.user.created'] }), 201)
  }
  expect('A moves', await control(call, a, 'POST', '/_sandbox/clock', { advanceSeconds: DAY }), 200)
  const aNow = (await clockOf(call, a)).now
  const bNow = (await clockOf(call, b)).now
  t.equal(seconds(aNow, bNow), DAY)

  // A user of each: its event, the message and the delivery carry its organization's time.
  const users = new Map<string, { org: Organization, now: string }>()
  for (const [org, now] of [[a, aNow], [b, bNow]] as const) {
    const made = expect('user', await injectHttp(call, await org.token()).call('POST', '/core/users', {
      headers: userIp(),
      body: { email: `events-${org.organizationId}@example.com`, termsOfService: generalTerms('GB'), primaryCitizenship: 'GB', address: { country: 'GB' } }
    }), 201).body.user
    t.equal(made.createdAt, now, 'the user is created at its organization\'s now')
    users.set(made.id, { org, now })
  }
  // The request log stamps each request on its organization's clock, a request with a body too.
  for (const [org, now] of [[a, aNow], [b, bNow]] as const) {
    const log = expect('request log', await control(call, org, 'GET', '/_sandbox/requests?method=POST&path=/core/users'), 200).body.requests
    t.same(log.map((r: { timestamp: string }) => r.timestamp), [now], 'the user\'s creation is logged at its organization\'s now')
  }
  const deliveries = await receiver.waitFor(2)
  for (const delivery of deliveries) {
    const payload = JSON.parse(delivery.body) as { type: string, createdAt: string, data: { user: { id: string } } }
    const { org, now } = users.get(payload.data.user.id)!
    const name = org === a ? 'A' : 'B'
    t.equal(payload.createdAt, now, `${name}: the event's createdAt`)
    t.equal(delivery.headers['webhook-timestamp'], String(Math.floor(Date.parse(now) / 1000)), `${name}: the delivery's webhook-timestamp`)
    const messages = expect('messages', await control(call, org, 'GET', '/_sandbox/webhooks/messages'), 200).body.messages as Array<{ organizationId: string, createdAt: string, payload: { createdAt: string, data: { user: { id: string } } } }>
    t.same(messages.map(m => [m.organizationId, m.createdAt, m.payload.createdAt, m.payload.data.user.id]), [[org.organizationId, now, now, payload.data.user.id]], `${name}: its one message, made at its now, the event at its now`)
  }

  // A pins BTC for itself, at its now: A prices with its pin, B with the model.
  const rate = async (org: Organization): Promise<Record<string, string>> =>
    expect('rate', await control(call, org, 'GET', '/core/assets/BTC/rates?denomination=USD'), 200).body.rates.USD
  const bRate = await rate(b)
  const pinned = expect('pin', await control(call, a, 'POST', '/_sandbox/rates', { asset: 'BTC', mid: '12345.67' }), 201).body
  t.same(pinned, { asset: 'BTC', mid: '12345.67', pinnedAt: aNow }, 'pinned at A\'s now')
  t.equal(new Decimal((await rate(a)).mid).toFixed(), '12345.67', 'A reads its pin')
  t.same(await rate(b), bRate, 'B\'s price did not move')
  t.same(expect('A pins', await control(call, a, 'GET', '/_sandbox/rates'), 200).body.rates, [pinned], 'A lists its pin')
  t.same(expect('B pins', await control(call, b, 'GET', '/_sandbox/rates'), 200).body.rates, [], 'B has none')
  // Over a real connection, where the answer is logged in the socket's callback once it is sent.
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const sent = await fetch(`${base}/core/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await a.token()}`, 'content-type': 'application/json', ...userIp(app.config.serviceName) },
    body: JSON.stringify({ email: `socket-${a.organizationId}@example.com`, termsOfService: generalTerms('GB'), primaryCitizenship: 'GB', address: { country: 'GB' } })
  })
  t.equal(sent.status, 201)
  t.equal((await sent.json()).user.createdAt, aNow, 'a body read from the socket: the handler still runs on the organization\'s clock')
  const socketLog = expect('request log', await control(call, a, 'GET', '/_sandbox/requests?method=POST&path=/core/users'), 200).body.requests
  t.same(socketLog.map((r: { timestamp: string }) => r.timestamp), [aNow, aNow], 'logged at the organization\'s now')
})

t.test('an organization\'s webhook retries wait for its own clock: its move sends them, another\'s does not', async t => {
  const RETRY = 60
  // The global clock stands still (the test's), so only a move of a clock makes a retry due.
  const app = await build(t, { ...config, webhookRetrySchedule: [RETRY, RETRY] })
  const call: Call = async options => await app.inject(options)
  // Each receiver fails the first delivery and takes the next.
  const receivers = { A: await startReceiver(t, n => n === 0 ? { status: 503 } : { status: 204 }), B: await startReceiver(t, n => n === 0 ? { status: 503 } : { status: 204 }) }
  const a = await organization(call, randomUUID(), app.config.partnerArea)
  const b = await organization(call, randomUUID(), app.config.partnerArea)
  const orgs = { A: a, B: b }
  expect('A moves', await control(call, a, 'POST', '/_sandbox/clock', { advanceSeconds: DAY }), 200)
  type Message = { status: string, createdAt: string, nextAttemptAt: string | null, attempts: Array<{ attemptedAt: string, statusCode: number }> }
  const messagesOf = async (org: Organization): Promise<Message[]> =>
    expect('messages', await control(call, org, 'GET', '/_sandbox/webhooks/messages'), 200).body.messages as Message[]
  // Its one message, once it has `count` attempts.
  const untilAttempts = async (org: Organization, count: number): Promise<Message> => await until(async () => {
    const messages = await messagesOf(org)
    if (messages.length > 1) throw new Error(`${messages.length} messages, not one`)
    return messages.length === 1 && messages[0].attempts.length >= count ? messages[0] : undefined
  }, `attempt ${count}`)
  const at = (iso: string, seconds: number): string => new Date(Date.parse(iso) + seconds * 1000).toISOString()
  const nows = { A: '', B: '' }
  for (const name of ['A', 'B'] as const) {
    const org = orgs[name]
    expect('endpoint', await control(call, org, 'POST', '/_sandbox/webhooks/endpoints', { url: receivers[name].url, eventTypes: ['core.user.created'] }), 201)
    nows[name] = (await clockOf(call, org)).now
    expect('user', await injectHttp(call, await org.token()).call('POST', '/core/users', {
      headers: userIp(),
      body: { email: `retried-${org.organizationId}@example.com`, termsOfService: generalTerms('GB'), primaryCitizenship: 'GB', address: { country: 'GB' } }
    }), 201)
    const first = await untilAttempts(org, 1)
    t.match(first, { status: 'pending', createdAt: nows[name], nextAttemptAt: at(nows[name], RETRY) }, `${name}: the first attempt failed, the next is due ${RETRY} s later on its clock`)
    t.same(first.attempts.map(x => [x.attemptedAt, x.statusCode]), [[nows[name], 503]])
  }
  t.equal(seconds(nows.A, nows.B), DAY)

  // A moves its clock by the retry's wait: A's retry goes out, B's waits.
  expect('A moves on', await control(call, a, 'POST', '/_sandbox/clock', { advanceSeconds: RETRY }), 200)
  const aDone = await untilAttempts(a, 2)
  t.match(aDone, { status: 'delivered', nextAttemptAt: null }, 'A: delivered by the retry')
  t.same(aDone.attempts.map(x => [x.attemptedAt, x.statusCode]), [[nows.A, 503], [at(nows.A, RETRY), 204]], 'A: the retry at A\'s new now')
  t.equal(receivers.A.received[1].headers['webhook-timestamp'], String(Math.floor(Date.parse(at(nows.A, RETRY)) / 1000)), 'A: signed at its new now')
  // The pass that took A's retry looked at B's messages too (on the global clock, which B is on):
  // B's is still waiting.
  const [bWaiting, ...more] = await messagesOf(b)
  t.equal(more.length, 0)
  t.match(bWaiting, { status: 'pending', nextAttemptAt: at(nows.B, RETRY) }, 'B: still waiting')
  t.equal(bWaiting.attempts.length, 1)
  t.equal(receivers.B.received.length, 1, 'B: no retry sent')

  // B moves its own clock: now B's retry goes out.
  expect('B moves', await control(call, b, 'POST', '/_sandbox/clock', { advanceSeconds: RETRY }), 200)
  const bDone = await untilAttempts(b, 2)
  t.match(bDone, { status: 'delivered', nextAttemptAt: null }, 'B: delivered by the retry')
  t.same(bDone.attempts.map(x => [x.attemptedAt, x.statusCode]), [[nows.B, 503], [at(nows.B, RETRY), 204]])
  t.equal(receivers.A.received.length, 2, 'A: nothing more')
})

t.test('organizations\' clocks are kept across a restart, a frozen one where the global clock moved it', async t => {
  const path = fileDatabasePath(t)
  const first = await build(t, { ...config, databasePath: path })
  const call: Call = async options => await first.inject(options)
  const a = await organization(call, randomUUID(), first.config.partnerArea)
  const b = await organization(call, randomUUID(), first.config.partnerArea)
  expect('A ahead', await control(call, a, 'POST', '/_sandbox/clock', { advanceSeconds: 3600 }), 200)
  expect('B freezes', await control(call, b, 'POST', '/_sandbox/clock', { frozen: true }), 200)
  // The global clock runs, then moves by 600 s: B, frozen, is moved with it.
  expect('global runs', await asAdmin(call, 'POST', '/_sandbox/clock', { frozen: false }), 200)
  const global = expect('global advance', await asAdmin(call, 'POST', '/_sandbox/clock', { advanceSeconds: 600 }), 200).body.now as string
  const bBefore = await clockOf(call, b)
  t.equal(bBefore.frozen, true)
  await first.close()

  // The sandbox starts again, its clock standing at the instant the global clock had reached.
  const clock = new Clock()
  clock.freeze(true)
  clock.set(Date.parse(global))
  const second = await build(t, { ...config, databasePath: path }, { clock })
  const again: Call = async options => await second.inject(options)
  const globalAgain = expect('global clock', await asAdmin(again, 'GET', '/_sandbox/clock'), 200).body.now as string
  const aAfter = await clockOf(again, a)
  // (On PostgreSQL the stored global clock is taken, and it runs: a second of slack.)
  t.ok(Math.abs(seconds(aAfter.now, globalAgain) - 3600) < 1, `A is still an hour ahead of the global clock (${seconds(aAfter.now, globalAgain)} s)`)
  t.same(await clockOf(again, b), bBefore, 'B still stands where the global move put it')
})

t.test('a move of the running global clock moves a frozen organization by exactly as much, however time passes while it moves', async t => {
  // A machine whose time moves a millisecond at every read.
  let machine = Date.UTC(2031, 0, 1)
  const clock = new Clock(() => machine++)
  clock.setOrganization('org-a', { offsetMs: 0, frozenAt: Date.UTC(2031, 5, 1) })
  const before = clock.globalNow()
  clock.advance(7200)
  t.equal(clock.nowFor('org-a'), Date.UTC(2031, 5, 1) + 7_200_000, 'the frozen organization: exactly two hours on')
  const after = clock.globalNow()
  t.ok(after - before >= 7_200_000 && after - before < 7_200_010, `the global clock runs on from two hours later (${after - before} ms)`)
  const shifts: Array<number | undefined> = []
  clock.on('change', (change: { shiftMs?: number }) => shifts.push(change.shiftMs))
  clock.advance(-60)
  t.same(shifts, [-60_000], 'the move it reports (stored for the replicas) is the amount asked')
  t.equal(clock.nowFor('org-a'), Date.UTC(2031, 5, 1) + 7_140_000)
})

t.test('the global clock back on real time moves a frozen organization by exactly its own move, however time passes while it moves', async t => {
  let machine = Date.UTC(2031, 0, 1)
  const clock = new Clock(() => machine++)
  clock.advance(3600)
  clock.setOrganization('org-a', { offsetMs: 0, frozenAt: Date.UTC(2031, 5, 1) })
  const shifts: Array<number | undefined> = []
  clock.on('change', (change: { shiftMs?: number }) => shifts.push(change.shiftMs))
  clock.real()
  t.same(shifts, [-3_600_000], 'the global clock went back by the hour it was ahead, exactly')
  t.equal(clock.nowFor('org-a'), Date.UTC(2031, 5, 1) - 3_600_000, 'and the frozen organization with it')
})
