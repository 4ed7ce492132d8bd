import t from 'tap'
import fc from 'fast-check'
import { AMOUNT_PATTERN, Decimal, cut, isAmount, significant, toAmountText, toText } from '../../src/money/decimal.js'

t.test('amounts: digits with an optional fraction, never zero', async t => {
  for (const ok of ['1', '0.1', '10.50', '000.001', '123456789012345678901234567890.123456789']) t.ok(isAmount(ok), ok)
  for (const bad of ['0', '0.0', '000.000', '-1', '1.', '.5', '1e5', ' 1', '1,5', '']) t.notOk(isAmount(bad), JSON.stringify(bad))
  t.equal(AMOUNT_PATTERN, '^(?!0+(\\.0+)?$)\\d+(\\.\\d+)?$')
})

t.test('what a user receives rounds down, what a user pays rounds up', async t => {
  t.equal(cut('1.239', 2, 'receive').toFixed(), '1.23')
  t.equal(cut('1.231', 2, 'pay').toFixed(), '1.24')
  t.equal(cut('1.23', 2, 'pay').toFixed(), '1.23', 'exact amounts are kept')
  t.equal(toAmountText('0.5', 8, 'receive'), '0.50000000', 'written with all of the asset\'s decimals')
  t.equal(toAmountText('1.0000000000000000019', 18, 'pay'), '1.000000000000000002', 'ETH has 18 decimals')
})

t.test('decimals are exact where numbers are not, and never written with an exponent', async t => {
  t.equal(new Decimal('0.1').plus('0.2').toFixed(), '0.3')
  t.equal(toText('1e-20'), '0.00000000000000000001')
  t.equal(toText('1e30'), '1000000000000000000000000000000')
  t.equal(significant('123.456789', 4).toFixed(), '123.5')
  t.equal(significant('123.456789', 4, Decimal.ROUND_DOWN).toFixed(), '123.4')
})

t.test('no rounding creates money: receive <= exact <= pay, each within one unit of the last place', async t => {
  const amount = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 30 }))
    .map(([units, scale]) => new Decimal(units.toString()).div(new Decimal(10).pow(scale)))
  fc.assert(fc.property(amount, fc.integer({ min: 0, max: 18 }), (value, decimals) => {
    const down = cut(value, decimals, 'receive')
    const up = cut(value, decimals, 'pay')
    const unit = new Decimal(10).pow(-decimals)
    return down.lte(value) && up.gte(value) && up.minus(down).lte(unit) && down.decimalPlaces() <= decimals && up.decimalPlaces() <= decimals
  }))
})
