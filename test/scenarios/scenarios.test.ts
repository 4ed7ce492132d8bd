// The scenario controls over HTTP: a funded user (real user, KYC, accounts and deposits, seen
// through the public API) and a user with weeks of history.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { accessToken, bearer, build, DEMO_ORG, onBehalfOf } from '../helpers.js'

/** GET as the user, through the demo client acting for it. */
async function asUser (app: FastifyInstance, userId: string, url: string): Promise<any> {
  const res = await app.inject({ method: 'GET', url, headers: { ...bearer(await accessToken(app)), ...onBehalfOf(userId) } })
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

const kycUserCount = async (app: FastifyInstance): Promise<number> =>
  (await app.inject({ method: 'GET', url: '/_sandbox/kyc' })).json().users.length

t.test('a funded user: created, KYC ok, one account per asset credited by a completed deposit', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'POST', url: '/_sandbox/scenarios/funded-user', payload: { assets: { GBP: '1000', BTC: '0.05' } } })
  t.equal(res.statusCode, 201, res.body)
  const { userId, accounts } = res.json()
  t.same(accounts.map((a: { asset: string }) => a.asset), ['GBP', 'BTC'], 'an account per asset, in order')
  t.same(accounts.map((a: { balance: unknown }) => a.balance), [{ total: '1000', available: '1000' }, { total: '0.05', available: '0.05' }])

  const user = await asUser(app, userId, '/core/users/me')
  t.match(user.user, { id: userId, fullName: 'Alex Morgan', address: { country: 'GB', subdivision: 'GB-MAN' } }, 'a user with a full profile')
  t.same((await asUser(app, userId, '/core/kyc')).summary, { status: 'ok', reason: 'none' }, 'KYC ok')
  const listed = (await asUser(app, userId, '/core/accounts')).accounts as Array<{ id: string, asset: string, balance: unknown }>
  t.same(listed.map(a => [a.id, a.asset, a.balance]).sort(), accounts.map((a: { id: string, asset: string, balance: unknown }) => [a.id, a.asset, a.balance]).sort(), 'the public API shows the same accounts and balances')
  const transactions = (await asUser(app, userId, '/core/transactions')).transactions as Array<{ status: string, destination: { asset: string, amount: string } }>
  t.same(transactions.map(x => [x.status, x.destination.asset, x.destination.amount]).sort(), [['completed', 'BTC', '0.05000000'], ['completed', 'GBP', '1000.00']], 'two completed deposits')
})

t.test('a funded user in another organization, with profile overrides', async t => {
  const app = await build(t)
  const organizationId = '8d0f3a1b-9c2e-4f5a-8b6c-7d8e9f0a1b2c'
  const res = await app.inject({
    method: 'POST',
    url: '/_sandbox/scenarios/funded-user',
    payload: { organizationId, assets: { USD: '25.5' }, user: { email: 'funded@example.com', fullName: 'Jane Doe', primaryCitizenship: 'US', address: { country: 'US', subdivision: 'US-NY', city: 'New York', postalCode: '10001' } } }
  })
  t.equal(res.statusCode, 201, res.body)
  t.same(res.json().accounts[0].balance, { total: '25.5', available: '25.5' })
  const orgs = (await app.inject({ method: 'GET', url: '/_sandbox/kyc?organizationId=' + organizationId })).json().users
  t.match(orgs, [{ id: res.json().userId, organizationId, email: 'funded@example.com', summary: { status: 'ok' } }])
  const again = await app.inject({ method: 'POST', url: '/_sandbox/scenarios/funded-user', payload: { organizationId, assets: { USD: '1' }, user: { email: 'funded@example.com' } } })
  t.equal(again.statusCode, 409)
  t.equal(again.json().code, 'email_already_exists', 'the user is checked as POST /core/users checks one')
})

t.test('a funded user: bad assets and amounts are refused before anything is made', async t => {
  const app = await build(t)
  const post = async (payload: unknown) => await app.inject({ method: 'POST', url: '/_sandbox/scenarios/funded-user', payload: payload as object })
  const before = await kycUserCount(app)
  const unknown = await post({ assets: { GBP: '10', NOPE: '1' } })
  t.equal(unknown.statusCode, 404)
  t.match(unknown.json(), { code: 'entity_not_found', details: { entity: 'asset' } })
  const precise = await post({ assets: { GBP: '10.001' } })
  t.equal(precise.statusCode, 409)
  t.match(precise.json(), { code: 'transaction_amount_invalid', details: { property: 'assets.GBP' } })
  t.equal((await post({ assets: { GBP: '0' } })).statusCode, 409)
  t.equal((await post({ assets: {} })).statusCode, 400)
  t.equal((await post({ assets: { GBP: '-1' } })).statusCode, 400)
  t.equal((await post({ assets: { GBP: '1' }, user: { nickname: 'x' } })).statusCode, 400)
  t.equal(await kycUserCount(app), before, 'no user was made')
  const token = await accessToken(app)
  const listed = await app.inject({ method: 'GET', url: '/_sandbox/kyc', headers: bearer(token) })
  t.same(listed.json().users.filter((u: { organizationId: string }) => u.organizationId === DEMO_ORG), [])
})

t.test('the history control: weeks of deposits and trades for a new user, the clock put back', async t => {
  const app = await build(t, { serviceName: 'uphold' })
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2030-06-15T12:00:00.000Z' } })
  const res = await app.inject({ method: 'POST', url: '/_sandbox/scenarios/history', payload: { weeks: 8 } })
  t.equal(res.statusCode, 201, res.body)
  const history = res.json()
  t.equal(history.from, new Date(Date.parse('2030-06-15T12:00:00.000Z') - 8 * 7 * 24 * 3_600_000).toISOString(), 'eight weeks back')
  t.equal(history.transactions, 2 + 8 + 4 + 1, 'two deposits, weekly BTC, fortnightly ETH, one sale')
  t.same(Object.keys(history.accounts).sort(), ['BTC', 'ETH', 'GBP'])
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/clock' })).json(), { now: '2030-06-15T12:00:00.000Z', frozen: true, organizationId: null }, 'the clock is back')

  const transactions = (await asUser(app, history.userId, '/core/transactions?perPage=100')).transactions as Array<{ status: string }>
  t.equal(transactions.length, history.transactions, 'the public API lists them')
  t.ok(transactions.every(x => x.status === 'completed'), 'all completed')
  const gbp = (await asUser(app, history.userId, `/core/accounts/${history.accounts.GBP}`)).account.balance
  // 2000 deposited, 8 x 100 and 4 x 50 spent, 200 received for the BTC sold.
  t.same(gbp, { total: '1200', available: '1200' })
  t.same((await asUser(app, history.userId, '/core/portfolio')).holdings.map((h: { asset: string }) => h.asset), ['BTC', 'ETH', 'GBP'])
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/scenarios/history', payload: { weeks: 0 } })).statusCode, 400)
})
