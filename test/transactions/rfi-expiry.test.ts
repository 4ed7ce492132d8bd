// Requests for information closed unanswered: the sandbox clock expires a pending RFI
// RFI_EXPIRY_SECONDS after it opened, and the control API closes one at once (expired or failed);
// either way a transaction on hold fails (travel-rule-verification-failed) and its hold is
// released.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { acct, transactionSetup, type TransactionSetup } from './support.js'

const EXPIRY = 600

/** A GBP to BTC trade put on hold by the control API: its id and its pending RFI's. */
async function onHold (s: TransactionSetup): Promise<{ transactionId: string, rfiId: string }> {
  const quoteId = await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '40.00' } })
  const created = await s.commit({ quoteId })
  t.equal(created.statusCode, 201)
  const transactionId = created.json().transaction.id as string
  const held = await s.app.inject({ method: 'POST', url: `/_sandbox/transactions/${transactionId}/status`, payload: { status: 'on-hold' } })
  t.equal(held.json().transaction.status, 'on-hold')
  const rfis = (await s.call('GET', `/core/transactions/${transactionId}/requests-for-information`)).json().requestsForInformation
  t.equal(rfis.length, 1)
  return { transactionId, rfiId: rfis[0].id }
}

t.test('the clock expires a pending RFI; its transaction fails and the hold is released', async t => {
  const s = await transactionSetup(t, { rfiExpirySeconds: EXPIRY })
  await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: true } })
  await s.fund(s.accounts.GBP, 'GBP', '100.00')
  const { transactionId, rfiId } = await onHold(s)
  t.same(await s.balance(s.accounts.GBP), { total: '100', available: '60' })

  await s.advance(EXPIRY - 1)
  await s.renewToken()
  t.equal((await s.call('GET', `/core/transactions/${transactionId}/requests-for-information/${rfiId}`)).json().requestForInformation.status, 'pending', 'not yet')
  t.equal((await s.call('GET', `/core/transactions/${transactionId}`)).json().transaction.status, 'on-hold')

  await s.advance(1)
  await s.renewToken()
  const rfi = (await s.call('GET', `/core/transactions/${transactionId}/requests-for-information/${rfiId}`)).json().requestForInformation
  t.match(rfi, { id: rfiId, type: 'travel-rule', status: 'expired', updatedAt: s.app.clock.iso() })
  const transaction = (await s.call('GET', `/core/transactions/${transactionId}`)).json().transaction
  t.match(transaction, { status: 'failed', statusDetails: { reason: 'travel-rule-verification-failed' } })
  t.same(await s.balance(s.accounts.GBP), { total: '100', available: '100' }, 'the hold is released')
  t.same(await s.balance(s.accounts.BTC), { total: '0', available: '0' })

  const update = await s.call('PUT', `/core/transactions/${transactionId}/requests-for-information/${rfiId}`, { payload: { data: { name: 'Ada' } } })
  t.equal(update.statusCode, 409, 'an expired RFI cannot be answered')
  t.same(update.json().details, { reasons: ['request-for-information-update-not-allowed'] })
})

t.test('the control closes a pending RFI at once, once', async t => {
  const s = await transactionSetup(t, { rfiExpirySeconds: EXPIRY })
  await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: true } })
  await s.fund(s.accounts.GBP, 'GBP', '100.00')
  const { transactionId, rfiId } = await onHold(s)
  const url = `/_sandbox/transactions/${transactionId}/requests-for-information/${rfiId}/status`

  const bad = await s.app.inject({ method: 'POST', url, payload: { status: 'ok' } })
  t.equal(bad.statusCode, 400, 'only expired or failed')
  t.equal(bad.json().code, 'request_invalid')

  const closed = await s.app.inject({ method: 'POST', url, payload: { status: 'failed' } })
  t.equal(closed.statusCode, 200)
  t.match(closed.json(), {
    requestForInformation: { id: rfiId, status: 'failed' },
    transaction: { id: transactionId, status: 'failed', statusDetails: { reason: 'travel-rule-verification-failed' } }
  })
  t.same(await s.balance(s.accounts.GBP), { total: '100', available: '100' })

  const again = await s.app.inject({ method: 'POST', url, payload: { status: 'expired' } })
  t.equal(again.statusCode, 409)
  t.same(again.json(), { code: 'request_for_information_not_pending', message: 'The request for information is not pending', details: { status: 'failed' } })

  const noRfi = await s.app.inject({ method: 'POST', url: `/_sandbox/transactions/${transactionId}/requests-for-information/${randomUUID()}/status`, payload: { status: 'expired' } })
  t.equal(noRfi.statusCode, 404)
  t.equal(noRfi.json().details.entity, 'request-for-information')
  const noTransaction = await s.app.inject({ method: 'POST', url: `/_sandbox/transactions/${randomUUID()}/requests-for-information/${rfiId}/status`, payload: { status: 'expired' } })
  t.equal(noTransaction.statusCode, 404)
  t.equal(noTransaction.json().details.entity, 'transaction')

  // Long after, the clock finds nothing left to expire.
  await s.advance(EXPIRY * 2)
  await s.renewToken()
  t.equal((await s.call('GET', `/core/transactions/${transactionId}/requests-for-information/${rfiId}`)).json().requestForInformation.status, 'failed')
})
