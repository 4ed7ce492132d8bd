// The tax details' residence address (`input.taxResidency.address`): taken, kept with the form's
// parts and shown back; its country, subdivision and postal code checked as the reference documents,
// with nothing stored when a check refuses it.
import t from 'tap'
import { buildKyc, kycUser, PROFILE, type Caller } from './support.js'

const app = await buildKyc(t)

async function ready (): Promise<Caller> {
  const u = await kycUser(t, app)
  const profile = await u.patch('profile', PROFILE)
  if (profile.statusCode !== 200) throw new Error(`profile: ${profile.statusCode} ${profile.body}`)
  return u
}
const taxInput = async (u: Caller): Promise<unknown> => (await u.overview('taxDetails')).processes.taxDetails.input
const conflict = (code: string, message: string, property: string): Record<string, unknown> => ({ code, message, details: { context: 'body', property } })

t.test('the residence address is taken with the countries, kept, and shown back', async t => {
  const u = await ready()
  const address = { country: 'PT', subdivision: 'PT-11', city: 'Lisboa', line1: 'Rua Augusta 10', postalCode: '1100-053' }
  const res = await u.patch('tax-details', { input: { taxResidency: { countries: ['PT'], address } } })
  t.equal(res.statusCode, 200)
  t.same(res.json().taxDetails.input, { taxResidency: { countries: ['PT'], address } })
  t.same(await taxInput(u), { taxResidency: { countries: ['PT'], address } })
  const us = await u.patch('tax-details', { input: { taxResidency: { countries: ['US'], address: { country: 'US', subdivision: 'US-NY', postalCode: '10001-1234' } } } })
  t.equal(us.statusCode, 200, 'a later update replaces the part, a US ZIP+4 is a postal code')
  const hint = (await u.overview('taxDetails')).processes.taxDetails.hint
  t.same(Object.keys(hint.schema.properties.taxResidency.properties), ['countries', 'address'], 'the form in the hint has the address')
  t.same(hint.schema.properties.taxResidency.required, ['countries'], 'and does not require it')
})

t.test('the reference\'s 409s name input.taxResidency.address.*, and nothing is stored', async t => {
  const u = await ready()
  const before = await taxInput(u)
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ country: 'IR' }, conflict('country_not_supported', 'The country is not supported', 'input.taxResidency.address.country')],
    [{ country: 'PT', subdivision: 'PT-ZZ' }, conflict('subdivision_not_supported', 'The subdivision is not supported', 'input.taxResidency.address.subdivision')],
    [{ country: 'PT', subdivision: 'ES-M' }, conflict('subdivision_not_supported', 'The subdivision is not supported', 'input.taxResidency.address.subdivision')],
    [{ country: 'US', subdivision: 'US-NY', postalCode: '1000' }, conflict('postal_code_invalid', 'The postal code is invalid', 'input.taxResidency.address.postalCode')],
    [{ country: 'PT', postalCode: '#1' }, conflict('postal_code_invalid', 'The postal code is invalid', 'input.taxResidency.address.postalCode')]
  ]
  for (const [address, want] of cases) {
    const res = await u.patch('tax-details', { input: { taxResidency: { countries: ['PT'], address } } })
    t.equal(res.statusCode, 409, JSON.stringify(address))
    t.same(res.json(), want, JSON.stringify(address))
  }
  t.same(await taxInput(u), before, 'the process holds what it held')
})

t.test('an address that does not fit the form is 400 naming its property', async t => {
  const u = await ready()
  const cases: Array<[unknown, string, string]> = [
    [{ city: 'Lisboa' }, 'input.taxResidency.address.country', 'required'],
    [{ country: 'pt' }, 'input.taxResidency.address.country', 'pattern'],
    [{ country: 'PT', subdivision: 'PT-ZZZZ' }, 'input.taxResidency.address.subdivision', 'pattern'],
    [{ country: 'PT', street: 'x' }, 'input.taxResidency.address.street', 'additionalProperties'],
    [{ country: 'PT', city: ' padded' }, 'input.taxResidency.address.city', 'pattern'],
    ['Lisboa', 'input.taxResidency.address', 'type']
  ]
  for (const [address, property, rule] of cases) {
    const res = await u.patch('tax-details', { input: { taxResidency: { countries: ['PT'], address } } })
    t.equal(res.statusCode, 400, property)
    t.match(res.json(), { code: 'request_invalid', details: { context: 'body', violations: [{ property, rule }] } }, `${property} ${rule}`)
  }
})
