// The demo history (src/scenarios/history.ts, which npm run demo:history and the history control
// run) in process, its requests through inject: a user with a year of weekly trades and monthly
// deposits, every month's statements answered, a year of historical balance, the clock put back.
import t from 'tap'
import { demoHistory } from '../../src/scenarios/history.js'
import { build } from '../helpers.js'

t.test('a year of history for a demo', async t => {
  const app = await build(t, { serviceName: 'uphold' })
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: true } })
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2030-06-15T12:00:00.000Z' } })
  const request = async (method: string, path: string, { body, headers = {} }: { body?: unknown, headers?: Record<string, string> } = {}) => {
    const res = await app.inject({ method: method as 'GET', url: path, headers, payload: body as string })
    return { status: res.statusCode, json: res.body === '' ? undefined : res.json() }
  }
  const result = await demoHistory({
    request,
    serviceName: 'uphold',
  })
  t.equal(result.from, new Date(Date.parse('2030-06-15T12:00:00.000Z') - 52 * 7 * 24 * 3_600_000).toISOString(), 'a year back')
  t.equal(result.transactions, 13 + 52 + 26 + 6, 'monthly deposits, weekly BTC, fortnightly ETH, a sale every eighth week')
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/clock' })).json(), { now: '2030-06-15T12:00:00.000Z', frozen: true, organizationId: null }, 'the clock is back')

  const token = (await request('POST', '/core/oauth2/token', {
    body: 'grant_type=client_credentials',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('sandbox-demo-client:sandbox-demo-secret').toString('base64')}` }
  })).json.access_token
  const as = async (url: string) => await request('GET', url, { headers: { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${result.userId}` } })

  const overview = await as('/core/portfolio')
  t.equal(overview.status, 200)
  t.same(overview.json.holdings.map((h: { asset: string }) => h.asset), ['BTC', 'ETH', 'GBP'])
  const year = (await as('/core/portfolio/historical-balance?interval=one-year')).json.historicalBalance
  t.ok(year.filter((p: { balance?: unknown }) => p.balance !== undefined).length >= 70, 'a year of points with a balance')
  const performance = (await as('/core/portfolio/performance?interval=all-time')).json.performance
  t.not(performance.unrealizedGains, '0.00', 'the curve moved the prices')
  // Every month from the user's creation to the last complete one has its statements.
  for (let m = 0; m < 12; m++) {
    const month = new Date(Date.UTC(2029, 5 + m, 1))
    const query = `period=one-month&year=${month.getUTCFullYear()}&month=${month.getUTCMonth() + 1}`
    const portfolio = await as(`/core/statements/portfolio?${query}`)
    t.equal(portfolio.status, 200, `${query}: portfolio statement`)
    t.ok(portfolio.json.statement.holdings.length > 0)
    const transactions = await as(`/core/statements/transactions?${query}&perPage=100`)
    t.equal(transactions.status, 200)
    t.ok(transactions.json.statement.transactions.length >= 4, `${query}: a month of transactions`)
  }
})
