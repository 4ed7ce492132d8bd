// Quotes: trades, deposits and withdrawals with their amounts, fees and requirements; every
// documented 409 with its exact body; expiry and single use through the store's consume.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { Decimal } from '../../src/money/decimal.js'
import { quotesOf } from '../../src/quotes/service.js'
import { quoteSetup } from './support.js'
import { DEMO_ORG } from '../helpers.js'

const acct = (id: string) => ({ type: 'account', id })
const ext = (id: string, network?: string) => network === undefined ? { type: 'external-account', id } : { type: 'external-account', id, network }
const BTC_ADDRESS = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'

t.test('a trade quote: amounts to each asset\'s decimals, rates, expiry on the sandbox clock', async t => {
  const s = await quoteSetup(t)
  const res = await s.quote({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '100' } })
  t.equal(res.statusCode, 201)
  const { quote } = res.json()
  t.equal(quote.origin.amount, '100.00')
  t.equal(quote.origin.asset, 'GBP')
  t.match(quote.destination.amount, /^\d+\.\d{8}$/)
  t.same(quote.origin.node, { type: 'account', id: s.accounts.GBP, ownerId: s.userId })
  t.same(quote.denomination, { asset: 'GBP', amount: '100', rate: '1', target: 'origin' })
  t.same(quote.fees, [])
  t.same(quote.requirements, [])
  t.equal(quote.expiresAt, new Date(s.app.clock.now() + 30_000).toISOString())
  const exact = new Decimal(quote.origin.amount).times(quote.destination.rate)
  t.ok(new Decimal(quote.destination.amount).lte(exact), 'never more than the rate gives')
  t.ok(exact.minus(quote.destination.amount).lt('0.00000001'), 'within one unit')

  const target = (await s.quote({ origin: acct(s.accounts.ETH), destination: acct(s.accounts.BTC), denomination: { asset: 'BTC', amount: '0.001', target: 'destination' }, ttl: 60_000 })).json().quote
  t.equal(target.destination.amount, '0.00100000')
  t.match(target.origin.amount, /^\d+\.\d{18}$/)
  t.equal(target.expiresAt, new Date(s.app.clock.now() + 60_000).toISOString())
})

t.test('deposits and withdrawals: fees, 3-D Secure, travel rule, execution', async t => {
  const s = await quoteSetup(t)
  const deposit = (await s.quote({ origin: ext(s.cardId), destination: acct(s.accounts.GBP), denomination: { asset: 'GBP', amount: '100' } })).json().quote
  t.same(deposit.fees, [{ type: 'deposit', code: 'card-deposit', asset: 'GBP', amount: '1.50', percentage: '1.5' }])
  t.equal(deposit.destination.amount, '98.50')
  t.same(deposit.requirements, [])
  t.same(deposit.origin.node, { type: 'external-account', id: s.cardId, ownerId: s.userId, network: 'visa' })
  const threeDs = (await s.quote({ origin: ext(s.card3dsId), destination: acct(s.accounts.GBP), denomination: { asset: 'GBP', amount: '10' } })).json().quote
  t.same(threeDs.requirements, ['authorize:3ds'])
  const ach = await s.quote({ origin: acct(s.accounts.USD), destination: ext(s.achId, 'fednow'), denomination: { asset: 'USD', amount: '50' } })
  t.equal(ach.statusCode, 201)
  t.equal(ach.json().quote.destination.amount, '50.00')
  const crypto = await s.quote({ origin: acct(s.accounts.BTC), destination: { type: 'crypto-address', asset: 'BTC', network: 'bitcoin', address: BTC_ADDRESS }, denomination: { asset: 'USD', amount: '5000' } })
  t.equal(crypto.statusCode, 201)
  t.same(crypto.json().quote.requirements, ['travel-rule'])
  t.same(crypto.json().quote.destination.node, { type: 'crypto-address', network: 'bitcoin', address: BTC_ADDRESS, execution: { mode: 'simulated' } })
  t.equal(crypto.json().quote.fees[0].code, 'network-fee')
  const apmRes = await s.quote({ origin: { type: 'apm', method: 'paypal' }, destination: acct(s.accounts.USD), denomination: { asset: 'USD', amount: '50' } })
  // PayPal is not offered to residents of GB (the capabilities area's rules): the capability check says so.
  t.equal(apmRes.statusCode, 409)
  t.same(apmRes.json(), {
    code: 'user_capability_failure',
    message: 'The user has capability constraints',
    details: { capability: { code: 'paypal', requirements: [], restrictions: ['user-country-not-supported'] } }
  })
})

t.test('each documented 404 and 409 of core.create-quote, with its exact body', async t => {
  const s = await quoteSetup(t)
  const gbp = acct(s.accounts.GBP)
  const btc = acct(s.accounts.BTC)
  const den = (amount = '100', asset = 'GBP') => ({ asset, amount })
  const cases: Array<[string, Record<string, unknown>, number, Record<string, unknown>]> = [
    ['denomination asset', { origin: gbp, destination: btc, denomination: den('1', 'NOPE') }, 404,
      { code: 'entity_not_found', message: 'The denomination asset cannot be found', details: { entity: 'asset', context: 'body', property: 'denomination.asset' } }],
    ['origin', { origin: acct(randomUUID()), destination: btc, denomination: den() }, 404,
      { code: 'entity_not_found', message: 'The origin cannot be found', details: { entity: 'account', context: 'body', property: 'origin' } }],
    ['destination', { origin: gbp, destination: acct(randomUUID()), denomination: den() }, 404,
      { code: 'entity_not_found', message: 'The destination cannot be found', details: { entity: 'account', context: 'body', property: 'destination' } }],
    ['rail', { origin: btc, destination: { type: 'crypto-address', asset: 'BTC', network: 'ethereum', address: BTC_ADDRESS }, denomination: den() }, 404,
      { code: 'entity_not_found', message: 'A rail for the specified destination asset and network cannot be found', details: { entity: 'rail', context: 'body', property: 'destination' } }],
    ['node invalid', { origin: gbp, destination: gbp, denomination: den() }, 409, { code: 'transaction_node_invalid', message: 'The destination node is invalid' }],
    ['no withdraw feature', { origin: acct(s.accounts.GBP), destination: ext(s.cardId, 'mastercard'), denomination: den() }, 409,
      { code: 'transaction_node_invalid', message: 'The destination external account does not support the specified network' }],
    ['address', { origin: btc, destination: { type: 'crypto-address', asset: 'BTC', network: 'bitcoin', address: 'not-an-address' }, denomination: den() }, 409,
      { code: 'crypto_address_invalid', message: 'The crypto address is invalid', details: { context: 'body', property: 'destination.address' } }],
    ['reference invalid', { origin: acct(s.accounts.XRP), destination: { type: 'crypto-address', asset: 'XRP', network: 'xrp-ledger', address: 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe', reference: 'abc' }, denomination: den() }, 409,
      { code: 'crypto_address_invalid', message: 'The crypto address reference is invalid', details: { context: 'body', property: 'destination.reference' } }],
    ['maximum', { origin: gbp, destination: btc, denomination: den('10000000') }, 409, {
      code: 'transaction_amount_invalid', message: 'The amount maximum limit was exceeded', details: { context: 'body', property: 'denomination', rule: 'maximum-limit-exceeded', limit: { maximumAmount: 0 } }
    }],
    ['minimum', { origin: gbp, destination: btc, denomination: den('0.01') }, 409, {
      code: 'transaction_amount_invalid', message: 'The amount minimum limit was not met', details: { context: 'body', property: 'denomination', rule: 'minimum-limit-not-met', limit: { minimumAmount: 0 } }
    }],
    ['ttl', { origin: gbp, destination: btc, denomination: den(), ttl: 1000 }, 409, {
      code: 'number_invalid', message: 'The number must be greater than or equal to 18000', details: { context: 'body', property: 'ttl', rule: 'greater-than-or-equal-to-threshold', threshold: { limit: 18000 } }
    }]
  ]
  for (const [name, body, status, expected] of cases) {
    const res = await s.quote(body)
    t.equal(res.statusCode, status, name)
    const got = res.json()
    // Limits are in the denomination asset at the model's rate: compare their shape, then the rest exactly.
    const limit = got.details?.limit
    if (limit !== undefined) {
      t.equal(typeof limit.maximumAmount === 'number' || typeof limit.minimumAmount === 'number', true, name)
      expected.details = { ...(expected.details as object), limit }
    }
    t.same(got, expected, name)
  }
})

t.test('the daily limit counts consumed quotes; a quote is consumed once, never expired', async t => {
  const s = await quoteSetup(t)
  const store = quotesOf(s.app)
  const card = (amount: string) => s.quote({ origin: ext(s.cardId), destination: acct(s.accounts.USD), denomination: { asset: 'USD', amount } })
  const first = (await card('4500')).json().quote
  t.same(await store.consume(randomUUID(), first.id, s.app.clock.now()), { ok: false, reason: 'not-found' }, 'another organization cannot consume it')
  const consumed = await Promise.all([1, 2, 3].map(() => store.consume(DEMO_ORG, first.id, s.app.clock.now())))
  t.equal(consumed.filter(r => r.ok).length, 1, 'exactly one of concurrent consumes succeeds')
  t.same(consumed.filter(r => !r.ok), [{ ok: false, reason: 'used' }, { ok: false, reason: 'used' }])
  const second = (await card('4500')).json().quote
  t.ok((await store.consume(DEMO_ORG, second.id, s.app.clock.now())).ok)
  const over = await card('4500')
  t.equal(over.statusCode, 409)
  // What remains is the daily limit less the USD value of what the two consumed quotes took from the card (GBP, cut up).
  const used = new Decimal((await store.get(DEMO_ORG, first.id))!.usdValue).plus((await store.get(DEMO_ORG, second.id))!.usdValue)
  t.same(over.json(), {
    code: 'transaction_amount_invalid',
    message: 'The amount exceeds the daily limit',
    details: {
      context: 'body',
      property: 'denomination',
      rule: 'amount-exceeds-daily-limit',
      limit: { maximumAmount: '10000.00', remainingAmount: new Decimal(10000).minus(used).toDecimalPlaces(2, Decimal.ROUND_DOWN).toFixed(2) }
    }
  })
  t.equal((await card('900')).statusCode, 201, 'what remains can still be quoted')

  const expiring = (await card('10')).json().quote
  const expiresAt = Date.parse(expiring.expiresAt)
  t.same(await store.consume(DEMO_ORG, expiring.id, expiresAt), { ok: false, reason: 'expired' }, 'at expiresAt it is refused')
  t.ok((await store.consume(DEMO_ORG, expiring.id, expiresAt - 1)).ok, 'a moment before, it is not')
  t.same(await store.consume(DEMO_ORG, randomUUID(), s.app.clock.now()), { ok: false, reason: 'not-found' })
  const stored = await store.get(DEMO_ORG, expiring.id)
  t.same(stored?.quote, expiring, 'stored as answered')
})

t.test('capability failures and missing features are 409', async t => {
  const s = await quoteSetup(t)
  await s.app.inject({ method: 'POST', url: `/_sandbox/users/${s.userId}/kyc/identity`, payload: { status: 'failed' } })
  const res = await s.quote({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '10' } })
  t.equal(res.statusCode, 409)
  t.equal(res.json().code, 'user_capability_failure')
  t.equal(res.json().message, 'The user has capability constraints')
  t.equal(res.json().details.capability.code, 'trades')
  for (const body of [{ origin: { type: 'crypto-address' } }, { origin: acct('x'), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '0' } }]) {
    t.equal((await s.quote(body)).statusCode, 400)
  }
})

t.test('the other documented 409s: features, nodes, references, prices', async t => {
  const s = await quoteSetup(t)
  const den = { asset: 'GBP', amount: '10' }
  // A processing card; an ACH account (withdraw only) as an origin; two external nodes.
  const processing = (await s.call('POST', '/core/external-accounts', { payload: { type: 'card', label: 'New', number: '4242424242424242', securityCode: '123', expiryDate: { month: 1, year: 2040 } } })).json().externalAccount.id
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['processing card', { origin: ext(processing), destination: acct(s.accounts.GBP), denomination: den }, { code: 'transaction_node_invalid', message: 'The origin node is invalid' }],
    ['no deposit feature', { origin: ext(s.achId), destination: acct(s.accounts.USD), denomination: den }, { code: 'transaction_node_invalid', message: 'The origin external account lacks \'deposit\' feature' }],
    ['two external nodes', { origin: ext(s.cardId), destination: ext(s.achId), denomination: den }, { code: 'transaction_node_invalid', message: 'The origin node is invalid' }],
    ['reference missing', { origin: acct(s.accounts.XRP), destination: { type: 'crypto-address', asset: 'XRP', network: 'xrp-ledger', address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh' }, denomination: den },
      { code: 'crypto_address_invalid', message: 'The crypto address reference is missing', details: { context: 'body', property: 'destination.reference' } }]
  ]
  for (const [name, body, expected] of cases) {
    const res = await s.quote(body)
    t.equal(res.statusCode, 409, name)
    t.same(res.json(), expected, name)
  }
  // Assets changed by a fixture: BTC that cannot be bought, GBP that cannot be sold, and an asset without a price.
  const fixture = await s.app.inject({
    method: 'POST',
    url: '/_sandbox/fixtures',
    payload: {
      assets: [
        { code: 'BTC', name: 'Bitcoin', type: 'crypto', decimals: 8, features: ['sell', 'deposit', 'withdraw', 'transfer'], usdPrice: '62000' },
        { code: 'EUR', name: 'Euro', type: 'fiat', decimals: 2, features: ['buy', 'deposit', 'withdraw', 'transfer'], usdPrice: '1.08' },
        { code: 'NOPRICE', name: 'No price', type: 'crypto', decimals: 2, features: ['buy', 'sell'] }
      ]
    }
  })
  t.equal(fixture.statusCode, 201, fixture.body)
  const noPrice = (await s.call('POST', '/core/accounts', { payload: { label: 'x', asset: 'NOPRICE' } })).json().account.id
  t.same((await s.quote({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: den })).json(), {
    code: 'asset_feature_not_available', message: 'The \'buy\' feature is not available for the destination asset', details: { context: 'body', property: 'destination', feature: 'buy' }
  })
  t.same((await s.quote({ origin: acct(s.accounts.EUR), destination: acct(s.accounts.GBP), denomination: den })).json(), {
    code: 'asset_feature_not_available', message: 'The \'sell\' feature is not available for the origin asset', details: { context: 'body', property: 'origin', feature: 'sell' }
  })
  t.same((await s.quote({ origin: acct(s.accounts.GBP), destination: acct(noPrice), denomination: den })).json(), {
    code: 'operation_not_allowed', message: 'Transaction not allowed due to an unspecified error', details: { reasons: ['unspecified-error'] }
  })
})
