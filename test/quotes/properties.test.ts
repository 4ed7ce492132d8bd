// Properties of quotes over random amounts, assets and rates (fast-check): each amount is exact to
// its asset's decimals; with the origin as target, destination = origin × rate − fees within one
// unit of the destination's last decimal and never above it; with the destination as target, the
// origin is the least amount that covers it; fees never round down; a quote past its expiry, or
// used, is refused by consume.
import t from 'tap'
import fc from 'fast-check'
import { Decimal } from '../../src/money/decimal.js'
import { price } from '../../src/quotes/pricing.js'
import { quotesOf } from '../../src/quotes/service.js'
import { DEMO_ORG } from '../helpers.js'
import { quoteSetup } from './support.js'

const decimalsOf = (text: string): number => text.split('.')[1]?.length ?? 0
const unit = (decimals: number): Decimal => new Decimal(1).div(new Decimal(10).pow(decimals))

const amountArb = fc.tuple(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 12 })).map(([n, scale]) => new Decimal(n).div(new Decimal(10).pow(scale)).toFixed())
const rateArb = fc.tuple(fc.integer({ min: 1, max: 999_999_999 }), fc.integer({ min: 0, max: 14 })).map(([n, scale]) => new Decimal(n).div(new Decimal(10).pow(scale)).toFixed())
const decimalsArb = fc.constantFrom(0, 2, 6, 7, 8, 9, 18)
const feesArb = fc.subarray(['0.015', '0.025', '0.001'], { maxLength: 2 })

t.test('pricing: exact decimals, destination within one unit and never in the user\'s favour', async t => {
  fc.assert(fc.property(amountArb, rateArb, decimalsArb, decimalsArb, feesArb, (amount, rate, oDec, dDec, fees) => {
    const p = price({ rate, originDecimals: oDec, destinationDecimals: dDec, fees, target: 'origin', amount })
    if (decimalsOf(p.origin) !== oDec || decimalsOf(p.destination) !== dDec) return false
    if (p.fees.some(f => decimalsOf(f) !== dDec)) return false
    const origin = new Decimal(p.origin)
    if (origin.lt(amount) || origin.minus(amount).gte(unit(oDec))) return false
    const gross = origin.times(rate)
    if (fees.some((f, i) => new Decimal(p.fees[i]).lt(gross.times(f)))) return false
    const exact = gross.minus(p.fees.reduce((a, f) => a.plus(f), new Decimal(0)))
    const destination = new Decimal(p.destination)
    if (exact.lte(0)) return destination.eq(0)
    return destination.lte(exact) && exact.minus(destination).lt(unit(dDec))
  }), { numRuns: 2000 })
  t.pass('held for 2000 random cases')
})

t.test('pricing with the destination as target: the least origin that covers it', async t => {
  fc.assert(fc.property(amountArb, rateArb, decimalsArb, decimalsArb, feesArb, (amount, rate, oDec, dDec, fees) => {
    fc.pre(new Decimal(amount).gte(unit(dDec)))
    const p = price({ rate, originDecimals: oDec, destinationDecimals: dDec, fees, target: 'destination', amount })
    if (decimalsOf(p.origin) !== oDec || decimalsOf(p.destination) !== dDec) return false
    const destination = new Decimal(p.destination)
    if (destination.gt(amount) || new Decimal(amount).minus(destination).gte(unit(dDec))) return false
    const fetched = (o: Decimal): Decimal => {
      const gross = o.times(rate)
      return gross.minus(fees.reduce((a, f) => a.plus(gross.times(f).toDecimalPlaces(dDec, Decimal.ROUND_UP)), new Decimal(0)))
    }
    const origin = new Decimal(p.origin)
    return fetched(origin).gte(destination) && (origin.minus(unit(oDec)).lte(0) || fetched(origin.minus(unit(oDec))).lt(destination))
  }), { numRuns: 1000 })
  t.pass('held for 1000 random cases')
})

t.test('the API: random amounts and asset pairs give amounts exact to each asset\'s decimals', async t => {
  const s = await quoteSetup(t)
  const DECIMALS: Record<string, number> = { GBP: 2, USD: 2, EUR: 2, BTC: 8, ETH: 18, USDC: 6, XRP: 6 }
  const assets = Object.keys(DECIMALS)
  const store = quotesOf(s.app)
  await fc.assert(fc.asyncProperty(
    fc.constantFrom(...assets), fc.constantFrom(...assets), fc.integer({ min: 2, max: 3000 }), fc.integer({ min: 0, max: 99 }),
    fc.constantFrom('origin', 'destination'), fc.integer({ min: 18_000, max: 600_000 }),
    async (from, to, whole, cents, target, ttl) => {
      fc.pre(from !== to)
      // Denominated in USD, so the quote stays within the limits whatever the assets.
      const res = await s.quote({
        origin: { type: 'account', id: s.accounts[from] },
        destination: { type: 'account', id: s.accounts[to] },
        denomination: { asset: 'USD', amount: `${whole}.${String(cents).padStart(2, '0')}`, target },
        ttl
      })
      if (res.statusCode !== 201) throw new Error(JSON.stringify(res.json()))
      const q = res.json().quote
      if (decimalsOf(q.origin.amount) !== DECIMALS[from] || decimalsOf(q.destination.amount) !== DECIMALS[to]) return false
      const exact = new Decimal(q.origin.amount).times(q.destination.rate)
      const destination = new Decimal(q.destination.amount)
      if (target === 'origin' && !(destination.lte(exact) && exact.minus(destination).lt(unit(DECIMALS[to])))) return false
      if (target === 'destination' && exact.lt(destination)) return false
      // Refused at or after expiry, and once used.
      const expiresAt = Date.parse(q.expiresAt)
      if (expiresAt !== s.app.clock.now() + ttl) return false
      if ((await store.consume(DEMO_ORG, q.id, expiresAt)).ok) return false
      if (!(await store.consume(DEMO_ORG, q.id, expiresAt - 1)).ok) return false
      return !(await store.consume(DEMO_ORG, q.id, expiresAt - 1)).ok
    }
  ), { numRuns: 60 })
  t.pass('held for 60 random quotes')
})
