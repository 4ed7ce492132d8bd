// A known history (deposits and trades at pinned prices on a moved clock) and every figure of the
// overview, performance, historical balances and both statements, against values computed here
// by hand from the history's steps: the amounts it moved, the prices pinned, the instants.
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { changeTransactionStatus, ledgerOf } from '../../src/transactions/service.js'
import { DEMO_ORG, waitFor } from '../helpers.js'
import { Decimal, history, type History } from './support.js'
import type { DecimalValue } from '../../src/money/decimal.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const T0 = Date.UTC(2030, 0, 15, 10) // the user is created; GBP 1000 deposited
const T1 = Date.UTC(2030, 0, 16, 10) // GBP 500 -> BTC, completed 5 s later
const T2 = Date.UTC(2030, 0, 20, 10) // ETH 1.5 deposited
const T3 = Date.UTC(2030, 1, 10, 10) // BTC 0.005 -> GBP, completed at T3C
const T3C = Date.UTC(2030, 1, 10, 13)
const N = Date.UTC(2030, 2, 5, 12) // now
const PN = N - 2 * HOUR // the last prices

/** The USD mid prices pinned, by the instant they were pinned. */
const PRICES: Array<[number, Record<string, string>]> = [
  [T0, { GBP: '1.25', BTC: '40000', ETH: '2000' }],
  [T1, { BTC: '50000' }],
  [T2, { ETH: '2500' }],
  [T3, { BTC: '60000', GBP: '1.2' }],
  [PN, { BTC: '70000', GBP: '1.3', ETH: '2000' }]
]
const usdAt = (asset: string, ms: number): Decimal => {
  if (asset === 'USD') return new Decimal(1)
  let price: string | undefined
  for (const [at, prices] of PRICES) if (at <= ms && prices[asset] !== undefined) price = prices[asset]
  return new Decimal(price!)
}
/** An amount of `asset` in USD at `ms`, cut toward zero to cents. */
const usd = (asset: string, amount: DecimalValue, ms: number): Decimal => usdAt(asset, ms).times(amount).toDecimalPlaces(2, Decimal.ROUND_DOWN)
const text2 = (d: Decimal): string => d.toDecimalPlaces(2, Decimal.ROUND_DOWN).toFixed(2)
const sum = (values: Decimal[]): Decimal => values.reduce((a, b) => a.plus(b), new Decimal(0))

interface Built extends History { b1: string, g3: string, ids: { gbp: string, buy: string, eth: string, sell: string } }

async function build (t: Test): Promise<Built> {
  const h = await history(t, T0)
  const pinAll = async (prices: Record<string, string>) => { for (const [asset, mid] of Object.entries(prices)) await h.pin(asset, mid) }
  const settled = async (id: string, ms: number) => {
    await h.at(ms)
    await waitFor(async () => (await ledgerOf(h.app).get(undefined, id))?.status === 'completed', { what: `${id} completed` })
  }
  const newest = async () => (await ledgerOf(h.app).listForUser(DEMO_ORG, h.user, 0, 1))[0].id

  await pinAll(PRICES[0][1])
  await h.fund('GBP', '1000.00')
  const gbp = await newest()
  await h.at(T1)
  await pinAll(PRICES[1][1])
  const buy = await h.trade('GBP', 'BTC', '500')
  await settled(buy.id, T1 + 5000)
  await h.at(T2)
  await pinAll(PRICES[2][1])
  await h.fund('ETH', '1.5')
  const eth = await newest()
  await h.at(T3)
  await pinAll(PRICES[3][1])
  const sell = await h.trade('BTC', 'GBP', '0.005')
  await settled(sell.id, T3C)
  await h.at(PN)
  await pinAll(PRICES[4][1])
  await h.at(N)
  return { ...h, b1: buy.destination.amount, g3: sell.destination.amount, ids: { gbp, buy: buy.id, eth, sell: sell.id } }
}

t.test('a known history: every figure by hand', async t => {
  const h = await build(t)
  const b1 = new Decimal(h.b1)
  const g3 = new Decimal(h.g3)
  t.match(h.b1, /^0\.0\d{7}$/, 'the buy got BTC')
  t.match(h.g3, /^\d+\.\d{2}$/, 'the sale got GBP')

  // What each account held (total, available) at an instant, from the history's steps.
  const held = (ms: number): Record<string, [Decimal, Decimal] | undefined> => {
    const gbp: [Decimal, Decimal] | undefined = ms < T0 ? undefined : ms < T1 ? [new Decimal(1000), new Decimal(1000)] : ms < T1 + 5000 ? [new Decimal(1000), new Decimal(500)] : ms < T3C ? [new Decimal(500), new Decimal(500)] : [g3.plus(500), g3.plus(500)]
    const btc: [Decimal, Decimal] | undefined = ms < T1 + 5000 ? undefined : ms < T3 ? [b1, b1] : ms < T3C ? [b1, b1.minus('0.005')] : [b1.minus('0.005'), b1.minus('0.005')]
    const eth: [Decimal, Decimal] | undefined = ms < T2 ? undefined : [new Decimal('1.5'), new Decimal('1.5')]
    return { GBP: gbp, BTC: btc, ETH: eth }
  }

  // ---- Overview ----
  const now = held(N)
  const holdings = (['BTC', 'ETH', 'GBP'] as const).map(asset => ({ asset, total: usd(asset, now[asset]![0], N), available: usd(asset, now[asset]![1], N) }))
  const overview = await h.as('GET', '/core/portfolio?includeBase=true')
  t.equal(overview.statusCode, 200)
  t.same(overview.json(), {
    summary: { total: text2(sum(holdings.map(x => x.total))), available: text2(sum(holdings.map(x => x.available))) },
    holdings: [
      { asset: 'BTC', total: text2(holdings[0].total), available: text2(holdings[0].available), baseTotal: b1.minus('0.005').toFixed(8), baseAvailable: b1.minus('0.005').toFixed(8) },
      { asset: 'ETH', total: '3000.00', available: '3000.00', baseTotal: '1.500000000000000000', baseAvailable: '1.500000000000000000' },
      { asset: 'GBP', total: text2(holdings[2].total), available: text2(holdings[2].available), baseTotal: g3.plus(500).toFixed(2), baseAvailable: g3.plus(500).toFixed(2) }
    ]
  }, 'overview in USD, with base amounts')
  // In GBP: each value is amount × (USD mid ÷ GBP's USD mid), cut to pence.
  const inGbp = (asset: string, amount: Decimal) => usdAt(asset, N).div('1.3').times(amount).toDecimalPlaces(2, Decimal.ROUND_DOWN)
  const gbpValues = [inGbp('BTC', b1.minus('0.005')), inGbp('ETH', new Decimal('1.5')), g3.plus(500)]
  t.same((await h.as('GET', '/core/portfolio?denomination=GBP')).json(), {
    summary: { total: text2(sum(gbpValues)), available: text2(sum(gbpValues)) },
    holdings: [
      { asset: 'BTC', total: text2(gbpValues[0]), available: text2(gbpValues[0]) },
      { asset: 'ETH', total: text2(gbpValues[1]), available: text2(gbpValues[1]) },
      { asset: 'GBP', total: text2(gbpValues[2]), available: text2(gbpValues[2]) }
    ]
  }, 'overview in GBP, without base amounts')

  // ---- Performance, all time (average cost) ----
  // GBP: 1000 deposited at 1.25 (cost 1250); 500 left at T1 (cost halves to 625); g3 arrived at T3C, paid with 0.005 BTC at 60000 (cost + 300).
  const gbpCost = new Decimal(625).plus(new Decimal('0.005').times(60000))
  const gbpUnits = g3.plus(500)
  // BTC: b1 bought with GBP 500 at 1.25 (cost 625); 0.005 sold at T3C: cost × (1 - 0.005 / b1).
  const btcUnits = b1.minus('0.005')
  const btcCost = new Decimal(625).minus(new Decimal(625).times('0.005').div(b1))
  // ETH: 1.5 deposited at 2500.
  const ethCost = new Decimal(3750)
  const perf = (units: Decimal, cost: Decimal, price: DecimalValue) => ({
    averagePricePaid: text2(cost.div(units)),
    totalInvested: text2(cost),
    unrealizedGains: text2(units.times(price).minus(cost))
  })
  // An asset's figures are answered as computed; an account's, and the portfolio's, cut to cents.
  const exact = (units: Decimal, cost: Decimal, price: DecimalValue) => ({
    averagePricePaid: cost.div(units).toFixed(),
    totalInvested: cost.toFixed(),
    unrealizedGains: units.times(price).minus(cost).toFixed()
  })
  const allTimeExact = { BTC: exact(btcUnits, btcCost, 70000), ETH: exact(new Decimal('1.5'), ethCost, 2000), GBP: exact(gbpUnits, gbpCost, '1.3') }
  const allTime = { BTC: perf(btcUnits, btcCost, 70000), ETH: perf(new Decimal('1.5'), ethCost, 2000), GBP: perf(gbpUnits, gbpCost, '1.3') }
  t.same(allTimeExact.ETH, { averagePricePaid: '2500', totalInvested: '3750', unrealizedGains: '-750' })
  t.not(allTimeExact.BTC.averagePricePaid, allTime.BTC.averagePricePaid, 'the BTC figures are not whole cents')
  t.same(allTime.ETH, { averagePricePaid: '2500.00', totalInvested: '3750.00', unrealizedGains: '-750.00' })
  for (const asset of ['BTC', 'ETH', 'GBP'] as const) {
    t.same((await h.as('GET', `/core/portfolio/assets/${asset}/performance?interval=all-time`)).json(), { performance: allTimeExact[asset] }, `${asset} all time`)
    t.same((await h.as('GET', `/core/portfolio/accounts/${h.accounts[asset]}/performance?interval=all-time`)).json(), { performance: allTime[asset] }, `${asset} account all time`)
  }
  const totals = (p: Record<string, { totalInvested: string, unrealizedGains: string }>) => ({
    totalInvested: text2(sum(Object.values(p).map(x => new Decimal(x.totalInvested)))),
    unrealizedGains: text2(sum(Object.values(p).map(x => new Decimal(x.unrealizedGains))))
  })
  t.same((await h.as('GET', '/core/portfolio/performance?interval=all-time')).json(), { performance: totals(allTime) }, 'the portfolio sums its assets')

  // ---- Performance over the last day (the default) and hour ----
  // A day ago the prices were those of T3 (BTC 60000, GBP 1.2, ETH 2500): the units held count as bought then.
  const oneDay = { BTC: perf(btcUnits, btcUnits.times(60000), 70000), ETH: perf(new Decimal('1.5'), new Decimal(3750), 2000), GBP: perf(gbpUnits, gbpUnits.times('1.2'), '1.3') }
  const oneDayExact = { BTC: exact(btcUnits, btcUnits.times(60000), 70000), ETH: exact(new Decimal('1.5'), new Decimal(3750), 2000), GBP: exact(gbpUnits, gbpUnits.times('1.2'), '1.3') }
  t.same((await h.as('GET', '/core/portfolio/performance')).json(), { performance: totals(oneDay) }, 'one day by default')
  t.same((await h.as('POST', '/core/portfolio/assets/_mget/performance', { payload: { codes: ['BTC', 'ETH', 'GBP', 'USD', 'NOPE'] } })).json(), {
    performance: { ...oneDayExact, USD: { averagePricePaid: '0', totalInvested: '0', unrealizedGains: '0' } }
  }, 'many assets, by code; an asset never held is zeros, an unknown code is left out')
  t.same((await h.as('POST', '/core/portfolio/accounts/_mget/performance', { payload: { ids: [h.accounts.BTC, h.accounts.GBP, randomUUID()] } })).json(), {
    performance: { [h.accounts.BTC]: oneDay.BTC, [h.accounts.GBP]: oneDay.GBP }
  }, 'many accounts, by id; another id is left out')
  // An hour ago the last prices were in force already: no gains.
  const oneHour = { BTC: perf(btcUnits, btcUnits.times(70000), 70000), ETH: perf(new Decimal('1.5'), new Decimal(3000), 2000), GBP: perf(gbpUnits, gbpUnits.times('1.3'), '1.3') }
  const oneHourExact = { BTC: exact(btcUnits, btcUnits.times(70000), 70000), ETH: exact(new Decimal('1.5'), new Decimal(3000), 2000), GBP: exact(gbpUnits, gbpUnits.times('1.3'), '1.3') }
  t.same((await h.as('POST', '/core/portfolio/assets/_mget/performance?interval=one-hour', { payload: { codes: ['BTC', 'ETH', 'GBP'] } })).json(), { performance: oneHourExact })
  t.same((await h.as('GET', '/core/portfolio/performance?interval=one-hour')).json(), { performance: totals(oneHour) })

  // ---- Historical balances ----
  // one-month: every 12 hours (multiples since the epoch) in (N - 30 days, N].
  // The multiples of the step (counted from the epoch) in (N - length, N].
  const instants = (length: number, step: number) => {
    const out: number[] = []
    for (let ms = (Math.floor((N - length) / step) + 1) * step; ms <= N; ms += step) out.push(ms)
    return out
  }
  const value = (ms: number, assets: string[], column: 0 | 1) => sum(assets.map(a => { const x = held(ms)[a]; return x === undefined ? new Decimal(0) : usd(a, x[column], ms) }))
  const month = instants(30 * DAY, 12 * HOUR)
  t.equal(month.length, 60)
  t.ok(month.includes(Date.UTC(2030, 1, 10, 12)), 'a point falls while the sale was pending')
  t.same((await h.as('GET', '/core/portfolio/historical-balance?interval=one-month')).json(), {
    historicalBalance: month.map(ms => ({ timestamp: new Date(ms).toISOString(), balance: { total: text2(value(ms, ['BTC', 'ETH', 'GBP'], 0)), available: text2(value(ms, ['BTC', 'ETH', 'GBP'], 1)) } }))
  }, 'the portfolio over a month')
  const pending = (await h.as('GET', '/core/portfolio/historical-balance?interval=one-month')).json().historicalBalance.find((p: { timestamp: string }) => p.timestamp === '2030-02-10T12:00:00.000Z')
  t.not(pending.balance.total, pending.balance.available, 'the hold shows in available only')

  t.same((await h.as('GET', '/core/portfolio/assets/BTC/historical-balance?interval=one-month&includeBase=true')).json(), {
    historicalBalance: month.map(ms => ({
      timestamp: new Date(ms).toISOString(),
      balance: { total: text2(value(ms, ['BTC'], 0)), available: text2(value(ms, ['BTC'], 1)), baseTotal: held(ms).BTC![0].toFixed(8), baseAvailable: held(ms).BTC![1].toFixed(8) }
    }))
  }, 'BTC over a month, with base amounts')

  // one-year: every 5 days; the ETH account has no balance before its deposit at T2.
  const yearPoints = instants(365 * DAY, 5 * DAY)
  const ethYear = (await h.as('GET', `/core/portfolio/accounts/${h.accounts.ETH}/historical-balance?interval=one-year`)).json().historicalBalance
  t.same(ethYear, yearPoints.map(ms => ms < T2
    ? { timestamp: new Date(ms).toISOString() }
    : { timestamp: new Date(ms).toISOString(), balance: { total: text2(value(ms, ['ETH'], 0)), available: text2(value(ms, ['ETH'], 1)) } }))
  t.ok(ethYear.some((p: { balance?: unknown }) => p.balance === undefined) && ethYear.at(-1).balance !== undefined, 'absent before the first posting, present after')

  // ---- Portfolio statements ----
  const janEnd = Date.UTC(2030, 1, 1) - 1
  t.same((await h.as('GET', '/core/statements/portfolio?period=one-month&year=2030&month=1')).json(), {
    statement: {
      period: { from: '2030-01-01T00:00:00.000Z', to: '2030-01-31T23:59:59.999Z' },
      rates: { 'BTC-USD': '50000', 'ETH-USD': '2500', 'GBP-USD': '1.25' },
      holdings: [{ asset: 'BTC', total: h.b1 }, { asset: 'ETH', total: '1.500000000000000000' }, { asset: 'GBP', total: '500.00' }]
    }
  }, 'January')
  t.ok(held(janEnd).BTC !== undefined)
  t.same((await h.as('GET', '/core/statements/portfolio?period=one-month&year=2030&month=2&denomination=GBP')).json(), {
    statement: {
      period: { from: '2030-02-01T00:00:00.000Z', to: '2030-02-28T23:59:59.999Z' },
      rates: { 'BTC-GBP': '50000', 'ETH-GBP': new Decimal(2500).div('1.2').toSignificantDigits(20).toFixed(), 'GBP-GBP': '1' },
      holdings: [{ asset: 'BTC', total: btcUnits.toFixed(8) }, { asset: 'ETH', total: '1.500000000000000000' }, { asset: 'GBP', total: gbpUnits.toFixed(2) }]
    }
  }, 'February, rates in GBP')

  // ---- Transactions statements ----
  // Each transaction as core.get-transaction answers it.
  const view = async (id: string) => (await h.as('GET', `/core/transactions/${id}`)).json().transaction
  const page1 = await h.as('GET', '/core/statements/transactions?period=one-month&year=2030&month=1&perPage=2')
  t.equal(page1.statusCode, 200)
  const base = 'http://localhost:80/core/statements/transactions?period=one-month&year=2030&month=1'
  t.same(page1.json(), {
    statement: {
      period: { from: '2030-01-01T00:00:00.000Z', to: '2030-01-31T23:59:59.999Z' },
      transactions: [
        { rates: { 'ETH-USD': '2500' }, transaction: await view(h.ids.eth) },
        { rates: { 'GBP-USD': '1.25', 'BTC-USD': '50000' }, transaction: await view(h.ids.buy) }
      ]
    },
    pagination: { first: `${base}&perPage=2&page=1`, next: `${base}&perPage=2&page=2` }
  }, 'January, newest completion first, a page at a time')
  const [eth, buy] = page1.json().statement.transactions.map((x: { transaction: unknown }) => x.transaction)
  t.match(eth, { id: h.ids.eth, status: 'completed', completedAt: new Date(T2).toISOString(), destination: { asset: 'ETH', amount: '1.5' } })
  t.match(buy, { id: h.ids.buy, status: 'completed', createdAt: new Date(T1).toISOString(), completedAt: new Date(T1 + 5000).toISOString(), origin: { asset: 'GBP', amount: '500.00' }, destination: { asset: 'BTC', amount: h.b1 } })
  t.same((await h.as('GET', '/core/statements/transactions?period=one-month&year=2030&month=1&perPage=2&page=2')).json(), {
    statement: {
      period: { from: '2030-01-01T00:00:00.000Z', to: '2030-01-31T23:59:59.999Z' },
      transactions: [{ rates: { 'GBP-USD': '1.25' }, transaction: await view(h.ids.gbp) }]
    },
    pagination: { first: `${base}&perPage=2&page=1`, prev: `${base}&perPage=2&page=1` }
  }, 'the last page')
  t.same((await h.as('GET', '/core/statements/transactions?period=one-month&year=2030&month=2&denomination=GBP')).json().statement.transactions, [
    { rates: { 'BTC-GBP': '50000', 'GBP-GBP': '1' }, transaction: await view(h.ids.sell) }
  ], 'February: the sale, completed at T3C, rates in GBP')
})

t.test('statement periods: complete by the clock, not before the user; denominations', async t => {
  const h = await history(t, T0)
  await h.pin('GBP', '1.25')
  const statement = (query: string) => h.as('GET', `/core/statements/portfolio?period=one-month&${query}`)
  const notComplete = { code: 'date_invalid', message: 'The statement period is not yet complete', details: { context: 'query' } }
  const predates = { code: 'date_invalid', message: 'The statement period predates the user creation date', details: { context: 'query' } }
  t.same((await statement('year=2030&month=1')).json(), notComplete, 'the current month')
  t.same((await statement('year=2031&month=1')).json(), notComplete, 'a future month')
  t.same((await statement('year=2029&month=12')).json(), predates, 'before the user')
  for (const url of ['/core/statements/transactions?period=one-month&year=2030&month=1', '/core/statements/transactions?period=one-month&year=2029&month=12']) {
    t.equal((await h.as('GET', url)).json().code, 'date_invalid')
  }
  await h.at(Date.UTC(2030, 1, 1))
  const empty = await statement('year=2030&month=1')
  t.equal(empty.statusCode, 200, 'complete at the first instant of the next month; the month of creation is allowed')
  t.same(empty.json().statement, { period: { from: '2030-01-01T00:00:00.000Z', to: '2030-01-31T23:59:59.999Z' }, rates: {}, holdings: [] })
  t.same((await h.as('GET', '/core/statements/transactions?period=one-month&year=2030&month=1')).json().statement.transactions, [])
  t.equal((await statement('year=2030&month=13')).statusCode, 400)
  t.equal((await statement('year=2030')).statusCode, 400)

  const unsupported = { code: 'asset_not_supported', message: 'The denomination asset is not supported', details: { context: 'query', property: 'denomination' } }
  t.same((await statement('year=2030&month=1&denomination=NOPE')).json(), unsupported, 'statements: an unknown denomination is 409')
  const notFound = { code: 'entity_not_found', message: 'The denomination asset cannot be found', details: { context: 'query', property: 'denomination', entity: 'asset' } }
  t.equal((await h.app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { assets: [{ code: 'NOPRICE', name: 'No price', type: 'crypto', decimals: 2, features: ['buy'] }] } })).statusCode, 201)
  for (const url of ['/core/portfolio', '/core/portfolio/performance', '/core/portfolio/historical-balance', '/core/portfolio/assets/BTC/performance']) {
    const nope = await h.as('GET', `${url}?denomination=NOPE`)
    t.equal(nope.statusCode, 404)
    t.same(nope.json(), notFound, `${url}: unknown denomination`)
    const noPrice = await h.as('GET', `${url}?denomination=NOPRICE`)
    t.equal(noPrice.statusCode, 409)
    t.same(noPrice.json(), unsupported, `${url}: a denomination without a price`)
  }
  t.same((await h.as('GET', '/core/portfolio/assets/BTC/historical-balance?denomination=NOPRICE')).json(), { ...unsupported, details: { ...unsupported.details, entity: 'asset' } })
  t.same((await h.as('GET', '/core/statements/portfolio?period=one-month&year=2030&month=1&denomination=NOPRICE')).json(), unsupported)
  t.same((await h.as('GET', '/core/portfolio/assets/NOPE/performance')).json(), { code: 'entity_not_found', message: 'The asset cannot be found', details: { entity: 'asset' } })
  t.same((await h.as('GET', '/core/portfolio/assets/NOPE/historical-balance')).json(), { code: 'entity_not_found', message: 'The asset cannot be found', details: { entity: 'asset' } })
  for (const url of [`/core/portfolio/accounts/${randomUUID()}/performance`, `/core/portfolio/accounts/${randomUUID()}/historical-balance`]) {
    t.same((await h.as('GET', url)).json(), { code: 'entity_not_found', message: 'The account cannot be found', details: { entity: 'account' } })
  }
  // Another user's account is not the acting user's.
  t.equal((await h.call('GET', `/core/portfolio/accounts/${h.accounts.BTC}/historical-balance`)).statusCode, 404)
  t.equal((await h.as('POST', '/core/portfolio/accounts/_mget/performance', { payload: { ids: [] } })).statusCode, 400)
  t.equal((await h.as('GET', '/core/portfolio/performance?interval=one-week')).statusCode, 400)
  // A new user: every series point without a balance, zeros everywhere else.
  t.same((await h.call('GET', '/core/portfolio')).json(), { summary: { total: '0.00', available: '0.00' }, holdings: [] })
  t.ok((await h.call('GET', '/core/portfolio/historical-balance?interval=one-hour')).json().historicalBalance.every((p: { balance?: unknown }) => p.balance === undefined))
})

t.test('performance is for individual users; the rest for any user; a client is refused', async t => {
  const h = await history(t, T0)
  const id = randomUUID()
  const now = h.app.clock.iso()
  const business = { id, type: 'business', email: `${id}@example.com`, name: 'ACME', address: { country: 'US' }, createdAt: now, updatedAt: now }
  await h.app.storage.users.create({ id, organizationId: DEMO_ORG, email: business.email, record: business, createdAt: now }, [])
  for (const url of ['/core/portfolio/performance', '/core/portfolio/assets/BTC/performance', `/core/portfolio/accounts/${randomUUID()}/performance`]) {
    const res = await h.as('GET', url, { user: id })
    t.equal(res.statusCode, 403, url)
    t.equal(res.json().code, 'token_subject_not_allowed')
  }
  t.equal((await h.as('POST', '/core/portfolio/assets/_mget/performance', { user: id, payload: { codes: ['BTC'] } })).statusCode, 403)
  t.equal((await h.as('GET', '/core/portfolio', { user: id })).statusCode, 200)
  t.equal((await h.as('GET', '/core/portfolio/historical-balance', { user: id })).statusCode, 200)
  t.equal((await h.as('GET', '/core/portfolio', { user: null })).statusCode, 403)
  t.equal((await h.as('GET', '/core/statements/portfolio?period=one-month&year=2029&month=1', { user: null })).statusCode, 403)
})

t.test('the transactions statement lists completed transactions only, by completion month', async t => {
  const h = await history(t, T0)
  await h.pin('GBP', '1.25')
  await h.pin('BTC', '50000')
  await h.fund('GBP', '1000')
  const failed = await h.trade('GBP', 'BTC', '100')
  t.match(await changeTransactionStatus(h.app, failed.id, 'failed'), { status: 'failed' })
  // Created on January 31st, completed on February 1st: February's.
  await h.at(Date.UTC(2030, 1, 1) - 2000)
  const late = await h.trade('GBP', 'BTC', '100')
  await h.at(Date.UTC(2030, 1, 1) + 3000)
  await waitFor(async () => (await ledgerOf(h.app).get(undefined, late.id))?.status === 'completed')
  const pending = await h.trade('GBP', 'BTC', '100')
  await h.at(Date.UTC(2030, 2, 1))
  await waitFor(async () => (await ledgerOf(h.app).get(undefined, pending.id))?.status === 'completed', { what: 'completed when the clock moved' })
  const ids = async (month: number) => (await h.as('GET', `/core/statements/transactions?period=one-month&year=2030&month=${month}`)).json()
    .statement.transactions.map((x: { transaction: { id: string } }) => x.transaction.id)
  const january = await ids(1)
  t.equal(january.length, 1, 'January: the deposit only')
  t.notOk(january.includes(failed.id), 'a failed transaction moved nothing')
  t.same(await ids(2), [late.id], 'February: created in January, completed in February')
  await h.at(Date.UTC(2030, 3, 1))
  t.same(await ids(3), [pending.id], 'March: completed when the clock reached March 1st')
  // January's portfolio statement: the failed trade's hold is released, the late one not yet debited.
  t.same((await h.as('GET', '/core/statements/portfolio?period=one-month&year=2030&month=1')).json().statement.holdings, [{ asset: 'GBP', total: '1000.00' }])
})

t.test('bad inputs are 400 request_invalid, never a 5xx', async t => {
  const h = await history(t, T0)
  const bad: Array<[string, string, unknown?]> = [
    ['GET', '/core/portfolio?includeBase=maybe'],
    ['GET', '/core/portfolio?denomination='],
    ['GET', '/core/portfolio/historical-balance?interval=five-years'],
    ['GET', '/core/portfolio/accounts/not-a-uuid/performance'],
    ['GET', '/core/portfolio/accounts/not-a-uuid/historical-balance'],
    ['POST', '/core/portfolio/assets/_mget/performance', { codes: [] }],
    ['POST', '/core/portfolio/assets/_mget/performance', { codes: Array.from({ length: 101 }, (_, i) => `A${i}`) }],
    ['POST', '/core/portfolio/assets/_mget/performance', {}],
    ['POST', '/core/portfolio/accounts/_mget/performance', { ids: ['nope'] }],
    ['GET', '/core/statements/portfolio?period=one-week&year=2030&month=1'],
    ['GET', '/core/statements/portfolio?period=one-month&year=abc&month=1'],
    ['GET', '/core/statements/portfolio?period=one-month&year=2009&month=1'],
    ['GET', '/core/statements/transactions?period=one-month&year=2030&month=1&perPage=101'],
    ['GET', '/core/statements/transactions?period=one-month&year=2030&month=1&page=0']
  ]
  for (const [method, url, payload] of bad) {
    const res = await h.as(method as 'GET', url, payload === undefined ? {} : { payload })
    t.equal(res.statusCode, 400, `${method} ${url}`)
    t.equal(res.json().code, 'request_invalid')
  }
})
