// Transactions: committing quotes (every documented refusal with its exact body), reading and
// listing them as their parties, the status machine driven by the sandbox clock and control, and
// the balances it leaves.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { Decimal } from '../../src/money/decimal.js'
import { accessToken, bearer, makeUser, onBehalfOf } from '../helpers.js'
import { BTC_ADDRESS, USER_CONTEXT, acct, ext, transactionSetup } from './support.js'

const NOT_FOUND_QUOTE = { code: 'entity_not_found', message: 'The quote cannot be found', details: { entity: 'quote' } }

t.test('a trade: 201 with the quote\'s snapshot, the hold, completion on the sandbox clock, balances', async t => {
  const s = await transactionSetup(t)
  await s.fund(s.accounts.GBP, 'GBP', '500')
  const quoteRes = await s.quote({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '100' } })
  const quote = quoteRes.json().quote
  const quotedAt = s.app.clock.iso()
  const res = await s.commit({ quoteId: quote.id, metadata: { externalId: 123 } })
  t.equal(res.statusCode, 201)
  const { transaction } = res.json()
  t.same(Object.keys(res.json()), ['transaction'], 'no errors')
  t.same(transaction, {
    id: transaction.id,
    origin: quote.origin,
    destination: quote.destination,
    denomination: quote.denomination,
    fees: [],
    status: 'processing',
    quotedAt,
    createdAt: s.app.clock.iso(),
    updatedAt: s.app.clock.iso()
  })
  t.same(await s.balance(s.accounts.GBP), { total: '500', available: '400' }, 'the origin amount is held')
  t.same(await s.balance(s.accounts.BTC), { total: '0', available: '0' })

  const got = await s.call('GET', `/core/transactions/${transaction.id}`)
  t.equal(got.statusCode, 200)
  t.same(got.json(), { transaction })
  const metadata = await s.call('GET', `/core/transactions/${transaction.id}/metadata`)
  t.same(metadata.json().metadata, { externalId: 123 }, 'metadata given at creation')

  await s.advance(4)
  t.equal((await s.call('GET', `/core/transactions/${transaction.id}`)).json().transaction.status, 'processing', 'not before TRANSACTION_SETTLEMENT_SECONDS')
  await s.advance(1)
  const done = (await s.call('GET', `/core/transactions/${transaction.id}`)).json().transaction
  t.equal(done.status, 'completed')
  t.equal(done.completedAt, s.app.clock.iso())
  t.equal(done.updatedAt, s.app.clock.iso())
  t.same(await s.balance(s.accounts.GBP), { total: '400', available: '400' })
  const btc = new Decimal(quote.destination.amount).toFixed()
  t.same(await s.balance(s.accounts.BTC), { total: btc, available: btc })
})

t.test('metadata over the limit: created anyway, with errors.metadata', async t => {
  const s = await transactionSetup(t)
  await s.fund(s.accounts.GBP, 'GBP', '50')
  const quoteId = await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '10' } })
  const res = await s.commit({ quoteId, metadata: { big: 'x'.repeat(1100) } })
  t.equal(res.statusCode, 201)
  t.same(res.json().errors, { metadata: { code: 'content_too_large', message: 'The entity metadata size is greater than maximum size limit', details: { threshold: { unit: 'characters', limit: 1024 } } } })
  t.equal(res.json().transaction.status, 'processing')
})

t.test('the user context headers: 409 naming each missing one, before anything else', async t => {
  const s = await transactionSetup(t)
  const none = await s.commit({ quoteId: randomUUID() }, {})
  t.equal(none.statusCode, 409)
  t.same(none.json(), {
    code: 'operation_not_allowed',
    message: 'Request not allowed due to missing user context: send the X-Uphold-User-Ip and X-Uphold-User-Agent headers',
    details: { reasons: ['missing-user-ip-header', 'missing-user-agent-header'] }
  })
  const noAgent = await s.commit({ quoteId: randomUUID() }, { 'x-uphold-user-ip': USER_CONTEXT['x-uphold-user-ip'] })
  t.same(noAgent.json().details, { reasons: ['missing-user-agent-header'] })
  t.equal(noAgent.json().message, 'Request not allowed due to missing user context: send the X-Uphold-User-Agent header')
  const noIp = await s.commit({ quoteId: randomUUID() }, { 'x-uphold-user-agent': 'agent' })
  t.same(noIp.json().details, { reasons: ['missing-user-ip-header'] })
  const badIp = await s.commit({ quoteId: randomUUID() }, { ...USER_CONTEXT, 'x-uphold-user-ip': 'not-an-ip' })
  t.equal(badIp.statusCode, 400)
})

t.test('the quote: unknown, used, expired or another user\'s is 404', async t => {
  const s = await transactionSetup(t)
  await s.fund(s.accounts.GBP, 'GBP', '500')
  const trade = { origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '10' } }

  const unknown = await s.commit({ quoteId: randomUUID() })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), NOT_FOUND_QUOTE)

  const used = await s.quoteId(trade)
  t.equal((await s.commit({ quoteId: used })).statusCode, 201)
  const again = await s.commit({ quoteId: used })
  t.equal(again.statusCode, 404)
  t.same(again.json(), NOT_FOUND_QUOTE)

  const expiring = await s.quoteId(trade)
  await s.advance(30)
  const expired = await s.commit({ quoteId: expiring })
  t.equal(expired.statusCode, 404)
  t.same(expired.json(), NOT_FOUND_QUOTE)

  const mine = await s.quoteId(trade)
  const other = await makeUser(s.app)
  const theirs = await s.call('POST', '/core/transactions', { payload: { quoteId: mine }, headers: USER_CONTEXT, user: other.id })
  t.equal(theirs.statusCode, 404)
  t.same(theirs.json(), NOT_FOUND_QUOTE)
  t.equal((await s.commit({ quoteId: mine })).statusCode, 201, 'still usable by its owner')

  const invalid = await s.commit({ quoteId: 'not-a-uuid' })
  t.equal(invalid.statusCode, 400)
  t.equal(invalid.json().code, 'request_invalid')
})

t.test('insufficient balance: 409, nothing held, the quote still unused', async t => {
  const s = await transactionSetup(t)
  await s.fund(s.accounts.GBP, 'GBP', '50')
  const quoteId = await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '100' } })
  const res = await s.commit({ quoteId })
  t.equal(res.statusCode, 409)
  t.same(res.json(), { code: 'insufficient_balance', message: 'The origin does not have enough balance to perform the transaction', details: { context: 'body', property: 'origin' } })
  t.same(await s.balance(s.accounts.GBP), { total: '50', available: '50' })
  await s.fund(s.accounts.GBP, 'GBP', '50')
  t.equal((await s.commit({ quoteId })).statusCode, 201, 'the refused quote commits once the funds are there')
  t.same(await s.balance(s.accounts.GBP), { total: '100', available: '0' })
})

t.test('a withdrawal repeating a pending one is refused until the first is decided', async t => {
  const s = await transactionSetup(t)
  await s.fund(s.accounts.USD, 'USD', '500')
  const withdrawal = { origin: acct(s.accounts.USD), destination: ext(s.achId, 'fednow'), denomination: { asset: 'USD', amount: '50' } }
  const first = await s.commit({ quoteId: await s.quoteId(withdrawal) })
  t.equal(first.statusCode, 201)
  t.same(first.json().transaction.destination.node, { type: 'external-account', id: s.achId, ownerId: s.userId, network: 'fednow' })
  const second = await s.commit({ quoteId: await s.quoteId(withdrawal) })
  t.equal(second.statusCode, 409)
  t.same(second.json(), { code: 'operation_not_allowed', message: 'Transaction not allowed due to a duplicate withdrawal', details: { reasons: ['duplicate-withdrawal'] } })
  const other = await s.commit({ quoteId: await s.quoteId({ ...withdrawal, denomination: { asset: 'USD', amount: '51' } }) })
  t.equal(other.statusCode, 201, 'another amount is another withdrawal')
  await s.advance(5)
  t.same(await s.balance(s.accounts.USD), { total: '399', available: '399' }, 'both withdrawals left the account')
  t.equal((await s.commit({ quoteId: await s.quoteId(withdrawal) })).statusCode, 201, 'once the first completed, the same withdrawal is allowed')
})

t.test('3-D Secure: missing return URL, the confirmation page, approve and decline with the redirect', async t => {
  const s = await transactionSetup(t)
  const deposit = { origin: ext(s.card3dsId), destination: acct(s.accounts.GBP), denomination: { asset: 'GBP', amount: '100' } }

  const missing = await s.commit({ quoteId: await s.quoteId(deposit) })
  t.equal(missing.statusCode, 409)
  t.same(missing.json(), { code: 'operation_not_allowed', message: 'Transaction not allowed due to a missing return URL', details: { reasons: ['missing-return-url'] } })

  const returnUrl = 'https://example.com/redirect?order=7'
  const approved = await s.commit({ quoteId: await s.quoteId(deposit), params: { requirements: [{ name: 'authorize:3ds', returnUrl }] } })
  t.equal(approved.statusCode, 201)
  const tx = approved.json().transaction
  t.equal(tx.status, 'processing')
  const confirmationUrl = `http://localhost:80/_sandbox/3ds/${tx.id}`
  t.same(tx.origin.node, { type: 'external-account', id: s.card3dsId, ownerId: s.userId, network: 'visa', confirmationUrl })

  const page = await s.app.inject({ method: 'GET', url: new URL(confirmationUrl).pathname })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.headers['content-security-policy'], /default-src 'none'/)
  t.match(page.body, /<form method="post">/)
  t.match(page.body, /<button type="submit" name="decision" value="approve">Approve<\/button>/)
  t.match(page.body, /<button type="submit" name="decision" value="decline" class="decline">Decline<\/button>/)
  t.match(page.body, /100\.00 GBP/)
  t.notMatch(page.body, /<script|<link|src=|https?:\/\//, 'self-contained')

  await s.advance(60)
  t.equal((await s.call('GET', `/core/transactions/${tx.id}`)).json().transaction.status, 'processing', 'it waits for the confirmation, whatever the clock')
  const approve = await s.app.inject({ method: 'POST', url: `/_sandbox/3ds/${tx.id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'decision=approve' })
  t.equal(approve.statusCode, 303)
  t.equal(approve.headers.location, `https://example.com/redirect?order=7&transactionId=${tx.id}&status=processing`)
  const again = await s.app.inject({ method: 'POST', url: `/_sandbox/3ds/${tx.id}`, payload: { decision: 'decline' } })
  t.equal(again.statusCode, 409)
  t.same(again.json(), { code: 'authorization_not_pending', message: 'The transaction has no authorization waiting for confirmation', details: { status: 'processing' } })
  const after = await s.app.inject({ method: 'GET', url: `/_sandbox/3ds/${tx.id}` })
  t.notMatch(after.body, /<form/, 'answered: no buttons any more')
  await s.advance(5)
  const completed = (await s.call('GET', `/core/transactions/${tx.id}`)).json().transaction
  t.equal(completed.status, 'completed')
  t.same(await s.balance(s.accounts.GBP), { total: tx.destination.amount.replace(/\.?0+$/, ''), available: tx.destination.amount.replace(/\.?0+$/, '') }, 'the card deposit credited the account, less its fee')

  // The deprecated params.returnUrl still names where to return.
  const declined = await s.commit({ quoteId: await s.quoteId(deposit), params: { returnUrl: 'myapp://cards/done' } })
  t.equal(declined.statusCode, 201)
  const id = declined.json().transaction.id
  const decline = await s.app.inject({ method: 'POST', url: `/_sandbox/3ds/${id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'decision=decline' })
  t.equal(decline.statusCode, 303)
  t.equal(decline.headers.location, `myapp://cards/done?transactionId=${id}&status=failed`)
  const failed = (await s.call('GET', `/core/transactions/${id}`)).json().transaction
  t.equal(failed.status, 'failed')
  t.same(failed.statusDetails, { reason: 'card-unauthorized' })
  t.notOk('completedAt' in failed)

  const bad = await s.app.inject({ method: 'POST', url: `/_sandbox/3ds/${id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'decision=maybe' })
  t.equal(bad.statusCode, 400)
  t.equal((await s.app.inject({ method: 'GET', url: `/_sandbox/3ds/${randomUUID()}` })).statusCode, 404)
  const plain = await s.commit({ quoteId: await s.quoteId({ origin: ext(s.cardId), destination: acct(s.accounts.GBP), denomination: { asset: 'GBP', amount: '20' } }) })
  t.notOk('confirmationUrl' in plain.json().transaction.origin.node, 'a card without 3-D Secure has no confirmation page')
  t.equal((await s.app.inject({ method: 'GET', url: `/_sandbox/3ds/${plain.json().transaction.id}` })).statusCode, 404)
})

t.test('travel rule: committed without its data, the transaction is on hold at once', async t => {
  const s = await transactionSetup(t)
  await s.fund(s.accounts.BTC, 'BTC', '1')
  const withdrawal = { origin: acct(s.accounts.BTC), destination: { type: 'crypto-address', asset: 'BTC', network: 'bitcoin', address: BTC_ADDRESS }, denomination: { asset: 'USD', amount: '5000' } }
  const held = await s.commit({ quoteId: await s.quoteId(withdrawal) })
  t.equal(held.statusCode, 201)
  t.equal(held.json().transaction.status, 'on-hold')
  t.same(held.json().transaction.statusDetails, { reason: 'pending-requests-for-information' })
  await s.advance(60)
  t.equal((await s.call('GET', `/core/transactions/${held.json().transaction.id}`)).json().transaction.status, 'on-hold', 'on hold until answered')

  const given = await s.commit({ quoteId: await s.quoteId({ ...withdrawal, denomination: { asset: 'USD', amount: '5001' } }), params: { travelRule: { beneficiary: { name: 'Ada' } } } })
  t.equal(given.statusCode, 201)
  t.equal(given.json().transaction.status, 'processing')
  t.notOk('statusDetails' in given.json().transaction)
})

t.test('capabilities are checked again at commit', async t => {
  const s = await transactionSetup(t)
  await s.fund(s.accounts.GBP, 'GBP', '100')
  const quoteId = await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '10' } })
  const forced = await s.app.inject({ method: 'POST', url: `/_sandbox/users/${s.userId}/kyc/identity`, payload: { status: 'failed' } })
  t.equal(forced.statusCode, 200)
  const res = await s.commit({ quoteId })
  t.equal(res.statusCode, 409)
  t.equal(res.json().code, 'user_capability_failure')
  t.equal(res.json().message, 'The user has capability constraints')
  t.equal(res.json().details.capability.code, 'trades')
  t.same(await s.balance(s.accounts.GBP), { total: '100', available: '100' })
})

t.test('the status control: on hold, completed, failed; 404 unknown; 409 once final', async t => {
  const s = await transactionSetup(t)
  await s.fund(s.accounts.GBP, 'GBP', '300')
  const trade = { origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '100' } }
  const control = (id: string, payload: Record<string, unknown>) => s.app.inject({ method: 'POST', url: `/_sandbox/transactions/${id}/status`, payload })

  const a = (await s.commit({ quoteId: await s.quoteId(trade) })).json().transaction
  const held = await control(a.id, { status: 'on-hold' })
  t.equal(held.statusCode, 200)
  t.equal(held.json().transaction.status, 'on-hold')
  t.same(held.json().transaction.statusDetails, { reason: 'pending-requests-for-information' })
  await s.advance(10)
  t.equal((await s.call('GET', `/core/transactions/${a.id}`)).json().transaction.status, 'on-hold', 'the clock does not complete one on hold')
  const completed = await control(a.id, { status: 'completed' })
  t.equal(completed.statusCode, 200)
  t.equal(completed.json().transaction.status, 'completed')
  t.equal(completed.json().transaction.completedAt, s.app.clock.iso())
  t.same(completed.json(), (await s.call('GET', `/core/transactions/${a.id}`)).json(), 'the control answers the transaction as the API shows it')

  const final = await control(a.id, { status: 'failed' })
  t.equal(final.statusCode, 409)
  t.same(final.json(), { code: 'transaction_not_pending', message: 'The transaction has already completed or failed', details: { status: 'completed' } })
  t.equal((await control(a.id, { status: 'completed' })).statusCode, 409)

  const b = (await s.commit({ quoteId: await s.quoteId(trade) })).json().transaction
  t.same(await s.balance(s.accounts.GBP), { total: '200', available: '100' })
  const failed = await control(b.id, { status: 'failed', reason: 'velocity' })
  t.equal(failed.statusCode, 200)
  t.same(failed.json().transaction.statusDetails, { reason: 'velocity' })
  t.same(await s.balance(s.accounts.GBP), { total: '200', available: '200' }, 'failing releases the hold')
  t.equal((await control(b.id, { status: 'on-hold' })).statusCode, 409)

  const c = (await s.commit({ quoteId: await s.quoteId(trade) })).json().transaction
  t.same((await control(c.id, { status: 'failed' })).json().transaction.statusDetails, { reason: 'unspecified-error' })

  const unknown = await control(randomUUID(), { status: 'completed' })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { code: 'entity_not_found', message: 'The transaction cannot be found', details: { entity: 'transaction' } })
  t.equal((await control(c.id, { status: 'processing' })).statusCode, 400)
  t.equal((await control(c.id, { status: 'failed', reason: 'because' })).statusCode, 400)
  t.same(await s.balance(s.accounts.GBP), { total: '200', available: '200' })
})

t.test('lists: newest first, pages with links, parties only; an account\'s list', async t => {
  const s = await transactionSetup(t)
  await s.fund(s.accounts.GBP, 'GBP', '300')
  const ids: string[] = []
  for (const amount of ['10', '20', '30']) {
    await s.advance(1)
    ids.push((await s.commit({ quoteId: await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount } }) })).json().transaction.id)
  }
  const fundingId = (await s.call('GET', `/core/accounts/${s.accounts.GBP}/transactions?perPage=10`)).json().transactions.at(-1).id
  const base = 'http://localhost:80'

  const first = await s.call('GET', '/core/transactions?perPage=2')
  t.equal(first.statusCode, 200)
  t.same(first.json().transactions.map((x: { id: string }) => x.id), [ids[2], ids[1]])
  t.same(first.json().pagination, { first: `${base}/core/transactions?perPage=2&page=1`, next: `${base}/core/transactions?perPage=2&page=2` })
  const second = await s.call('GET', '/core/transactions?page=2&perPage=2')
  t.same(second.json().transactions.map((x: { id: string }) => x.id), [ids[0], fundingId])
  t.same(second.json().pagination, { first: `${base}/core/transactions?page=1&perPage=2`, prev: `${base}/core/transactions?page=1&perPage=2` })
  t.equal((await s.call('GET', '/core/transactions')).json().transactions.length, 4, '10 per page by default')
  t.equal((await s.call('GET', '/core/transactions?perPage=101')).statusCode, 400)

  const account = await s.call('GET', `/core/accounts/${s.accounts.BTC}/transactions?perPage=1`)
  t.equal(account.statusCode, 200)
  t.same(account.json().transactions.map((x: { id: string }) => x.id), [ids[2]])
  t.same(account.json().pagination, { first: `${base}/core/accounts/${s.accounts.BTC}/transactions?perPage=1&page=1`, next: `${base}/core/accounts/${s.accounts.BTC}/transactions?perPage=1&page=2` })
  t.same((await s.call('GET', `/core/accounts/${s.accounts.ETH}/transactions`)).json(), { transactions: [], pagination: { first: `${base}/core/accounts/${s.accounts.ETH}/transactions?page=1&perPage=10` } })

  // Another user sees none of them, and none of this user's accounts.
  const other = await makeUser(s.app)
  const theirs = await s.call('GET', '/core/transactions', { user: other.id })
  t.same(theirs.json().transactions, [])
  const notTheirs = await s.call('GET', `/core/transactions/${ids[0]}`, { user: other.id })
  t.equal(notTheirs.statusCode, 404)
  t.same(notTheirs.json(), { code: 'entity_not_found', message: 'The transaction cannot be found', details: { entity: 'transaction' } })
  const otherAccount = await s.call('GET', `/core/accounts/${s.accounts.GBP}/transactions`, { user: other.id })
  t.equal(otherAccount.statusCode, 404)
  t.same(otherAccount.json(), { code: 'entity_not_found', message: 'The account cannot be found', details: { entity: 'account' } })
  t.equal((await s.call('GET', `/core/transactions/${randomUUID()}`)).statusCode, 404)
  t.equal((await s.call('GET', '/core/transactions/nope')).statusCode, 400)
})

t.test('a transfer to another user: both see it, each account lists it', async t => {
  const s = await transactionSetup(t)
  const other = await makeUser(s.app)
  const theirs = (await s.call('POST', '/core/accounts', { payload: { label: 'GBP', asset: 'GBP' }, user: other.id })).json().account.id
  await s.fund(s.accounts.GBP, 'GBP', '100')
  const res = await s.commit({ quoteId: await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(theirs), denomination: { asset: 'GBP', amount: '40' } }) })
  t.equal(res.statusCode, 201)
  const id = res.json().transaction.id
  t.equal((await s.call('GET', `/core/transactions/${id}`, { user: other.id })).statusCode, 200, 'the recipient is a party')
  t.same((await s.call('GET', `/core/accounts/${theirs}/transactions`, { user: other.id })).json().transactions.map((x: { id: string }) => x.id), [id])
  await s.advance(5)
  t.same((await s.call('GET', `/core/accounts/${theirs}`, { user: other.id })).json().account.balance, { total: '40', available: '40' })
  t.same(await s.balance(s.accounts.GBP), { total: '60', available: '60' })
})

t.test('scopes and subjects: both scopes for an account\'s list, users only', async t => {
  const s = await transactionSetup(t)
  const as = async (scope: string, url: string) => {
    const token = await accessToken(s.app, { scope: `core.users:act-on-behalf-of ${scope}` })
    return await s.app.inject({ method: 'GET', url, headers: { ...bearer(token), ...onBehalfOf(s.userId) } })
  }
  const list = `/core/accounts/${s.accounts.GBP}/transactions`
  t.equal((await as('core.accounts:read core.transactions:read', list)).statusCode, 200)
  const onlyTransactions = await as('core.transactions:read', list)
  t.equal(onlyTransactions.statusCode, 403)
  t.equal(onlyTransactions.json().code, 'token_insufficient_scopes')
  t.same(onlyTransactions.json().details.security[0].schemeScopes, ['core.accounts:read', 'core.transactions:read'])
  t.equal((await as('core.accounts:read', list)).statusCode, 403)
  t.equal((await as('core.accounts:read', '/core/transactions')).statusCode, 403)
  t.equal((await as('core.transactions:read', '/core/transactions')).statusCode, 200)

  const client = await s.call('GET', '/core/transactions', { user: null })
  t.equal(client.statusCode, 403)
  t.equal(client.json().code, 'token_subject_not_allowed')
  const clientCommit = await s.call('POST', '/core/transactions', { payload: { quoteId: randomUUID() }, headers: USER_CONTEXT, user: null })
  t.equal(clientCommit.statusCode, 403)
  t.equal(clientCommit.json().code, 'token_subject_not_allowed')
})

t.test('3-D Secure: of an approve and a decline racing, only the first counts', async t => {
  const s = await transactionSetup(t)
  const deposit = { origin: ext(s.card3dsId), destination: acct(s.accounts.GBP), denomination: { asset: 'GBP', amount: '10' } }
  const id = (await s.commit({ quoteId: await s.quoteId(deposit), params: { requirements: [{ name: 'authorize:3ds', returnUrl: 'https://example.com/r' }] } })).json().transaction.id
  const answer = (decision: string) => s.app.inject({ method: 'POST', url: `/_sandbox/3ds/${id}`, payload: { decision } })
  const [approve, decline] = await Promise.all([answer('approve'), answer('decline')])
  t.same([approve.statusCode, decline.statusCode].sort(), [303, 409])
  const status = (await s.call('GET', `/core/transactions/${id}`)).json().transaction.status
  t.equal(status, approve.statusCode === 303 ? 'processing' : 'failed', 'the transaction follows the answer that counted')
  t.match((approve.statusCode === 303 ? approve : decline).headers.location, `status=${status}`)
})

t.test('the daily limit is checked again at commit: quotes given together cannot all commit', async t => {
  const s = await transactionSetup(t)
  const cardDeposit = { origin: ext(s.cardId), destination: acct(s.accounts.GBP), denomination: { asset: 'USD', amount: '4000' } }
  const quotes = [await s.quoteId(cardDeposit), await s.quoteId(cardDeposit), await s.quoteId(cardDeposit)]
  t.equal((await s.commit({ quoteId: quotes[0] })).statusCode, 201)
  t.equal((await s.commit({ quoteId: quotes[1] })).statusCode, 201)
  const third = await s.commit({ quoteId: quotes[2] })
  t.equal(third.statusCode, 409)
  t.match(third.json(), {
    code: 'transaction_amount_invalid',
    message: 'The amount exceeds the daily limit',
    details: { context: 'body', property: 'denomination', rule: 'amount-exceeds-daily-limit', limit: { maximumAmount: '10000.00', remainingAmount: /^\d+\.\d{2}$/ } }
  })
  t.ok(Number(third.json().details.limit.remainingAmount) < 4000, 'what is left of the day is less than the quote')
  t.equal((await s.commit({ quoteId: quotes[2] })).statusCode, 409, 'the quote was not consumed')
})

t.test('what changed since the quote: an archived origin account, a card no longer ok', async t => {
  const s = await transactionSetup(t)
  const fromEth = await s.quoteId({ origin: acct(s.accounts.ETH), destination: acct(s.accounts.BTC), denomination: { asset: 'USD', amount: '10' } })
  t.equal((await s.call('DELETE', `/core/accounts/${s.accounts.ETH}`)).statusCode, 204)
  const archived = await s.commit({ quoteId: fromEth })
  t.equal(archived.statusCode, 404)
  t.same(archived.json(), { code: 'entity_not_found', message: 'The origin cannot be found', details: { entity: 'account', context: 'body', property: 'origin' } })

  const fromCard = await s.quoteId({ origin: ext(s.cardId), destination: acct(s.accounts.GBP), denomination: { asset: 'GBP', amount: '10' } })
  const expired = await s.app.inject({ method: 'POST', url: `/_sandbox/external-accounts/${s.cardId}/status`, payload: { status: 'expired', reason: 'card-expired' } })
  t.equal(expired.statusCode, 200)
  const card = await s.commit({ quoteId: fromCard })
  t.equal(card.statusCode, 409)
  t.same(card.json(), { code: 'operation_not_allowed', message: 'Transaction not allowed due to a processing failure', details: { reasons: ['card-unauthorized'] } })
})
