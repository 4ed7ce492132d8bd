// For random histories (deposits, trades left pending or settled, prices pinned between them),
// the overview's holdings are the ledger's balances: one per asset with a total, the sum of its
// accounts' total and available, and the summary is the sum of the holdings' values.
import t from 'tap'
import fc from 'fast-check'
import { ledgerOf } from '../../src/transactions/service.js'
import { Decimal, historyApp } from './support.js'

const DECIMALS: Record<string, number> = { GBP: 2, BTC: 8, ETH: 18, USD: 2 }
const asset = fc.constantFrom('GBP', 'BTC', 'ETH', 'USD')

// At least 10 of a bank deposit's asset (the deposit helpers' minimum).
const deposit = fc.record({ kind: fc.constant('deposit' as const), asset, units: fc.integer({ min: 1000, max: 1_000_000 }) })
const step = fc.oneof(
  { arbitrary: deposit, weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('trade' as const), from: asset, to: asset, percent: fc.integer({ min: 1, max: 100 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('settle' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('pin' as const), asset: fc.constantFrom('GBP', 'BTC', 'ETH'), percent: fc.integer({ min: 50, max: 150 }) }), weight: 1 }
)
// Every history starts with two deposits, so that most trades have funds to spend.
const steps = fc.tuple(deposit, deposit, fc.array(step, { minLength: 1, maxLength: 8 })).map(([a, b, rest]) => [a, b, ...rest])
const BASE: Record<string, string> = { GBP: '1.25', BTC: '50000', ETH: '2500' }

t.test('the overview\'s holdings equal the ledger\'s balances', async t => {
  const h = await historyApp(t, Date.UTC(2030, 0, 15, 10), 'throw')
  let runs = 0
  let trades = 0
  let pending = 0
  // Each history's checks throw rather than assert, so that fast-check shrinks a failing history to
  // its smallest and the file makes the same number of assertions in every run.
  await t.resolves(fc.assert(fc.asyncProperty(steps, async history => {
    runs++
    const u = await h.newUser()
    const ledger = ledgerOf(h.app)
    for (const s of history) {
      if (s.kind === 'deposit') {
        // Up to 10 000 GBP or USD, 0.1 BTC, 1 ETH, in the asset's smallest units of a few decimals.
        await u.fund(s.asset, new Decimal(s.units).div(s.asset === 'BTC' ? 1e7 : s.asset === 'ETH' ? 1e6 : 100).toFixed())
      } else if (s.kind === 'trade') {
        if (s.from === s.to) continue
        const available = new Decimal((await ledger.balance(u.accounts[s.from])).available)
        const amount = available.times(s.percent).div(100).toDecimalPlaces(DECIMALS[s.from], Decimal.ROUND_DOWN)
        if (amount.isZero()) continue
        // A quote the pricing refuses (too small for the destination) changes nothing; any other
        // failure (a transaction refused, an answer off the document) fails the history.
        const refused = (error: Error): undefined => { if (error.message.startsWith('quote: ')) return undefined; throw error }
        if (await u.trade(s.from, s.to, amount.toFixed()).catch(refused) !== undefined) trades++
      } else if (s.kind === 'settle') {
        await h.advance(6)
      } else {
        await h.pin(s.asset, new Decimal(BASE[s.asset]).times(s.percent).div(100).toFixed())
      }
      await h.advance(1)
    }

    const expected = new Map<string, { total: Decimal, available: Decimal }>()
    for (const b of await ledger.userBalances(u.user)) {
      const e = expected.get(b.asset) ?? { total: new Decimal(0), available: new Decimal(0) }
      expected.set(b.asset, { total: e.total.plus(b.total), available: e.available.plus(b.available) })
    }
    const res = await u.as('GET', '/core/portfolio?includeBase=true')
    const problems: string[] = []
    const check = (holds: boolean, what: string): void => { if (!holds) problems.push(what) }
    check(res.statusCode === 200, `status ${res.statusCode}, not 200: ${res.body}`)
    const overview = res.json() as { summary: { total: string, available: string }, holdings: Array<{ asset: string, total: string, available: string, baseTotal: string, baseAvailable: string }> }
    const held = [...expected.entries()].filter(([, b]) => !b.total.isZero()).sort(([a], [b]) => a < b ? -1 : 1)
    const assets = overview.holdings.map(x => x.asset).join(',')
    check(assets === held.map(([a]) => a).join(','), `one holding per asset with a total: ${assets} against ${held.map(([a]) => a).join(',')}`)
    if (held.some(([, b]) => !b.total.eq(b.available))) pending++
    for (const [code, b] of held) {
      const holding = overview.holdings.find(x => x.asset === code)
      if (holding === undefined) continue
      check(new Decimal(holding.baseTotal).eq(b.total), `${code}: total ${holding.baseTotal} = ${b.total.toFixed()}`)
      check(new Decimal(holding.baseAvailable).eq(b.available), `${code}: available ${holding.baseAvailable} = ${b.available.toFixed()}`)
      check(new Decimal(holding.available).lte(holding.total), `${code}: available value ${holding.available} <= total value ${holding.total}`)
    }
    const sum = (k: 'total' | 'available') => overview.holdings.reduce((a, x) => a.plus(x[k]), new Decimal(0)).toFixed(2)
    check(overview.summary?.total === sum('total') && overview.summary?.available === sum('available'),
      `the summary sums the holdings: ${JSON.stringify(overview.summary)} against ${sum('total')} and ${sum('available')}`)
    if (problems.length > 0) throw new Error(problems.join('\n'))
  }), { numRuns: 30 }))
  t.equal(runs, 30)
  t.ok(trades > 0, `${trades} trades committed`)
  t.ok(pending > 0, `${pending} histories end with funds held`)
})
