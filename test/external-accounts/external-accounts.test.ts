// External accounts: every test card, every documented 409, ACH bank accounts, the card check on
// the sandbox clock and its control, labels, deletion, events, and card numbers kept out of
// answers, events and the request log.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { setup, ready } from '../accounts/support.js'
import { makeUser } from '../helpers.js'
import { ach, card, eventsOf } from './support.js'

const NUMBER = { context: 'body', property: 'number' }

// The test card table: each number, what it makes and the exact answer.
const TABLE: Array<{ number: string, status: number, body?: Record<string, unknown>, network?: string }> = [
  { number: '4111111111111111', status: 201, network: 'visa' },
  { number: '5555555555554444', status: 201, network: 'mastercard' },
  { number: '4000000000003220', status: 201, network: 'visa' },
  { number: '4000000000000002', status: 409, body: { code: 'operation_not_allowed', message: 'The card was declined', details: { reasons: ['card-declined'] } } },
  { number: '4000000000000069', status: 409, body: { code: 'operation_not_allowed', message: 'The card was permanently declined', details: { reasons: ['card-permanently-declined'] } } },
  { number: '5105105105105100', status: 409, body: { code: 'card_type_not_allowed', message: 'The card type is not allowed', details: { type: 'credit' } } },
  {
    number: '4000000000000101',
    status: 409,
    body: { code: 'operation_not_allowed', message: 'The card issuer country does not match the user country of residence', details: { reasons: ['card-issuer-country-mismatch'] } }
  }
]

t.test('each test card behaves as the table says', async t => {
  const s = await setup(t)
  await ready(s)
  for (const row of TABLE) {
    const res = await s.call('POST', '/core/external-accounts', { payload: card(row.number, { label: `Card ${row.number.slice(-4)}` }) })
    t.equal(res.statusCode, row.status, row.number)
    if (row.body !== undefined) { t.same(res.json(), row.body, row.number); continue }
    const { externalAccount } = res.json()
    t.same(externalAccount, {
      id: externalAccount.id,
      ownerId: s.userId,
      type: 'card',
      status: 'processing',
      label: `Card ${row.number.slice(-4)}`,
      asset: 'GBP',
      network: row.network,
      features: [],
      details: { type: 'debit', last4Digits: row.number.slice(-4), expiryDate: { month: 12, year: 2030 }, octSupport: 'unknown' },
      createdAt: s.app.clock.iso(),
      updatedAt: s.app.clock.iso()
    }, row.number)
  }
  const listed = (await s.call('GET', '/core/external-accounts')).json().externalAccounts
  t.equal(listed.length, 3)
})

t.test('the documented 409s of a card, in the check order', async t => {
  const s = await setup(t)
  const call = (payload: Record<string, unknown>) => s.call('POST', '/core/external-accounts', { payload })
  // Before KYC: the cards capability's requirements.
  const early = await call(card('4111111111111111'))
  t.equal(early.statusCode, 409)
  t.equal(early.json().code, 'user_capability_failure')
  t.equal(early.json().details.capability.code, 'cards')
  t.ok(early.json().details.capability.requirements.length > 0)
  await ready(s)

  t.same((await call(card('4111111111111112'))).json(), { code: 'number_invalid', message: 'The card number is invalid', details: NUMBER })
  const expired = await call(card('4111111111111111', { expiryDate: { month: 1, year: 2001 } }))
  t.equal(expired.statusCode, 409)
  t.same(expired.json(), {
    code: 'date_invalid',
    message: 'The date must be at least now',
    details: { context: 'body', property: 'expiryDate', rule: 'difference-less-than-or-equal-to-threshold', threshold: { limit: 0, unit: 'milliseconds' } }
  })
  // This month is still valid; last month is not (on the sandbox clock).
  const now = new Date(s.app.clock.now())
  t.equal((await call(card('4111111111111111', { expiryDate: { month: now.getUTCMonth() + 1, year: now.getUTCFullYear() } }))).statusCode, 201)
  t.same((await call(card('4111111111111111'))).json(), { code: 'duplicate', message: 'The card is already registered', details: NUMBER })
  // A valid number of an unknown brand has no rail.
  t.same((await call(card('6011111111111117'))).json(), { code: 'entity_not_found', message: 'A rail for the specified type, asset and network cannot be found', details: { entity: 'rail' } })
  for (const n of ['5555555555554444', '4000000000003220', '4242424242424242', '4012888888881881']) t.equal((await call(card(n))).statusCode, 201, n)
  t.same((await call(card('2223003122003222'))).json(), {
    code: 'user_capability_failure',
    message: 'The user has capability constraints',
    details: { capability: { code: 'cards', requirements: ['user-must-delete-card'], restrictions: [] } }
  }, 'a sixth card held is over the default limit of 5')
  t.same((await s.call('GET', '/core/capabilities/cards')).json(), {
    capability: { code: 'cards', name: 'Cards', enabled: true, requirements: ['user-must-delete-card'], restrictions: [] }
  }, 'the cards capability counts the cards')
  const first = (await s.call('GET', '/core/external-accounts')).json().externalAccounts[0].id
  t.equal((await s.call('DELETE', `/core/external-accounts/${first}`)).statusCode, 204)
  t.same((await s.call('GET', '/core/capabilities/cards')).json().capability.requirements, [], 'below the limit again')
  for (const payload of [card('411111111111'.slice(0, 11)), card('4111111111111111', { securityCode: '12' }), card('4111111111111111', { expiryDate: { month: 13, year: 2030 } }), { type: 'other' }, card('4111111111111111', { label: ' x' })]) {
    const bad = await call(payload)
    t.equal(bad.statusCode, 400, JSON.stringify(payload).slice(0, 80))
    t.equal(bad.json().code, 'request_invalid')
  }
})

t.test('ACH bank accounts are ok at once; their 409s', async t => {
  const s = await setup(t)
  const call = (payload: Record<string, unknown>) => s.call('POST', '/core/external-accounts', { payload })
  const res = await call(ach({ metadata: { externalId: 7 } }))
  t.equal(res.statusCode, 201)
  const { externalAccount } = res.json()
  t.same(externalAccount, {
    id: externalAccount.id,
    ownerId: s.userId,
    type: 'bank',
    status: 'ok',
    label: 'My checking account',
    asset: 'USD',
    network: 'ach',
    features: ['withdraw'],
    details: {
      address: { country: 'US', subdivision: 'US-CA', city: 'San Francisco', line1: '123 Main Street', postalCode: '94102' },
      routingNumber: '121000248',
      accountNumber: '9876543210',
      accountType: 'checking',
      secondaryNetworks: { withdraw: ['fednow'] }
    },
    createdAt: s.app.clock.iso(),
    updatedAt: s.app.clock.iso()
  })
  t.same((await s.call('GET', `/core/external-accounts/${externalAccount.id}/metadata`)).json().metadata, { externalId: 7 })
  t.same((await call(ach())).json(), { code: 'duplicate', message: 'The bank account is already registered', details: { context: 'body', property: 'accountNumber' } })
  t.same((await call(ach({ routingNumber: '121000249' }))).json(), { code: 'number_invalid', message: 'The routing number is invalid', details: { context: 'body', property: 'routingNumber' } })
  const address = (a: Record<string, unknown>) => ach({ accountNumber: '1234', address: { country: 'US', subdivision: 'US-CA', city: 'X', line1: 'Y', postalCode: '94102', ...a } })
  t.same((await call(address({ country: 'KP', subdivision: 'KP-01' }))).json(), { code: 'country_not_supported', message: 'The country is not supported', details: { context: 'body', property: 'address.country' } })
  t.same((await call(address({ subdivision: 'GB-LND' }))).json(), { code: 'subdivision_not_supported', message: 'The subdivision is not supported', details: { context: 'body', property: 'address.subdivision' } })
  t.same((await call(address({ postalCode: 'ABC' }))).json(), { code: 'postal_code_invalid', message: 'The postal code is invalid', details: { context: 'body', property: 'address.postalCode' } })
  const big = await call(ach({ accountNumber: '55555', metadata: { blob: 'x'.repeat(1100) } }))
  t.equal(big.statusCode, 201)
  t.equal(big.json().errors.metadata.code, 'content_too_large')
  for (const payload of [ach({ asset: 'EUR' }), ach({ accountNumber: '0000' }), ach({ routingNumber: '12' }), ach({ accountType: 'loan' })]) {
    t.equal((await call(payload)).statusCode, 400)
  }
})

t.test('a card turns ok after the check delay on the sandbox clock, or by the control; get, patch, delete; events', async t => {
  const s = await setup(t, { cardCheckDelaySeconds: 10 })
  await ready(s)
  const first = (await s.call('POST', '/core/external-accounts', { payload: card('4111111111111111') })).json().externalAccount
  s.app.clock.advance(5)
  const second = (await s.call('POST', '/core/external-accounts', { payload: card('5555555555554444') })).json().externalAccount
  s.app.clock.advance(4)
  await s.app.clock.settle()
  await s.renewToken()
  t.equal((await s.call('GET', `/core/external-accounts/${first.id}`)).json().externalAccount.status, 'processing')
  s.app.clock.advance(1)
  await s.app.clock.settle()
  await s.renewToken()
  const ok = (await s.call('GET', `/core/external-accounts/${first.id}`)).json().externalAccount
  t.equal(ok.status, 'ok')
  t.same(ok.features, ['deposit', 'withdraw'])

  const forced = await s.app.inject({ method: 'POST', url: `/_sandbox/external-accounts/${second.id}/status`, payload: { status: 'failed', reason: 'card-declined-by-bank' } })
  t.equal(forced.statusCode, 200)
  t.same(forced.json().externalAccount.statusDetails, { reason: 'card-declined-by-bank' })
  t.equal(forced.json().externalAccount.status, 'failed')
  t.same(forced.json().externalAccount.features, [])
  t.equal((await s.app.inject({ method: 'POST', url: `/_sandbox/external-accounts/${randomUUID()}/status`, payload: { status: 'ok' } })).statusCode, 404)
  t.equal((await s.app.inject({ method: 'POST', url: `/_sandbox/external-accounts/${second.id}/status`, payload: { status: 'nope' } })).statusCode, 400)

  const patched = await s.call('PATCH', `/core/external-accounts/${first.id}`, { payload: { label: 'Renamed' } })
  t.equal(patched.statusCode, 200)
  t.equal(patched.json().externalAccount.label, 'Renamed')
  t.equal((await s.call('PATCH', `/core/external-accounts/${first.id}`, { payload: { status: 'ok' } })).statusCode, 400, 'only the label can change')
  t.equal((await s.call('PATCH', `/core/external-accounts/${first.id}`, { payload: {} })).statusCode, 400)

  const other = await makeUser(s.app)
  const notFound = { code: 'entity_not_found', message: 'The external account cannot be found', details: { entity: 'external-account' } }
  t.same((await s.call('GET', `/core/external-accounts/${first.id}`, { user: other.id })).json(), notFound)
  t.same((await s.call('DELETE', `/core/external-accounts/${first.id}`, { user: other.id })).json(), notFound)
  t.same((await s.call('GET', `/core/external-accounts/${randomUUID()}`)).json(), notFound)
  t.equal((await s.call('GET', '/core/external-accounts/not-a-uuid')).statusCode, 400)
  t.same((await s.call('GET', '/core/external-accounts', { user: other.id })).json(), { externalAccounts: [] })

  t.equal((await s.call('DELETE', `/core/external-accounts/${first.id}`)).statusCode, 204)
  t.same((await s.call('DELETE', `/core/external-accounts/${first.id}`)).json(), notFound)
  t.equal((await s.call('POST', '/core/external-accounts', { payload: card('4111111111111111') })).statusCode, 201, 'a deleted card can be added again')

  const events = await eventsOf(s.app, 'core.external-account.')
  t.same(events.map(e => [e.type, (e.data.externalAccount as { id: string, status: string }).id, (e.data.externalAccount as { status: string }).status]).slice(0, 5), [
    ['core.external-account.created', first.id, 'processing'],
    ['core.external-account.created', second.id, 'processing'],
    ['core.external-account.status-changed', first.id, 'ok'],
    ['core.external-account.status-changed', second.id, 'failed'],
    ['core.external-account.deleted', first.id, 'ok']
  ])
})

t.test('a card expires on the sandbox clock', async t => {
  const s = await setup(t)
  await ready(s)
  const now = new Date(s.app.clock.now())
  const c = (await s.call('POST', '/core/external-accounts', { payload: card('4111111111111111', { expiryDate: { month: now.getUTCMonth() + 1, year: now.getUTCFullYear() } }) })).json().externalAccount
  s.app.clock.set(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
  await s.app.clock.settle()
  await s.renewToken()
  const got = (await s.call('GET', `/core/external-accounts/${c.id}`)).json().externalAccount
  t.equal(got.status, 'expired')
  t.same(got.statusDetails, { reason: 'card-expired' })
})

t.test('the sandbox entity is a real external account', async t => {
  const s = await setup(t)
  const res = await s.app.inject({ method: 'POST', url: '/_sandbox/entities/external-accounts', payload: { userId: s.userId } })
  t.equal(res.statusCode, 201, res.body)
  const id = res.json().id
  const got = await s.call('GET', `/core/external-accounts/${id}`)
  t.equal(got.statusCode, 200)
  t.equal(got.json().externalAccount.status, 'ok')
})

t.test('the full card number appears in no answer, event or request-log entry', async t => {
  const s = await setup(t)
  await ready(s)
  const numbers = ['4111111111111111', '4000000000000002', '5105105105105100', '4111111111111112']
  const answers: string[] = []
  for (const n of numbers) answers.push((await s.call('POST', '/core/external-accounts', { payload: card(n) })).body)
  answers.push((await s.call('GET', '/core/external-accounts')).body)
  const log = await s.app.inject({ method: 'GET', url: '/_sandbox/requests?limit=100' })
  t.equal(log.statusCode, 200)
  const events = JSON.stringify(await eventsOf(s.app, 'core.external-account.'))
  const rows = JSON.stringify(await s.app.storage.db.prepare('SELECT * FROM external_accounts').all())
  for (const n of ['4111111111111111', '4000000000000002', '5105105105105100']) {
    for (const [what, text] of [['answers', answers.join('\n')], ['request log', log.body], ['events', events], ['stored rows', rows]]) {
      t.notOk(text.includes(n), `${n} is not in the ${what}`)
    }
  }
  t.ok(log.body.includes('************1111'), 'the log shows the last four digits')
  t.notOk(log.body.includes('"123"'), 'nor the security code')
})

t.test('a card rail without features is 409 rail_feature_not_available', async t => {
  const s = await setup(t)
  await ready(s)
  const fixture = await s.app.inject({
    method: 'POST',
    url: '/_sandbox/fixtures',
    payload: { rails: [{ type: 'card', network: 'visa', method: 'debit-card', asset: 'GBP', decimals: 2, features: [] }] }
  })
  t.equal(fixture.statusCode, 201, fixture.body)
  const res = await s.call('POST', '/core/external-accounts', { payload: card('4111111111111111') })
  t.equal(res.statusCode, 409)
  t.same(res.json(), { code: 'rail_feature_not_available', message: 'The rail for the specified type, asset and network does not have any available features' })
})
