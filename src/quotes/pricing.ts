// The arithmetic of a quote, pure: from the amount on the target side, the rate and the fee
// percentages to the amounts on both sides. Every amount is cut to its asset's decimals so that no
// rounding favours the user: what leaves the origin rounds up, fees round up, what reaches the
// destination rounds down. Decimal strings in and out (decimal.js), never JavaScript numbers.
import { Decimal, cut } from '../money/decimal.js'

export interface PricingInput {
  /** Units of the destination asset one unit of the origin asset fetches. */
  rate: string
  originDecimals: number
  destinationDecimals: number
  /** Fee fractions of what the origin amount fetches (0.015 for 1.5%), each taken in the destination asset. */
  fees: string[]
  target: 'origin' | 'destination'
  /** The amount on the target side, in its asset, not yet cut. */
  amount: string
}

export interface Pricing {
  origin: string
  destination: string
  /** Each fee's amount, in the destination asset, in the order of `fees`. */
  fees: string[]
}

const text = (value: Decimal, decimals: number): string => value.toFixed(decimals)

function feesOf (gross: Decimal, fees: string[], decimals: number): Decimal[] {
  return fees.map(f => cut(gross.times(f), decimals, 'pay'))
}

const sum = (values: Decimal[]): Decimal => values.reduce((a, b) => a.plus(b), new Decimal(0))

/**
 * Target `origin`: the origin amount is the amount cut up; the destination is what it fetches less
 * the fees, cut down. Target `destination`: the destination amount is the amount cut down; the
 * origin is the least amount (in its decimals) that fetches at least that after fees.
 */
export function price (input: PricingInput): Pricing {
  const rate = new Decimal(input.rate)
  const oDec = input.originDecimals
  const dDec = input.destinationDecimals
  if (input.target === 'origin') {
    const origin = cut(input.amount, oDec, 'pay')
    const gross = origin.times(rate)
    const fees = feesOf(gross, input.fees, dDec)
    const destination = Decimal.max(cut(gross.minus(sum(fees)), dDec, 'receive'), 0)
    return { origin: text(origin, oDec), destination: text(destination, dDec), fees: fees.map(f => text(f, dDec)) }
  }
  const destination = cut(input.amount, dDec, 'receive')
  // From a lower bound (no fees), each step asks for what covers the destination and the fees of the
  // step before. Fees grow with the origin, so every step stays at or below the least origin that
  // covers the destination after its own fees, and the first that covers it is that least origin.
  // Fees are a few percent, so each step adds a few percent of the one before: a handful of steps.
  let origin = cut(destination.div(rate), oDec, 'pay')
  for (;;) {
    const fees = feesOf(origin.times(rate), input.fees, dDec)
    if (origin.times(rate).minus(sum(fees)).gte(destination)) {
      return { origin: text(origin, oDec), destination: text(destination, dDec), fees: fees.map(f => text(f, dDec)) }
    }
    const next = cut(destination.plus(sum(fees)).div(rate), oDec, 'pay')
    origin = next.gt(origin) ? next : origin.plus(new Decimal(1).div(new Decimal(10).pow(oDec)))
  }
}
