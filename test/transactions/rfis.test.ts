// Requests for information: a crypto withdrawal worth 1000 USD or more committed without travel-rule
// data goes on hold with a pending RFI; listing and getting it; answering it resumes the
// transaction, which completes when the clock moves; an RFI that is not pending cannot be
// updated; transactions of other users are not found; events reach a real receiver in order.
import t from 'tap'
import { quoteSetup, type QuoteSetup } from '../quotes/support.js'
import { DEMO_ORG, accessToken, bearer, makeUser, onBehalfOf } from '../helpers.js'
import { addEndpoint, managementLink, startReceiver } from '../webhooks/support.js'
import { changeTransactionStatus, createTransaction, ledgerOf } from '../../src/transactions/service.js'
import { travelRuleData } from '../../src/transactions/rfis.js'

const BTC_ADDRESS = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'
const CONTEXT = { ip: '47.174.97.164', agent: 'rfi-test' }
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const rfisUrl = (transactionId: string, rfiId?: string): string =>
  `/core/transactions/${transactionId}/requests-for-information${rfiId === undefined ? '' : `/${rfiId}`}`

/** The user's BTC account funded with 1 BTC through the crypto deposit helper. */
async function funded (s: QuoteSetup): Promise<void> {
  const put = await s.call('PUT', `/core/accounts/${s.accounts.BTC}/deposit-method?type=crypto&asset=BTC&network=bitcoin`)
  const address = put.json().depositMethod.details.address
  const res = await s.call('POST', '/core/accounts/test-helpers/crypto-deposits', { payload: { network: 'bitcoin', address, asset: 'BTC', amount: '1' } })
  if (res.statusCode !== 202) throw new Error(res.body)
}

/** A withdrawal of `usd` worth of BTC to an outside address, committed without travel-rule data. */
async function withdrawal (s: QuoteSetup, usd: string): Promise<{ id: string, status: string, requirements: string[] }> {
  const quote = await s.quote({ origin: { type: 'account', id: s.accounts.BTC }, destination: { type: 'crypto-address', asset: 'BTC', network: 'bitcoin', address: BTC_ADDRESS }, denomination: { asset: 'USD', amount: usd } })
  if (quote.statusCode !== 201) throw new Error(JSON.stringify(quote.json()))
  const { transaction } = await createTransaction(s.app, DEMO_ORG, s.userId, { quoteId: quote.json().quote.id }, CONTEXT)
  return { id: String(transaction.id), status: String(transaction.status), requirements: quote.json().quote.requirements }
}

const widgetPayload = {
  proof: {
    type: 'self-declaration',
    address: 'bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
    confirmed: true,
    status: 'verified',
    txUpdate: {
      originatorProof: { type: 'self-declaration', address: 'bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', confirmed: true, status: 'verified' },
      transactionAmount: '4000000',
      originatorEqualsBeneficiary: true,
      beneficiary: {}
    }
  },
  errors: [],
  status: 'pending',
  valid: true
}

t.test('an on-hold withdrawal\'s RFI: listed, got, answered; the transaction resumes and completes on the clock', async t => {
  const s = await quoteSetup(t)
  await funded(s)
  const receiver = await startReceiver(t)
  await addEndpoint(s.app, await managementLink(s.app), { url: receiver.url, eventTypes: ['core.transaction.status-changed'] })

  const held = await withdrawal(s, '5000')
  t.ok(held.requirements.includes('travel-rule'), 'the quote carries travel-rule')
  t.equal(held.status, 'on-hold', 'committed without travel-rule data: on hold')

  const list = await s.call('GET', rfisUrl(held.id))
  t.equal(list.statusCode, 200)
  const [rfi] = list.json().requestsForInformation
  t.same(list.json(), { requestsForInformation: [{ id: rfi.id, type: 'travel-rule', status: 'pending', createdAt: rfi.createdAt, updatedAt: rfi.createdAt }] })
  t.match(rfi.id, UUID)
  t.match(rfi.createdAt, ISO)

  const got = await s.call('GET', rfisUrl(held.id, rfi.id))
  t.equal(got.statusCode, 200)
  t.same(got.json(), { requestForInformation: rfi })

  for (const [name, payload] of [['no data', {}], ['empty data', { data: {} }], ['data not an object', { data: 'x' }]] as const) {
    const bad = await s.call('PUT', rfisUrl(held.id, rfi.id), { payload })
    t.equal(bad.statusCode, 400, name)
    t.equal(bad.json().code, 'request_invalid', name)
  }
  t.equal((await ledgerOf(s.app).get(DEMO_ORG, held.id))!.status, 'on-hold', 'a refused answer changes nothing')

  await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 2 } })
  const answered = await s.call('PUT', rfisUrl(held.id, rfi.id), { payload: { data: widgetPayload } })
  t.equal(answered.statusCode, 200, answered.body)
  const after = answered.json().requestForInformation
  t.same(after, { id: rfi.id, type: 'travel-rule', status: 'ok', data: widgetPayload.proof.txUpdate, createdAt: rfi.createdAt, updatedAt: after.updatedAt }, 'the widget\'s transfer update is kept')
  t.not(after.updatedAt, rfi.updatedAt)
  t.same((await s.call('GET', rfisUrl(held.id, rfi.id))).json().requestForInformation, after, 'stored')

  const resumed = await ledgerOf(s.app).get(DEMO_ORG, held.id)
  t.equal(resumed!.status, 'processing', 'the last pending RFI answered: processing again')

  const again = await s.call('PUT', rfisUrl(held.id, rfi.id), { payload: { data: { name: 'John Doe' } } })
  t.equal(again.statusCode, 409)
  t.same(again.json(), {
    code: 'operation_not_allowed',
    message: 'The current status of the request for information does not allow updates',
    details: { reasons: ['request-for-information-update-not-allowed'] }
  })

  await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 4 } })
  t.equal((await ledgerOf(s.app).get(DEMO_ORG, held.id))!.status, 'processing', 'not before TRANSACTION_SETTLEMENT_SECONDS')
  await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 1 } })
  t.equal((await ledgerOf(s.app).get(DEMO_ORG, held.id))!.status, 'completed', 'completed once the clock moved')
  t.same((await s.call('GET', rfisUrl(held.id))).json().requestsForInformation, [after], 'the answered RFI stays ok')

  const deliveries = await receiver.waitFor(3)
  const bodies = deliveries.map(d => JSON.parse(d.body))
  t.same(bodies.map(b => `${b.data.transaction.id === held.id ? 'held' : 'other'}:${b.data.transaction.status}`), ['held:on-hold', 'held:processing', 'held:completed'])
  t.same(bodies[0].data.transaction.statusDetails, { reason: 'pending-requests-for-information' })
})

t.test('an RFI opened by the control API; a failed transaction\'s RFI cannot be updated', async t => {
  const s = await quoteSetup(t)
  await funded(s)
  const small = await withdrawal(s, '100')
  t.equal(small.status, 'processing', 'below the travel-rule threshold: processing')
  t.same((await s.call('GET', rfisUrl(small.id))).json(), { requestsForInformation: [] }, 'no RFI yet')

  await changeTransactionStatus(s.app, small.id, 'on-hold')
  const [rfi] = (await s.call('GET', rfisUrl(small.id))).json().requestsForInformation
  t.match(rfi, { type: 'travel-rule', status: 'pending' })

  await changeTransactionStatus(s.app, small.id, 'failed')
  const failed = (await s.call('GET', rfisUrl(small.id, rfi.id))).json().requestForInformation
  t.equal(failed.status, 'failed', 'the transaction failed: so did its pending RFI')
  const update = await s.call('PUT', rfisUrl(small.id, rfi.id), { payload: { data: { name: 'John Doe' } } })
  t.equal(update.statusCode, 409)
  t.same(update.json().details, { reasons: ['request-for-information-update-not-allowed'] })
})

t.test('404s: unknown transaction, unknown RFI, another user\'s transaction; 400 and 403', async t => {
  const s = await quoteSetup(t)
  await funded(s)
  const held = await withdrawal(s, '5000')
  const [rfi] = (await s.call('GET', rfisUrl(held.id))).json().requestsForInformation
  const transactionNotFound = { code: 'entity_not_found', message: 'The transaction cannot be found', details: { entity: 'transaction' } }
  const rfiNotFound = { code: 'entity_not_found', message: 'The request for information cannot be found', details: { entity: 'request-for-information' } }
  const unknown = '4a1e5a6c-0000-4000-8000-000000000000'

  const other = await makeUser(s.app)
  const cases: Array<[string, 'GET' | 'PUT', string, string | null | undefined, unknown]> = [
    ['list, unknown transaction', 'GET', rfisUrl(unknown), undefined, transactionNotFound],
    ['get, unknown transaction', 'GET', rfisUrl(unknown, rfi.id), undefined, transactionNotFound],
    ['put, unknown transaction', 'PUT', rfisUrl(unknown, rfi.id), undefined, transactionNotFound],
    ['get, unknown RFI', 'GET', rfisUrl(held.id, unknown), undefined, rfiNotFound],
    ['put, unknown RFI', 'PUT', rfisUrl(held.id, unknown), undefined, rfiNotFound],
    ['list, another user', 'GET', rfisUrl(held.id), other.id, transactionNotFound],
    ['get, another user', 'GET', rfisUrl(held.id, rfi.id), other.id, transactionNotFound],
    ['put, another user', 'PUT', rfisUrl(held.id, rfi.id), other.id, transactionNotFound]
  ]
  for (const [name, method, url, user, answer] of cases) {
    const res = await s.call(method, url, { payload: method === 'PUT' ? { data: { name: 'John Doe' } } : undefined, ...(user === undefined ? {} : { user }) })
    t.equal(res.statusCode, 404, name)
    t.same(res.json(), answer, name)
  }
  t.equal((await s.call('GET', rfisUrl(held.id, rfi.id))).json().requestForInformation.status, 'pending', 'nobody else answered it')

  const badId = await s.call('GET', rfisUrl('not-a-uuid'))
  t.equal(badId.statusCode, 400)
  const readOnly = await accessToken(s.app, { scope: 'core.transactions.requests-for-information:read core.users:act-on-behalf-of' })
  const headers = { ...bearer(readOnly), ...onBehalfOf(s.userId) }
  t.equal((await s.app.inject({ method: 'GET', url: rfisUrl(held.id, rfi.id), headers })).statusCode, 200, 'reading needs :read')
  const put = await s.app.inject({ method: 'PUT', url: rfisUrl(held.id, rfi.id), headers, payload: { data: { name: 'John Doe' } } })
  t.equal(put.statusCode, 403, 'answering needs :update')
  t.same(put.json().details, { security: [{ scheme: 'OAuth', schemeScopes: ['core.transactions.requests-for-information:update'], tokenScopes: ['core.transactions.requests-for-information:read', 'core.users:act-on-behalf-of'] }] })
  const client = await s.call('GET', rfisUrl(held.id), { user: null })
  t.equal(client.statusCode, 403)
  t.equal(client.json().code, 'token_subject_not_allowed')
})

t.test('what an answer keeps', async t => {
  t.same(travelRuleData({ name: 'John Doe' }), { name: 'John Doe' }, 'any object as sent')
  t.same(travelRuleData({ proof: { txUpdate: { a: 1 } }, valid: true }), { a: 1 }, 'a widget payload: its transfer update')
  t.same(travelRuleData({ proof: { txUpdate: {} } }), { proof: { txUpdate: {} } }, 'an empty update: as sent')
  t.same(travelRuleData({ proof: 'x' }), { proof: 'x' })
})
