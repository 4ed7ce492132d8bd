import t from 'tap'
import fc from 'fast-check'
import { Decimal } from '../../src/money/decimal.js'
import { Catalogue, noChanges } from '../../src/catalogue/catalogue.js'
import { ASSETS } from '../../src/catalogue/data.js'
import { INTERVALS, crossRate, history, historyInstants, marketCap, priceDelta, usdMid, usdQuote } from '../../src/catalogue/prices.js'
import { RATE_INTERVALS } from '../../schemas/catalogue.js'

const catalogue = new Catalogue([])
const codes = ASSETS.map(a => a.code)
const code = fc.constantFrom(...codes)
// Any instant from 1990 to 2100.
const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) })

t.test('bid <= mid <= ask for every pair, at any instant', async t => {
  fc.assert(fc.property(code, code, instant, (a, d, ms) => {
    const rate = crossRate(catalogue, a, d, ms)!
    const [bid, mid, ask] = [rate.bid!, rate.mid, rate.ask!].map(v => new Decimal(v))
    return bid.lte(mid) && mid.lte(ask) && bid.gt(0)
  }), { numRuns: 2000 })
  // And every pair at one instant, exhaustively.
  const now = Date.UTC(2026, 10, 24, 12)
  for (const a of codes) {
    for (const d of codes) {
      const r = crossRate(catalogue, a, d, now)!
      t.ok(new Decimal(r.bid!).lte(r.mid) && new Decimal(r.mid).lte(r.ask!), `${a}-${d}`)
    }
  }
})

t.test('the same instant gives the same rates, in another catalogue and another run', async t => {
  const other = new Catalogue(['CU'])
  fc.assert(fc.property(code, code, instant, (a, d, ms) =>
    JSON.stringify(crossRate(catalogue, a, d, ms)) === JSON.stringify(crossRate(other, a, d, ms))))
  // Pinned numbers, so a change of the model is seen as one.
  const ms = Date.UTC(2026, 0, 1)
  t.same(crossRate(catalogue, 'USD', 'USD', ms), { bid: '1', ask: '1', mid: '1' })
  t.equal(usdMid(catalogue, 'USD', ms)!.toFixed(), '1', 'USD is the base')
  const btc = usdMid(catalogue, 'BTC', ms)!
  t.ok(btc.gt(62000 * Math.exp(-0.35)) && btc.lt(62000 * Math.exp(0.35)), 'within the curve\'s bounds')
})

t.test('rates are decimal strings with a sensible number of digits; the spread follows the asset type', async t => {
  const ms = Date.UTC(2026, 5, 1)
  const rate = crossRate(catalogue, 'BTC', 'GBP', ms)!
  for (const v of Object.values(rate)) t.match(v, /^\d+(\.\d+)?$/)
  const btc = usdQuote(catalogue, 'BTC', ms)!
  t.equal(btc.ask.minus(btc.bid).div(btc.mid).toFixed(), '0.005', 'crypto: 0.5%')
  const eur = usdQuote(catalogue, 'EUR', ms)!
  t.equal(eur.ask.minus(eur.bid).div(eur.mid).toFixed(), '0.001', 'fiat: 0.1%')
  // The cross rate is the ratio of the USD mids.
  t.equal(new Decimal(rate.mid).toSignificantDigits(10).toFixed(), btc.mid.div(usdMid(catalogue, 'GBP', ms)!).toSignificantDigits(10).toFixed())
})

t.test('the curve is smooth: a minute moves a price by well under 1%', async t => {
  fc.assert(fc.property(code, instant, (a, ms) => {
    const x = usdMid(catalogue, a, ms)!
    const y = usdMid(catalogue, a, ms + 60_000)!
    return y.minus(x).abs().div(x).lt('0.01')
  }))
})

t.test('a pinned price moves every cross rate that uses it, from the instant it was pinned', async t => {
  const now = Date.UTC(2026, 10, 24, 12)
  const pinned = new Catalogue([], { ...noChanges(), pins: { BTC: { mid: '50000', pinnedAt: now } } })
  t.equal(usdMid(pinned, 'BTC', now)!.toFixed(), '50000')
  t.equal(crossRate(pinned, 'BTC', 'USD', now)!.mid, '50000')
  for (const d of codes.filter(c => c !== 'BTC')) {
    t.not(crossRate(pinned, 'BTC', d, now)!.mid, crossRate(catalogue, 'BTC', d, now)!.mid, `BTC-${d} moves`)
    t.not(crossRate(pinned, d, 'BTC', now)!.mid, crossRate(catalogue, d, 'BTC', now)!.mid, `${d}-BTC moves`)
    const r = crossRate(pinned, d, 'BTC', now)!
    t.ok(new Decimal(r.bid!).lte(r.mid) && new Decimal(r.mid).lte(r.ask!), `${d}-BTC keeps bid <= mid <= ask`)
  }
  t.same(crossRate(pinned, 'ETH', 'GBP', now), crossRate(catalogue, 'ETH', 'GBP', now), 'pairs without it do not move')
  t.same(usdMid(pinned, 'BTC', now - 1), usdMid(catalogue, 'BTC', now - 1), 'the past before the pin is the curve')
  t.equal(crossRate(pinned, 'BTC', 'EUR', now)!.mid, new Decimal(50000).div(usdMid(catalogue, 'EUR', now)!).toSignificantDigits(20).toFixed())
})

t.test('an asset without a price has no rates', async t => {
  const unpriced = new Catalogue([], { ...noChanges(), assets: [{ code: 'ABC', name: 'Abc', type: 'crypto', decimals: 2, features: [] }] })
  t.equal(crossRate(unpriced, 'ABC', 'USD', 0), undefined)
  t.equal(crossRate(unpriced, 'USD', 'ABC', 0), undefined)
  t.equal(crossRate(unpriced, 'NOPE', 'USD', 0), undefined)
  t.equal(marketCap(unpriced, 'ABC', 0), undefined)
})

t.test('history: points on the interval\'s step, within the interval, never after now', async t => {
  fc.assert(fc.property(fc.constantFrom(...RATE_INTERVALS), instant, (interval, now) => {
    const points = historyInstants(interval, now)
    const { length, step } = INTERVALS[interval]
    return length % step === 0 && points.length === length / step &&
      points.every((p, i) => p % step === 0 && p <= now && p > now - length && (i === 0 || p - points[i - 1] === step))
  }))
  const now = Date.UTC(2026, 10, 24, 12, 34, 56, 789)
  const day = history(catalogue, 'BTC', 'USD', 'one-day', now)
  t.equal(day.length, 48)
  t.equal(day.at(-1)!.timestamp, '2026-11-24T12:30:00.000Z')
  t.equal(day[0].timestamp, '2026-11-23T13:00:00.000Z')
  t.equal(day.at(-1)!.rate!.mid, crossRate(catalogue, 'BTC', 'USD', Date.UTC(2026, 10, 24, 12, 30))!.mid, 'the same function as the present rate')
  t.same(history(catalogue, 'BTC', 'USD', 'one-day', now), day, 'reproducible')
  t.equal(history(catalogue, 'BTC', 'USD', 'one-hour', now).length, 60)
  t.equal(history(catalogue, 'BTC', 'USD', 'five-years', now).length, 73, 'five years of 25-day steps')
})

t.test('price deltas and market caps', async t => {
  const now = Date.UTC(2026, 10, 24)
  const delta = priceDelta(catalogue, 'BTC', 'one-day', now)!
  const start = usdMid(catalogue, 'BTC', now - 86_400_000)!
  t.equal(delta.toFixed(), usdMid(catalogue, 'BTC', now)!.minus(start).div(start).toFixed())
  t.equal(priceDelta(catalogue, 'USD', 'one-year', now)!.toFixed(), '0')
  t.equal(marketCap(catalogue, 'BTC', now)!.toFixed(), usdMid(catalogue, 'BTC', now)!.times('19700000').toFixed())
  t.equal(marketCap(catalogue, 'USD', now), undefined, 'fiat has no supply')
})
