// Money as decimal strings: amounts, balances, rates and fees are parsed, computed and cut with
// decimal.js, never with JavaScript numbers. Cutting to an asset's decimals never creates money:
// what a user receives rounds down, what a user pays rounds up.
import { Decimal as DecimalJs } from 'decimal.js'

// A private constructor: the precision (60 significant digits, more than any amount the API
// carries, about 40) and rounding are ours, whatever another module sets on the global Decimal.
export const Decimal = DecimalJs.clone({ precision: 60, rounding: DecimalJs.ROUND_HALF_EVEN, toExpNeg: -60, toExpPos: 60 })
export type Decimal = InstanceType<typeof Decimal>
export type DecimalValue = DecimalJs.Value

/** An amount as requests carry it: digits, an optional fraction, and not zero. */
export const AMOUNT_PATTERN = '^(?!0+(\\.0+)?$)\\d+(\\.\\d+)?$'
const AMOUNT = new RegExp(AMOUNT_PATTERN)

export const isAmount = (value: string): boolean => AMOUNT.test(value)

/** Which side of a movement an amount is on: it decides the rounding direction. */
export type Side = 'receive' | 'pay'

/** `value` cut to `decimals` places: down for what a user receives, up for what a user pays. */
export function cut (value: DecimalValue, decimals: number, side: Side): Decimal {
  return new Decimal(value).toDecimalPlaces(decimals, side === 'receive' ? Decimal.ROUND_DOWN : Decimal.ROUND_UP)
}

/** The API's text for a decimal: plain notation (never an exponent), no trailing zeros. */
export const toText = (value: DecimalValue): string => new Decimal(value).toFixed()

/** The API's text for an amount of an asset: cut to its decimals and written with all of them. */
export const toAmountText = (value: DecimalValue, decimals: number, side: Side): string =>
  cut(value, decimals, side).toFixed(decimals)

/** `value` to `digits` significant digits, rounded in the given direction. */
export const significant = (value: DecimalValue, digits: number, rounding: DecimalJs.Rounding = Decimal.ROUND_HALF_EVEN): Decimal =>
  new Decimal(value).toSignificantDigits(digits, rounding)
