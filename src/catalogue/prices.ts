// The price model. An asset's USD mid price is a deterministic function of the asset and an
// instant on the sandbox clock: its base price moved by a smooth curve seeded by its code, so two
// runs at the same clock time see the same numbers, at present and in the past. A pinned price
// (POST /_sandbox/rates) replaces the curve from the instant it was pinned until the asset's next pin. Bid and ask sit a fixed
// half-spread per asset type around the mid; cross rates go through USD.
import { Decimal } from '../money/decimal.js'
import type { Rate, RateInterval } from '../../schemas/catalogue.js'
import type { AssetEntry } from './data.js'

/** A pinned USD mid price, in force from `pinnedAt` (ms on the sandbox clock). */
export interface Pin { mid: string, pinnedAt: number }

/** What the model reads: the priced assets and the pinned prices. */
export interface PriceSource {
  asset: (code: string) => AssetEntry | undefined
  pin: (code: string) => Pin | undefined
  /** The pin in force at an instant (the last one pinned at or before it). */
  pinAt: (code: string, ms: number) => Pin | undefined
}

export interface Quote { bid: Decimal, mid: Decimal, ask: Decimal }

/** Half the spread, as a fraction of the mid, by asset type; USD, the base, has none. */
export const HALF_SPREAD = { fiat: new Decimal('0.0005'), crypto: new Decimal('0.0025') }

// Periods of the curve's components: one per interval the API charts, and a few that do not
// divide them, so no two days look alike.
const HOUR = 3_600_000
const DAY = 24 * HOUR
const PERIODS = [HOUR, 7.3 * HOUR, DAY, 3.7 * DAY, 7 * DAY, 30 * DAY, 91 * DAY, 365 * DAY, 5 * 365 * DAY]

/** FNV-1a of the code, then mulberry32: the curve's seeded phases and weights. */
function seeded (code: string): () => number {
  let h = 0x811c9dc5
  for (let i = 0; i < code.length; i++) h = Math.imul(h ^ code.charCodeAt(i), 0x01000193)
  let s = h >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

interface Curve { phases: number[], weights: number[] }
// Each curve depends on the asset's code alone: nothing any replica writes can change it.
const curves = new Map<string, Curve>()

function curveOf (code: string): Curve {
  let curve = curves.get(code)
  if (curve === undefined) {
    const random = seeded(code)
    const phases = PERIODS.map(() => random() * 2 * Math.PI)
    const raw = PERIODS.map(() => 0.2 + random())
    const total = raw.reduce((a, b) => a + b, 0)
    curve = { phases, weights: raw.map(w => w / total) }
    curves.set(code, curve)
  }
  return curve
}

/**
 * The curve's factor at an instant: exp(volatility × a weighted sum of sines), so the price stays
 * within e^±volatility of its base and moves smoothly. Computed in floating point (a chart needs
 * no more), and turned into a decimal of 12 significant digits: from there on, all is decimal.
 */
export function curveFactor (code: string, volatility: number, ms: number): Decimal {
  if (volatility === 0) return new Decimal(1)
  const { phases, weights } = curveOf(code)
  let sum = 0
  for (let i = 0; i < PERIODS.length; i++) sum += weights[i] * Math.sin((2 * Math.PI * ms) / PERIODS[i] + phases[i])
  return new Decimal(Math.exp(volatility * sum).toPrecision(12))
}

/** The asset's USD mid price at an instant; undefined when the asset has no price. */
export function usdMid (source: PriceSource, code: string, ms: number): Decimal | undefined {
  const asset = source.asset(code)
  if (asset === undefined) return undefined
  const pin = source.pinAt(code, ms)
  if (pin !== undefined) return new Decimal(pin.mid)
  if (asset.usdPrice === undefined) return undefined
  return new Decimal(asset.usdPrice).times(curveFactor(code, asset.volatility ?? 0, ms)).toSignificantDigits(12)
}

/** The asset's USD bid, mid and ask at an instant. */
export function usdQuote (source: PriceSource, code: string, ms: number): Quote | undefined {
  const mid = usdMid(source, code, ms)
  if (mid === undefined) return undefined
  const half = code === 'USD' ? new Decimal(0) : HALF_SPREAD[source.asset(code)!.type]
  return { bid: mid.times(new Decimal(1).minus(half)), mid, ask: mid.times(new Decimal(1).plus(half)) }
}

// Rates are written with 20 significant digits, computed with 30 (each rounding is monotone, so
// more would change no ordering, only cost time). The bid rounds down and the ask up, so the
// ordering bid <= mid <= ask of the exact values holds for the written ones too.
const DIGITS = 20
const RateDecimal = Decimal.clone({ precision: 30 })

/**
 * One unit of `asset` priced in `denomination` at an instant, through USD: the bid is what the
 * asset fetches in USD over what the denomination costs, the ask the other way round. Undefined
 * when either has no price (`asset_pair_not_supported`).
 */
export function crossRate (source: PriceSource, asset: string, denomination: string, ms: number): Rate | undefined {
  const a = usdMid(source, asset, ms)
  const d = usdMid(source, denomination, ms)
  if (a === undefined || d === undefined) return undefined
  if (asset === denomination) return { bid: '1', ask: '1', mid: '1' }
  // bid = (a.mid × (1 - h_a)) / (d.mid × (1 + h_d)) = mid × (1 - h_a) / (1 + h_d): one division
  // per pair, the spread factors made once per pair of half-spreads. The bid factor is below 1
  // and the ask factor above it, so bid <= mid <= ask holds after each rounding too.
  const mid = new RateDecimal(a).div(d)
  const [bid, ask] = spreadFactors(kindOf(source, asset), kindOf(source, denomination))
  return {
    bid: mid.times(bid).toSignificantDigits(DIGITS, Decimal.ROUND_DOWN).toFixed(),
    ask: mid.times(ask).toSignificantDigits(DIGITS, Decimal.ROUND_UP).toFixed(),
    mid: mid.toSignificantDigits(DIGITS, Decimal.ROUND_HALF_EVEN).toFixed()
  }
}

type Kind = 'base' | keyof typeof HALF_SPREAD
const kindOf = (source: PriceSource, code: string): Kind => code === 'USD' ? 'base' : source.asset(code)!.type
const halfOf = (kind: Kind): Decimal => kind === 'base' ? new RateDecimal(0) : new RateDecimal(HALF_SPREAD[kind])

// [(1 - h_a) / (1 + h_d), (1 + h_a) / (1 - h_d)]: the bid and ask factors of each pair of kinds,
// constants of the model that no write changes.
const factors = new Map<string, [Decimal, Decimal]>()
function spreadFactors (a: Kind, d: Kind): [Decimal, Decimal] {
  const key = `${a} ${d}`
  let f = factors.get(key)
  if (f === undefined) {
    const ha = halfOf(a)
    const hd = halfOf(d)
    f = [new RateDecimal(1).minus(ha).div(new RateDecimal(1).plus(hd)), new RateDecimal(1).plus(ha).div(new RateDecimal(1).minus(hd))]
    factors.set(key, f)
  }
  return f
}

/** The mid of a cross rate only, as history charts it. */
export function crossMid (source: PriceSource, asset: string, denomination: string, ms: number): string | undefined {
  const a = usdMid(source, asset, ms)
  const d = usdMid(source, denomination, ms)
  if (a === undefined || d === undefined) return undefined
  return new RateDecimal(a).div(d).toSignificantDigits(DIGITS, Decimal.ROUND_HALF_EVEN).toFixed()
}

const YEAR = 365 * DAY
/** The length of each interval, and the step between two points of its history (a divisor of it). */
export const INTERVALS: Record<RateInterval, { length: number, step: number }> = {
  'one-hour': { length: HOUR, step: 60_000 },
  'one-day': { length: DAY, step: 30 * 60_000 },
  'one-week': { length: 7 * DAY, step: 3 * HOUR },
  'one-month': { length: 30 * DAY, step: 12 * HOUR },
  'one-year': { length: YEAR, step: 5 * DAY },
  'five-years': { length: 5 * YEAR, step: 25 * DAY }
}

/**
 * The instants of an interval's history, oldest first: the multiples of its step (counted from
 * the Unix epoch) within the interval that ends at `now`, the last one never after `now`.
 */
export function historyInstants (interval: RateInterval, now: number): number[] {
  const { length, step } = INTERVALS[interval]
  const out: number[] = []
  for (let t = (Math.floor((now - length) / step) + 1) * step; t <= now; t += step) out.push(t)
  return out
}

/** The mid of `asset` in `denomination` at each instant of the interval. */
export function history (source: PriceSource, asset: string, denomination: string, interval: RateInterval, now: number): HistoryPoint[] {
  return historyInstants(interval, now).map(t => {
    const mid = crossMid(source, asset, denomination, t)
    // An asset priced only by a pin has no rate before it was pinned: the point has no `rate`.
    return mid === undefined ? { timestamp: new Date(t).toISOString() } : { rate: { mid }, timestamp: new Date(t).toISOString() }
  })
}

export interface HistoryPoint { rate?: { mid: string }, timestamp: string }

/** The change of the USD mid over the interval that ends at `now`, as a fraction of its start. */
export function priceDelta (source: PriceSource, code: string, interval: RateInterval, now: number): Decimal | undefined {
  const end = usdMid(source, code, now)
  const start = usdMid(source, code, now - INTERVALS[interval].length)
  if (end === undefined || start === undefined) return undefined
  return end.minus(start).div(start)
}

/** Units in circulation times the USD mid; undefined for an asset without either. */
export function marketCap (source: PriceSource, code: string, now: number): Decimal | undefined {
  const supply = source.asset(code)?.supply
  const mid = usdMid(source, code, now)
  return supply === undefined || mid === undefined ? undefined : mid.times(supply)
}
