// The checks POST /core/users makes as the reference documents them, each with its exact answer,
// and the same rules answering the same way where the KYC updates and the ACH bank account take the
// same data. Nothing a refused creation sent is stored.
import t, { type Test } from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { accessToken, bearer, build, DEMO_ORG, onBehalfOf, userIp } from '../helpers.js'
import { ownDocumentChecker } from '../catalogue/openapi-check.js'

// Built once: the default SERVICE_NAME (`service`), as a new sandbox runs.
const app = await build(t)
app.clock.set(Date.parse('2030-06-15T12:00:00.000Z'))
const token = await accessToken(app)
const check = await ownDocumentChecker(app)
const IP = userIp()

async function send (method: 'POST' | 'PATCH' | 'GET', url: string, payload: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const res = await app.inject({ method, url, headers: { ...bearer(token), ...headers }, payload: payload as object })
  t.same(check(method, url, res), [], `${method} ${url} ${res.statusCode}: as the app's own document says`)
  return res
}
const create = (body: Record<string, unknown>, headers: Record<string, string> = IP): Promise<LightMyRequestResponse> => send('POST', '/core/users', body, headers)
const users = async (): Promise<number> => (await app.storage.users.recent(DEMO_ORG, 1000)).length

let emails = 0
const VALID = (): Record<string, unknown> => ({
  email: `rules-${++emails}@example.com`,
  termsOfService: 'general-gb-fca',
  primaryCitizenship: 'GB',
  address: { country: 'GB', subdivision: 'GB-MAN', city: 'Manchester', line1: '1 High Street', postalCode: 'M4 1AA' }
})
const inBody = (property: string): Record<string, unknown> => ({ context: 'body', property })

/** A 409 with exactly this body, and no user stored. */
async function refused (t: Test, body: Record<string, unknown>, want: Record<string, unknown>, headers?: Record<string, string>): Promise<void> {
  const before = await users()
  const res = await create(body, headers)
  t.equal(res.statusCode, 409, want.code as string)
  t.same(res.json(), want)
  t.equal(await users(), before, 'no user is stored')
}

t.test('Missing User Context: 409 naming the header to send, under the default SERVICE_NAME, before any other check', async t => {
  await refused(t, VALID(), {
    code: 'operation_not_allowed',
    message: 'Request not allowed due to missing user context: send the X-Service-User-Ip header',
    details: { reasons: ['missing-user-ip-header'] }
  }, {})
  // The body's own 409s come after it: an unsupported country without the header is still this answer.
  const refusedFirst = await create({ ...VALID(), primaryCitizenship: 'KP' }, {})
  t.same(refusedFirst.json().details, { reasons: ['missing-user-ip-header'] })
  // The header the message names is the one read: a reference-named header is not it.
  t.equal((await create(VALID(), { 'x-uphold-user-ip': '47.174.97.164' })).statusCode, 409)
  const bad = await create(VALID(), { 'x-service-user-ip': 'not-an-ip' })
  t.equal(bad.statusCode, 400)
  t.match(bad.json(), { code: 'request_invalid', details: { context: 'headers', violations: [{ property: 'x-service-user-ip' }] } })
  const ok = await create(VALID())
  t.equal(ok.statusCode, 201)
  const ipv6 = await create(VALID(), { 'x-service-user-ip': '2001:db8::1', 'x-service-user-agent': 'Mozilla/5.0' })
  t.equal(ipv6.statusCode, 201, 'IPv6, and the other user-context headers, are taken')
})

t.test('phone_invalid and phone_already_exists, against numbers given at creation and through KYC', async t => {
  await refused(t, { ...VALID(), phone: { number: '+447400', country: 'GB' } }, { code: 'phone_invalid', message: 'The phone number is invalid' })
  const first = await create({ ...VALID(), phone: { number: '+447400123456', country: 'GB' } })
  t.equal(first.statusCode, 201, 'seven digits and more are a number')
  await refused(t, { ...VALID(), phone: { number: '+447400123456', country: 'GB' } }, { code: 'phone_already_exists', message: 'The provided phone is already in use by another user' })
  // A number declared through the KYC phone update is taken too, and the KYC update refuses one taken at creation.
  const declared = await send('PATCH', '/core/kyc/processes/phone', { input: { phone: '+447400999888', country: 'GB' } }, onBehalfOf(first.json().user.id))
  t.equal(declared.statusCode, 200)
  await refused(t, { ...VALID(), phone: { number: '+447400999888', country: 'GB' } }, { code: 'phone_already_exists', message: 'The provided phone is already in use by another user' })
  const other = (await create(VALID())).json().user.id as string
  const taken = await send('PATCH', '/core/kyc/processes/phone', { input: { phone: '+447400999888', country: 'GB' } }, onBehalfOf(other))
  t.same(taken.json(), { code: 'phone_already_exists', message: 'The provided phone is already in use by another user' })
  const short = await send('PATCH', '/core/kyc/processes/phone', { input: { phone: '+447400', country: 'GB' } }, onBehalfOf(other))
  t.same(short.json(), { code: 'phone_invalid', message: 'The phone number is invalid' }, 'the same rule in the KYC update')
})

t.test('email_incorrect_or_disallowed, as the KYC e-mail update answers it', async t => {
  for (const email of ['someone@example.invalid', 'someone@mail.localhost']) {
    await refused(t, { ...VALID(), email }, { code: 'email_incorrect_or_disallowed', message: 'The email is incorrect or disallowed' })
  }
  const user = (await create(VALID())).json().user.id as string
  const kyc = await send('PATCH', '/core/kyc/processes/email', { input: { email: 'someone@example.invalid' } }, onBehalfOf(user))
  t.same(kyc.json(), { code: 'email_incorrect_or_disallowed', message: 'The email is incorrect or disallowed' })
})

t.test('invalid_characters in the full name, as the KYC profile answers it', async t => {
  await refused(t, { ...VALID(), fullName: 'J0hn Doe' }, { code: 'invalid_characters', message: 'The request has invalid characters', details: inBody('fullName') })
  t.equal((await create({ ...VALID(), fullName: "Zoë O'Neil-Smith Jr." })).statusCode, 201, 'letters, marks, apostrophes, dashes and dots are a name')
  const user = (await create(VALID())).json().user.id as string
  const kyc = await send('PATCH', '/core/kyc/processes/profile', { input: { fullName: 'J0hn Doe' } }, onBehalfOf(user))
  t.same(kyc.json(), { code: 'invalid_characters', message: 'The request has invalid characters', details: inBody('input.fullName') })
})

t.test('po_boxes_not_allowed and postal_code_invalid, as the KYC profile and the ACH bank account answer them', async t => {
  const address = (extra: Record<string, unknown>): Record<string, unknown> => ({ ...VALID(), address: { country: 'GB', subdivision: 'GB-MAN', city: 'Manchester', ...extra } })
  for (const line1 of ['PO Box 12', 'P.O. Box 7', 'post office box 9']) {
    await refused(t, address({ line1 }), { code: 'po_boxes_not_allowed', message: 'PO boxes are not allowed' })
  }
  await refused(t, address({ line1: '1 High Street', line2: 'p.o. box 3' }), { code: 'po_boxes_not_allowed', message: 'PO boxes are not allowed' })
  await refused(t, address({ postalCode: '#' }), { code: 'postal_code_invalid', message: 'The postal code is invalid', details: inBody('address.postalCode') })
  // A US postal code is a ZIP code (or ZIP+4).
  const us = (postalCode: string): Record<string, unknown> => ({ ...VALID(), termsOfService: 'general-us-hq', primaryCitizenship: 'US', address: { country: 'US', subdivision: 'US-NY', postalCode } })
  await refused(t, us('1000'), { code: 'postal_code_invalid', message: 'The postal code is invalid', details: inBody('address.postalCode') })
  t.equal((await create(us('10001'))).statusCode, 201)
  t.equal((await create(us('10001-1234'))).statusCode, 201)

  const user = (await create(VALID())).json().user.id as string
  const kyc = await send('PATCH', '/core/kyc/processes/profile', { input: { address: { city: 'Leeds', line1: 'PO Box 12', postalCode: 'LS1 1AA' } } }, onBehalfOf(user))
  t.same(kyc.json(), { code: 'po_boxes_not_allowed', message: 'PO boxes are not allowed' })
  const postal = await send('PATCH', '/core/kyc/processes/profile', { input: { address: { city: 'Leeds', line1: '1 Park Row', postalCode: '#' } } }, onBehalfOf(user))
  t.same(postal.json(), { code: 'postal_code_invalid', message: 'The postal code is invalid', details: inBody('input.address.postalCode') })
  const ach = await send('POST', '/core/external-accounts', {
    type: 'bank',
    asset: 'USD',
    network: 'ach',
    label: 'Checking',
    address: { country: 'US', subdivision: 'US-CA', city: 'San Francisco', line1: '1 Main Street', postalCode: '1000' },
    routingNumber: '121000248',
    accountNumber: '9876543210',
    accountType: 'checking'
  }, onBehalfOf(user))
  t.same(ach.json(), { code: 'postal_code_invalid', message: 'The postal code is invalid', details: inBody('address.postalCode') })
})

t.test('terms_of_service_mismatch: the general terms of another country than the residence', async t => {
  const mismatch = { code: 'terms_of_service_mismatch', message: 'The terms of service passed in the request does not match the one that should have been accepted' }
  await refused(t, { ...VALID(), termsOfService: 'general-us-hq' }, mismatch)
  await refused(t, { ...VALID(), termsOfService: 'general-bs-scb' }, mismatch)
  const elsewhere = (country: string, termsOfService: string): Record<string, unknown> => ({ ...VALID(), termsOfService, primaryCitizenship: country, address: { country } })
  await refused(t, elsewhere('FR', 'general-pt-bop'), mismatch)
  await refused(t, elsewhere('BR', 'general-lt-fcs'), mismatch)
  for (const [country, terms] of [['PT', 'general-pt-bop'], ['FR', 'general-lt-fcs'], ['BR', 'general-bs-scb']]) {
    t.equal((await create(elsewhere(country, terms))).statusCode, 201, `${country}: ${terms}`)
  }
})

t.test('subdivision_required for a US address; subdivision_not_supported for one that fits the pattern but is unknown', async t => {
  const us = (address: Record<string, unknown>): Record<string, unknown> => ({ ...VALID(), termsOfService: 'general-us-hq', primaryCitizenship: 'US', address: { country: 'US', ...address } })
  await refused(t, us({}), { code: 'subdivision_required', message: 'The subdivision is required for the selected country', details: inBody('address.subdivision') })
  t.equal((await create({ ...VALID(), address: { country: 'GB' } })).statusCode, 201, 'a GB address needs none')
  const notSupported = { code: 'subdivision_not_supported', message: 'The subdivision is not supported', details: inBody('address.subdivision') }
  for (const subdivision of ['US-ZZ', 'US-ZZZ', 'US-00', 'GB-MAN']) await refused(t, us({ subdivision }), notSupported)
  const malformed = await create(us({ subdivision: 'US-ZZZZ' }))
  t.equal(malformed.statusCode, 400, 'a value that does not fit the pattern is the schema\'s 400')
  t.match(malformed.json(), { details: { violations: [{ property: 'address.subdivision', rule: 'pattern' }] } })
})

t.test('an unknown subdivision (US-ZZ) is 409 subdivision_not_supported wherever an address is taken', async t => {
  const user = (await create({ ...VALID(), termsOfService: 'general-us-hq', primaryCitizenship: 'US', address: { country: 'US', subdivision: 'US-NY' } })).json().user.id as string
  const as = onBehalfOf(user)
  const notSupported = (property: string): Record<string, unknown> => ({ code: 'subdivision_not_supported', message: 'The subdivision is not supported', details: inBody(property) })
  const person = { givenName: 'Ann', familyName: 'Lee', birthdate: '1990-01-01', citizenshipCountry: 'US', address: { country: 'US', subdivision: 'US-ZZ' } }
  const cases: Array<['PATCH' | 'POST', string, unknown, string]> = [
    ['PATCH', '/core/kyc/processes/profile', { input: { address: { subdivision: 'US-ZZ' } } }, 'input.address.subdivision'],
    ['PATCH', '/core/kyc/processes/address', { input: { address: { subdivision: 'US-ZZ' } } }, 'input.address.subdivision'],
    ['PATCH', '/core/kyc/processes/identity', { type: 'electronic-verification', input: { data: person } }, 'input.data.address.subdivision'],
    ['PATCH', '/core/kyc/processes/proof-of-address', { type: 'electronic-verification', input: { data: { givenName: 'Ann', address: { subdivision: 'US-ZZ' } } } }, 'input.data.address.subdivision'],
    ['PATCH', '/core/kyc/processes/tax-details', { input: { taxResidency: { countries: ['US'], address: { country: 'US', subdivision: 'US-ZZ' } } } }, 'input.taxResidency.address.subdivision'],
    ['POST', '/core/external-accounts', {
      type: 'bank',
      asset: 'USD',
      network: 'ach',
      label: 'Checking',
      address: { country: 'US', subdivision: 'US-ZZ', city: 'San Francisco', line1: '1 Main Street', postalCode: '94102' },
      routingNumber: '121000248',
      accountNumber: '9876543210',
      accountType: 'checking'
    }, 'address.subdivision']
  ]
  for (const [method, url, body, property] of cases) {
    const res = await send(method, url, body, as)
    t.equal(res.statusCode, 409, url)
    t.same(res.json(), notSupported(property), url)
  }
  const record = (await app.storage.users.get(DEMO_ORG, user))?.record as { address: unknown }
  t.same(record.address, { country: 'US', subdivision: 'US-NY' }, 'the user\'s address is as it was')
})

t.test('the checks run in the documented order, and a valid body creates the user with what it sent', async t => {
  // Several faults at once: the first in the documented order answers.
  const many = await create({ ...VALID(), termsOfService: 'general-us-hq', email: 'x@example.invalid', fullName: 'J0hn Doe' })
  t.equal(many.json().code, 'terms_of_service_mismatch')
  const later = await create({ ...VALID(), email: 'y@example.invalid', fullName: 'J0hn Doe' })
  t.equal(later.json().code, 'email_incorrect_or_disallowed')
  const body: Record<string, unknown> = { ...VALID(), fullName: 'Ann Lee', phone: { number: '+447700900123', country: 'GB' } }
  const res = await create(body)
  t.equal(res.statusCode, 201)
  t.match(res.json().user, { email: body.email, fullName: 'Ann Lee', address: body.address, phone: body.phone })
})
