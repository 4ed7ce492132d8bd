// The deposit test helpers: bank deposits on FPS, SEPA, ACH, FedNow, RTP and wire, crypto deposits,
// routed through the acting user's deposit methods (the payment reference picks the account, else
// the default account), every check with its exact answer, the credit as the account and the
// ledger show it, ACH funds unsettled until the clock moves, and the events at a real receiver.
import t from 'tap'
import { ready, setup, type Setup } from '../accounts/support.js'
import { DEMO_ORG, accessToken, bearer, makeUser, onBehalfOf } from '../helpers.js'
import { addEndpoint, managementLink, startReceiver } from '../webhooks/support.js'
import { ledgerOf } from '../../src/transactions/service.js'

const BANK = '/core/accounts/test-helpers/bank-deposits'
const CRYPTO = '/core/accounts/test-helpers/crypto-deposits'
const SANDBOX_ROUTING = '021214891'

async function account ({ call }: Pick<Setup, 'call'>, asset: string, label = asset): Promise<string> {
  const res = await call('POST', '/core/accounts', { payload: { label, asset } })
  if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body}`)
  return res.json().account.id
}

async function method ({ call }: Pick<Setup, 'call'>, accountId: string, type: string, asset: string, network: string): Promise<Record<string, any>> {
  const res = await call('PUT', `/core/accounts/${accountId}/deposit-method?type=${type}&asset=${asset}&network=${network}`)
  if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`)
  return res.json().depositMethod.details
}

const balanceOf = async ({ call }: Pick<Setup, 'call'>, accountId: string) => (await call('GET', `/core/accounts/${accountId}`)).json().account.balance

async function readyUser (t: Parameters<typeof setup>[0]): Promise<Setup & { email: string }> {
  const s = await setup(t)
  await ready(s)
  const user = await s.app.storage.users.get(DEMO_ORG, s.userId)
  return { ...s, email: user!.email }
}

t.test('FPS: the reference picks the account, else the default account of the asset; the echo fills the remitter', async t => {
  const s = await readyUser(t)
  const main = await account(s, 'GBP', 'Main')
  await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 1 } })
  const savings = await account(s, 'GBP', 'Savings')
  t.same((await s.call('GET', '/core/accounts/defaults?asset=GBP')).json().accounts.map((a: { id: string }) => a.id), [main], 'the older one is the default')
  const details = await method(s, savings, 'bank', 'GBP', 'fps')

  const referenced = await s.call('POST', BANK, { payload: { network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, reference: details.reference, asset: 'GBP', amount: '100' } })
  t.equal(referenced.statusCode, 202, referenced.body)
  const echo = referenced.json().bankDeposit
  t.same(echo, {
    network: 'fps',
    sortCode: details.sortCode,
    accountNumber: details.accountNumber,
    reference: details.reference,
    asset: 'GBP',
    amount: '100',
    remitter: { name: s.email, sortCode: echo.remitter.sortCode, accountNumber: echo.remitter.accountNumber }
  }, 'the request echoed, the remitter filled')
  t.match(echo.remitter.sortCode, /^\d{6}$/)
  t.match(echo.remitter.accountNumber, /^\d{8}$/)
  t.same(await balanceOf(s, savings), { total: '100', available: '100' }, 'the referenced account is credited at once')
  t.same(await balanceOf(s, main), { total: '0', available: '0' })

  const plain = await s.call('POST', BANK, {
    payload: { network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, asset: 'GBP', amount: '25.50', remitter: { name: 'Jane Roe', sortCode: '654321', accountNumber: '87654321' } }
  })
  t.equal(plain.statusCode, 202)
  t.same(plain.json().bankDeposit, {
    network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, asset: 'GBP', amount: '25.50', remitter: { name: 'Jane Roe', sortCode: '654321', accountNumber: '87654321' }
  }, 'a full remitter is kept as sent')
  t.same(await balanceOf(s, main), { total: '25.5', available: '25.5' }, 'no reference: the default account of the asset')
  t.same(await balanceOf(s, savings), { total: '100', available: '100' })

  // The ledger's record: a completed deposit from a bank address to the account.
  const deposits = await ledgerOf(s.app).listForUser(DEMO_ORG, s.userId, 0, 10)
  t.equal(deposits.length, 2)
  t.match(deposits.find(d => d.destinationAccountId === savings), {
    kind: 'deposit',
    status: 'completed',
    body: {
      origin: { asset: 'GBP', amount: '100.00', rate: '1', node: { type: 'bank-address', network: 'fps' } },
      destination: { asset: 'GBP', amount: '100.00', rate: '1', node: { type: 'account', id: savings, ownerId: s.userId } }
    }
  })
  t.match(deposits.find(d => d.destinationAccountId === main), { status: 'completed', body: { origin: { amount: '25.50' }, destination: { amount: '25.50' } } })

  const unknown = await s.call('POST', BANK, { payload: { network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, reference: 'SB00000000', asset: 'GBP', amount: '10' } })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { code: 'entity_not_found', message: 'The account deposit method cannot be found', details: { entity: 'depositMethod' } }, 'a reference of none of the user\'s accounts')
  const wrongNumber = await s.call('POST', BANK, { payload: { network: 'fps', sortCode: details.sortCode, accountNumber: '11111111', asset: 'GBP', amount: '10' } })
  t.equal(wrongNumber.statusCode, 404)
  t.same(wrongNumber.json().details, { entity: 'depositMethod' })
})

t.test('a deposit to an account in another asset is converted on arrival', async t => {
  const s = await readyUser(t)
  const btc = await account(s, 'BTC')
  const details = await method(s, btc, 'bank', 'GBP', 'fps')
  const res = await s.call('POST', BANK, { payload: { network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, reference: details.reference, asset: 'GBP', amount: '1000' } })
  t.equal(res.statusCode, 202, res.body)
  const balance = await balanceOf(s, btc)
  t.ok(Number(balance.total) > 0 && balance.total === balance.available, `BTC credited: ${balance.total}`)
  const [deposit] = await ledgerOf(s.app).listForUser(DEMO_ORG, s.userId, 0, 1)
  t.match(deposit!.body, { origin: { asset: 'GBP', amount: '1000.00' }, destination: { asset: 'BTC', node: { id: btc } } })
  t.equal(deposit!.body.destination.amount.split('.')[1]?.length, 8, 'cut to the account asset\'s decimals')
})

t.test('SEPA: checks in order, then the credit', async t => {
  const s = await readyUser(t)
  const eur = await account(s, 'EUR')
  const details = await method(s, eur, 'bank', 'EUR', 'sepa')
  const body = (extra: Record<string, unknown> = {}) => ({ network: 'sepa', iban: details.iban, asset: 'EUR', amount: '100', ...extra })

  const cases: Array<[string, Record<string, unknown>, number, unknown]> = [
    ['asset', body({ asset: 'GBP' }), 409, { code: 'asset_not_supported', message: 'The asset is not supported', details: { context: 'body', property: 'asset' } }],
    ['unknown asset', body({ asset: 'XYZ' }), 409, { code: 'asset_not_supported', message: 'The asset is not supported', details: { context: 'body', property: 'asset' } }],
    ['minimum', body({ amount: '9.99' }), 409, {
      code: 'transaction_amount_invalid', message: 'The amount minimum limit was not met', details: { context: 'body', property: 'amount', rule: 'minimum-limit-not-met', threshold: { value: 10 } }
    }],
    ['decimals', body({ amount: '10.001' }), 409, {
      code: 'transaction_amount_invalid', message: 'The amount has more decimal places than the asset allows', details: { context: 'body', property: 'amount', rule: 'decimal-places-exceeded', threshold: { value: 2 } }
    }],
    ['remitter IBAN', body({ remitter: { iban: 'DE89370400440532013001' } }), 409, { code: 'invalid_number', message: 'The remitter IBAN is invalid', details: { context: 'body', property: 'remitter.iban' } }],
    ['remitter is recipient', body({ remitter: { iban: details.iban } }), 409, { code: 'remitter_and_recipient_cannot_match', message: 'The remitter and recipient cannot match' }],
    ['unknown IBAN', body({ iban: 'DE89370400440532013000' }), 404, { code: 'entity_not_found', message: 'The account deposit method cannot be found', details: { entity: 'depositMethod' } }],
    ['empty remitter', body({ remitter: {} }), 400, undefined],
    ['bad IBAN shape', body({ iban: 'lt12' }), 400, undefined]
  ]
  for (const [name, payload, status, answer] of cases) {
    const res = await s.call('POST', BANK, { payload })
    t.equal(res.statusCode, status, `${name}: ${res.body}`)
    if (answer !== undefined) t.same(res.json(), answer, name)
    else t.equal(res.json().code, 'request_invalid', name)
  }
  t.same(await balanceOf(s, eur), { total: '0', available: '0' }, 'nothing refused was credited')
  t.same(await ledgerOf(s.app).listForUser(DEMO_ORG, s.userId, 0, 10), [], 'and no transaction recorded')

  const ok = await s.call('POST', BANK, { payload: body({ reference: details.reference, remitter: { name: 'John Doe' } }) })
  t.equal(ok.statusCode, 202)
  const echo = ok.json().bankDeposit
  t.same(echo, { network: 'sepa', iban: details.iban, reference: details.reference, asset: 'EUR', amount: '100', remitter: { name: 'John Doe', bic: echo.remitter.bic, iban: echo.remitter.iban } })
  t.match(echo.remitter.bic, /^[A-Z]{6}[A-Z0-9]{2}$/)
  t.match(echo.remitter.iban, /^DE\d{20}$/)
  t.same(await balanceOf(s, eur), { total: '100', available: '100' })
})

t.test('ACH: unsettled funds count in the total only until the clock moves ACH_SETTLEMENT_SECONDS', async t => {
  const s = await readyUser(t)
  const receiver = await startReceiver(t)
  const usd = await account(s, 'USD')
  const details = await method(s, usd, 'bank', 'USD', 'ach')
  await addEndpoint(s.app, await managementLink(s.app), { url: receiver.url, eventTypes: ['core.transaction.created', 'core.transaction.status-changed', 'core.account.balance-changed'] })

  const wrongRouting = await s.call('POST', BANK, { payload: { network: 'ach', accountNumber: details.accountNumber, routingNumber: '011000015', amount: '123' } })
  t.equal(wrongRouting.statusCode, 404, 'another bank\'s routing number')
  const same = await s.call('POST', BANK, { payload: { network: 'ach', accountNumber: details.accountNumber, routingNumber: SANDBOX_ROUTING, amount: '123', remitter: { accountNumber: details.accountNumber, routingNumber: SANDBOX_ROUTING } } })
  t.equal(same.statusCode, 409)
  t.same(same.json(), { code: 'remitter_and_recipient_cannot_match', message: 'The remitter and recipient cannot match' })
  const extra = await s.call('POST', BANK, { payload: { network: 'ach', accountNumber: details.accountNumber, routingNumber: SANDBOX_ROUTING, amount: '123', asset: 'USD' } })
  t.equal(extra.statusCode, 400, 'ACH takes no asset')

  const res = await s.call('POST', BANK, { payload: { network: 'ach', accountNumber: details.accountNumber, routingNumber: SANDBOX_ROUTING, amount: '123' } })
  t.equal(res.statusCode, 202, res.body)
  const echo = res.json().bankDeposit
  t.same(echo, {
    network: 'ach',
    accountNumber: details.accountNumber,
    routingNumber: SANDBOX_ROUTING,
    asset: 'USD',
    amount: '123',
    remitter: { name: s.email, accountNumber: echo.remitter.accountNumber, routingNumber: echo.remitter.routingNumber, secCode: 'WEB', transactionType: 'Push', serviceType: 'SameDay' }
  })
  t.match(echo.remitter.accountNumber, /^[1-9]\d{9}$/)
  t.match(echo.remitter.routingNumber, /^\d{9}$/)
  t.same(await balanceOf(s, usd), { total: '123', available: '0' }, 'unsettled: in the total, not available')

  await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 59 } })
  t.same(await balanceOf(s, usd), { total: '123', available: '0' }, 'not yet')
  await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 1 } })
  t.same(await balanceOf(s, usd), { total: '123', available: '123' }, 'settled once ACH_SETTLEMENT_SECONDS have passed')

  const deliveries = await receiver.waitFor(4)
  const bodies = deliveries.map(d => JSON.parse(d.body))
  t.same(bodies.map(b => b.type), ['core.transaction.created', 'core.transaction.status-changed', 'core.account.balance-changed', 'core.account.balance-changed'])
  const transactionId = bodies[0].data.transaction.id
  t.match(bodies[0].data.transaction, { id: transactionId, status: 'processing', origin: { asset: 'USD', amount: '123.00', node: { type: 'bank-address', network: 'ach' } }, destination: { node: { type: 'account', id: usd } } })
  t.match(bodies[1].data.transaction, { id: transactionId, status: 'completed' })
  t.match(bodies[2].data.account, { id: usd, balance: { total: '123', available: '0' } })
  t.match(bodies[3].data.account, { id: usd, balance: { total: '123', available: '123' } })
})

t.test('FedNow, RTP and wire reach the account of the US account number, with their defaults', async t => {
  const s = await readyUser(t)
  const usd = await account(s, 'USD')
  const details = await method(s, usd, 'bank', 'USD', 'fednow')
  const fednow = await s.call('POST', BANK, { payload: { network: 'fednow', accountNumber: details.accountNumber, amount: '150' } })
  t.equal(fednow.statusCode, 202)
  const f = fednow.json().bankDeposit
  t.same(f, { network: 'fednow', accountNumber: details.accountNumber, asset: 'USD', amount: '150', remitter: { name: s.email, accountNumber: f.remitter.accountNumber, routingNumber: f.remitter.routingNumber } })
  const rtp = await s.call('POST', BANK, { payload: { network: 'rtp', accountNumber: details.accountNumber, amount: '150', remitter: { name: 'John Doe', accountNumber: '1234567890', routingNumber: '026009593' } } })
  t.same(rtp.json(), { bankDeposit: { network: 'rtp', accountNumber: details.accountNumber, asset: 'USD', amount: '150', remitter: { name: 'John Doe', accountNumber: '1234567890', routingNumber: '026009593' } } })
  const wire = await s.call('POST', BANK, { payload: { network: 'wire', accountNumber: details.accountNumber, amount: '200' } })
  t.equal(wire.statusCode, 202)
  t.same(wire.json(), { bankDeposit: { network: 'wire', accountNumber: details.accountNumber, amount: '200', asset: 'USD', remitter: { name: s.email } } })
  const wireNoName = await s.call('POST', BANK, { payload: { network: 'wire', accountNumber: details.accountNumber, amount: '200', remitter: { address1: '1 Main St' } } })
  t.equal(wireNoName.statusCode, 400, 'a wire remitter needs its name')
  t.same(await balanceOf(s, usd), { total: '500', available: '500' }, 'instant networks settle at once')
})

t.test('the acting user\'s deposit methods only; a client token is refused', async t => {
  const s = await readyUser(t)
  const other = await makeUser(s.app)
  const asOther = async (method: 'POST' | 'PUT', url: string, payload?: unknown) => await s.call(method, url, { payload, user: other.id })
  await ready({ app: s.app, userId: other.id, call: async (m, u, o) => await s.call(m, u, { ...o, user: other.id }) })
  const theirs = (await asOther('POST', '/core/accounts', { label: 'Theirs', asset: 'GBP' })).json().account.id
  const details = (await asOther('PUT', `/core/accounts/${theirs}/deposit-method?type=bank&asset=GBP&network=fps`)).json().depositMethod.details

  const res = await s.call('POST', BANK, { payload: { network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, asset: 'GBP', amount: '100' } })
  t.equal(res.statusCode, 404)
  t.same(res.json(), { code: 'entity_not_found', message: 'The account deposit method cannot be found', details: { entity: 'depositMethod' } })
  const client = await s.call('POST', BANK, { payload: { network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, asset: 'GBP', amount: '100' }, user: null })
  t.equal(client.statusCode, 403)
  t.equal(client.json().code, 'token_subject_not_allowed')
  const own = await asOther('POST', BANK, { network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, asset: 'GBP', amount: '100' })
  t.equal(own.statusCode, 202, 'its owner can')
  t.same(own.json().bankDeposit.remitter.name, other.email)
})

t.test('crypto deposits: the address and reference of a deposit method, each check with its answer', async t => {
  const s = await readyUser(t)
  const receiver = await startReceiver(t)
  await addEndpoint(s.app, await managementLink(s.app), { url: receiver.url, eventTypes: ['core.transaction.created', 'core.transaction.status-changed', 'core.account.balance-changed'] })
  const btc = await account(s, 'BTC')
  const xrp = await account(s, 'XRP')
  const btcAddress = (await method(s, btc, 'crypto', 'BTC', 'bitcoin')).address
  const xrpDetails = await method(s, xrp, 'crypto', 'XRP', 'xrp-ledger')
  const senders = ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy']

  const res = await s.call('POST', CRYPTO, { payload: { network: 'bitcoin', address: btcAddress, asset: 'BTC', amount: '0.001', remitter: { addresses: senders } } })
  t.equal(res.statusCode, 202, res.body)
  t.same(res.json(), { cryptoDeposit: { network: 'bitcoin', address: btcAddress, asset: 'BTC', amount: '0.001', remitter: { addresses: senders } } })
  t.same(await balanceOf(s, btc), { total: '0.001', available: '0.001' })
  const [deposit] = await ledgerOf(s.app).listForUser(DEMO_ORG, s.userId, 0, 1)
  t.match(deposit, {
    kind: 'deposit',
    status: 'completed',
    body: {
      origin: { asset: 'BTC', amount: '0.00100000', node: { type: 'crypto-address', network: 'bitcoin', address: senders[0], execution: { mode: 'simulated', transactionHash: /^[0-9a-f]{64}$/ } } },
      destination: { asset: 'BTC', amount: '0.00100000', node: { type: 'account', id: btc } }
    }
  })
  const types = (await receiver.waitFor(3)).map(d => JSON.parse(d.body).type)
  t.same(types, ['core.transaction.created', 'core.transaction.status-changed', 'core.account.balance-changed'])

  const xrpOk = await s.call('POST', CRYPTO, { payload: { network: 'xrp-ledger', address: xrpDetails.address, reference: xrpDetails.reference, asset: 'XRP', amount: '5', remitter: { addresses: ['rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe'] } } })
  t.equal(xrpOk.statusCode, 202, xrpOk.body)
  t.same(await balanceOf(s, xrp), { total: '5', available: '5' })

  const notFound = { code: 'entity_not_found', message: 'The account deposit method cannot be found', details: { entity: 'depositMethod' } }
  const invalid = (property: string) => ({ code: 'crypto_address_invalid', message: 'The crypto address is invalid', details: { context: 'body', property } })
  const xrpBody = (extra: Record<string, unknown>) => ({ network: 'xrp-ledger', address: xrpDetails.address, reference: xrpDetails.reference, asset: 'XRP', amount: '5', ...extra })
  const cases: Array<[string, Record<string, unknown>, number, unknown]> = [
    ['no rail', { network: 'bitcoin', address: btcAddress, asset: 'ETH', amount: '1' }, 404, { code: 'entity_not_found', message: 'A rail for the specified type, asset and network cannot be found', details: { entity: 'rail' } }],
    ['unknown network', { network: 'nowhere', address: btcAddress, asset: 'BTC', amount: '1' }, 404, { code: 'entity_not_found', message: 'A rail for the specified type, asset and network cannot be found', details: { entity: 'rail' } }],
    ['minimum', { network: 'bitcoin', address: btcAddress, asset: 'BTC', amount: '0.00000009' }, 409, {
      code: 'transaction_amount_invalid', message: 'The amount minimum limit was not met', details: { context: 'body', property: 'amount', rule: 'minimum-limit-not-met', threshold: { value: 10 } }
    }],
    ['decimals', { network: 'bitcoin', address: btcAddress, asset: 'BTC', amount: '0.000000011' }, 409, {
      code: 'transaction_amount_invalid', message: 'The amount has more decimal places than the asset allows', details: { context: 'body', property: 'amount', rule: 'decimal-places-exceeded', threshold: { value: 8 } }
    }],
    ['address', { network: 'bitcoin', address: 'not-an-address', asset: 'BTC', amount: '1' }, 409, invalid('address')],
    ['remitter address', xrpBody({ remitter: { addresses: ['not-an-address'] } }), 409, invalid('remitter.addresses')],
    ['two remitters on an account network', xrpBody({ remitter: { addresses: ['rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh'] } }), 409, {
      code: 'crypto_address_invalid', message: 'The number of addresses must be less than or equal to 1', details: { context: 'body', property: 'remitter.addresses', threshold: { limit: 1 } }
    }],
    ['remitter is recipient', xrpBody({ remitter: { addresses: [xrpDetails.address] } }), 409, { code: 'remitter_and_recipient_cannot_match', message: 'The remitter and recipient cannot match' }],
    ['wrong reference', xrpBody({ reference: '1' }), 404, notFound],
    ['no reference', xrpBody({ reference: undefined }), 404, notFound],
    ['another address', { network: 'bitcoin', address: senders[0], asset: 'BTC', amount: '1' }, 404, notFound],
    ['duplicate remitters', xrpBody({ remitter: { addresses: ['rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe', 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe'] } }), 400, undefined],
    ['missing asset', { network: 'bitcoin', address: btcAddress, amount: '1' }, 400, undefined]
  ]
  for (const [name, payload, status, answer] of cases) {
    const r = await s.call('POST', CRYPTO, { payload })
    t.equal(r.statusCode, status, `${name}: ${r.body}`)
    if (answer !== undefined) t.same(r.json(), answer, name)
    else t.equal(r.json().code, 'request_invalid', name)
  }
  t.same(await balanceOf(s, xrp), { total: '5', available: '5' }, 'nothing refused was credited')

  // A rail that takes no deposits (a fixture's change of the catalogue).
  const fixture = await s.app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { rails: [{ type: 'crypto', network: 'litecoin', method: 'crypto-transaction', asset: 'LTC', decimals: 8, features: ['withdraw'] }] } })
  t.equal(fixture.statusCode, 201, fixture.body)
  const closed = await s.call('POST', CRYPTO, { payload: { network: 'litecoin', address: 'LVg2kJoFNg45Nbpy53h7Fe1wKyeXVRhMH9', asset: 'LTC', amount: '1' } })
  t.equal(closed.statusCode, 409)
  t.same(closed.json(), { code: 'rail_feature_not_available', message: 'The \'deposit\' feature is not available for the rail', details: { feature: 'deposit' } })
})

t.test('funds reaching an archived account by its reference unarchive it; a token without the scope is refused', async t => {
  const s = await readyUser(t)
  const receiver = await startReceiver(t)
  await account(s, 'GBP', 'Main')
  await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 1 } })
  const old = await account(s, 'GBP', 'Old')
  const details = await method(s, old, 'bank', 'GBP', 'fps')
  t.equal((await s.call('DELETE', `/core/accounts/${old}`)).statusCode, 204)
  await addEndpoint(s.app, await managementLink(s.app), { url: receiver.url, eventTypes: ['core.account.unarchived'] })

  const res = await s.call('POST', BANK, { payload: { network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, reference: details.reference, asset: 'GBP', amount: '10' } })
  t.equal(res.statusCode, 202, res.body)
  const [unarchived] = await receiver.waitFor(1)
  t.match(JSON.parse(unarchived!.body), { type: 'core.account.unarchived', data: { account: { id: old } } })
  const listed = (await s.call('GET', '/core/accounts?asset=GBP')).json().accounts.map((a: { id: string }) => a.id)
  t.ok(listed.includes(old), 'listed again')
  t.same(await balanceOf(s, old), { total: '10', available: '10' })

  const narrow = await accessToken(s.app, { scope: 'core.accounts:read core.users:act-on-behalf-of' })
  const refused = await s.app.inject({ method: 'POST', url: BANK, headers: { ...bearer(narrow), ...onBehalfOf(s.userId) }, payload: { network: 'wire', accountNumber: '123456789', amount: '10' } })
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().code, 'token_insufficient_scopes')
})

t.test('ACH_SETTLEMENT_SECONDS=0: ACH funds are available at once', async t => {
  const s = await setup(t, { achSettlementSeconds: 0 })
  await ready(s)
  const usd = await account(s, 'USD')
  const details = await method(s, usd, 'bank', 'USD', 'ach')
  const res = await s.call('POST', BANK, { payload: { network: 'ach', accountNumber: details.accountNumber, routingNumber: SANDBOX_ROUTING, amount: '10' } })
  t.equal(res.statusCode, 202)
  t.same(await balanceOf(s, usd), { total: '10', available: '10' })
})
