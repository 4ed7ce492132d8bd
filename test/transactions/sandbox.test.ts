// Transactions as sandbox entities (a real completed deposit, through the control API and through
// fixtures, leaving the ledger consistent), the 3-D Secure page without the admin token, and the
// quote limit on unsettled funds.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { randomUUID } from 'node:crypto'
import { Decimal } from '../../src/money/decimal.js'
import { ledgerOf } from '../../src/transactions/service.js'
import { accountsOf } from '../../src/accounts/service.js'
import { accessToken, bearer, build, DEMO_ORG, makeUser, onBehalfOf } from '../helpers.js'
import { USER_CONTEXT, acct, transactionSetup } from './support.js'

/** Every posting of the transactions sums to zero per asset, and the account's balance is the sum of its postings. */
async function ledgerConsistent (t: Test, app: FastifyInstance, transactionIds: string[], accountId: string): Promise<void> {
  let total = new Decimal(0)
  let available = new Decimal(0)
  for (const id of transactionIds) {
    const postings = await ledgerOf(app).transactionPostings(id)
    t.ok(postings.length > 0, 'the transaction posted')
    const sums = new Map<string, Decimal>()
    for (const p of postings) {
      sums.set(`${p.asset} total`, (sums.get(`${p.asset} total`) ?? new Decimal(0)).plus(p.total))
      sums.set(`${p.asset} available`, (sums.get(`${p.asset} available`) ?? new Decimal(0)).plus(p.available))
      if (p.accountId === accountId) { total = total.plus(p.total); available = available.plus(p.available) }
    }
    for (const [key, sum] of sums) t.ok(sum.isZero(), `${key} postings sum to zero`)
  }
  const balance = await ledgerOf(app).balance(accountId)
  t.same(balance, { total: total.toFixed(), available: available.toFixed() }, 'the balance is the sum of its postings')
}

t.test('POST /_sandbox/entities/transactions: a completed deposit of 100.00 USD into the default USD account', async t => {
  const app = await build(t, { serviceName: 'uphold' })
  const user = await makeUser(app)
  const res = await app.inject({ method: 'POST', url: '/_sandbox/entities/transactions', payload: { userId: user.id } })
  t.equal(res.statusCode, 201)
  const id = res.json().id as string
  t.match(res.json(), { type: 'transactions', userId: user.id, organizationId: DEMO_ORG })
  const token = await accessToken(app)
  const as = { ...bearer(token), ...onBehalfOf(user.id) }
  const got = await app.inject({ method: 'GET', url: `/core/transactions/${id}`, headers: as })
  t.equal(got.statusCode, 200)
  const transaction = got.json().transaction
  const account = (await accountsOf(app).defaultOf(DEMO_ORG, user.id, 'USD'))!
  t.same(transaction, {
    id,
    origin: { asset: 'USD', amount: '100.00', rate: '1', node: { type: 'bank-address', network: 'wire' } },
    destination: { asset: 'USD', amount: '100.00', rate: '1', node: { type: 'account', id: account.id, ownerId: user.id } },
    denomination: { asset: 'USD', amount: '100.00', rate: '1', target: 'origin' },
    fees: [],
    status: 'completed',
    quotedAt: app.clock.iso(),
    createdAt: app.clock.iso(),
    updatedAt: app.clock.iso(),
    completedAt: app.clock.iso()
  })
  t.equal(account.label, 'US Dollar', 'the default account made on first need')
  const second = (await app.inject({ method: 'POST', url: '/_sandbox/entities/transactions', payload: { userId: user.id } })).json().id as string
  const shown = await app.inject({ method: 'GET', url: `/core/accounts/${account.id}`, headers: as })
  t.same(shown.json().account.balance, { total: '200', available: '200' }, 'into the same default account')
  await ledgerConsistent(t, app, [id, second], account.id)

  const metadata = await app.inject({ method: 'PUT', url: `/core/transactions/${id}/metadata`, headers: as, payload: { metadata: { order: 1 } } })
  t.equal(metadata.statusCode, 201, 'it owns metadata')
  const other = await makeUser(app)
  t.equal((await app.inject({ method: 'GET', url: `/core/transactions/${id}/metadata`, headers: { ...bearer(token), ...onBehalfOf(other.id) } })).statusCode, 404, 'only its owner reaches it')

  const taken = await app.inject({ method: 'POST', url: '/_sandbox/entities/transactions', payload: { userId: user.id, id } })
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().code, 'entity_already_exists')
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/entities/accounts', payload: { userId: user.id, id } })).statusCode, 409, 'ids are unique across entity types')
})

t.test('the entities fixture key: real deposits, with postings, and no events', async t => {
  const app = await build(t, { serviceName: 'uphold' })
  const userId = randomUUID()
  const ids = [randomUUID(), randomUUID()]
  const res = await app.inject({
    method: 'POST',
    url: '/_sandbox/fixtures',
    payload: {
      users: [{ id: userId, email: 'fixture-deposits@example.com' }],
      entities: ids.map(id => ({ id, type: 'transactions', userId }))
    }
  })
  t.equal(res.statusCode, 201, res.body)
  const account = (await accountsOf(app).defaultOf(DEMO_ORG, userId, 'USD'))!
  t.ok(account, 'a default USD account, made in the fixture\'s write')
  t.same(await ledgerOf(app).balance(account.id), { total: '200', available: '200' })
  await ledgerConsistent(t, app, ids, account.id)
  const token = await accessToken(app)
  const list = await app.inject({ method: 'GET', url: `/core/accounts/${account.id}/transactions`, headers: { ...bearer(token), ...onBehalfOf(userId) } })
  t.same(list.json().transactions.map((x: { id: string, status: string }) => x.status), ['completed', 'completed'])
  t.same(list.json().transactions.map((x: { id: string }) => x.id).sort(), [...ids].sort())
  const events = await app.storage.db.prepare("SELECT count(*) AS n FROM events WHERE type LIKE 'core.transaction.%' OR type = 'core.account.balance-changed'").pluck().get()
  t.equal(events, 0, 'a fixture records no events')

  const clash = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { entities: [{ id: ids[0], type: 'transactions', userId }] } })
  t.equal(clash.statusCode, 400, 'an id taken by a transaction is a violation')
})

t.test('the 3-D Secure page is open when an admin token guards the control API', async t => {
  const app = await build(t, { adminToken: 'admin-secret-token-for-tests' })
  const id = randomUUID()
  const page = await app.inject({ method: 'GET', url: `/_sandbox/3ds/${id}` })
  t.equal(page.statusCode, 404, 'reached without the token: no such transaction')
  t.same(page.json(), { code: 'entity_not_found', message: 'The transaction cannot be found', details: { entity: 'transaction' } })
  const answer = await app.inject({ method: 'POST', url: `/_sandbox/3ds/${id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'decision=approve' })
  t.equal(answer.statusCode, 404)
  const control = await app.inject({ method: 'POST', url: `/_sandbox/transactions/${id}/status`, payload: { status: 'completed' } })
  t.equal(control.statusCode, 401, 'the status control needs the token')
  const withToken = await app.inject({ method: 'POST', url: `/_sandbox/transactions/${id}/status`, headers: { authorization: 'Bearer admin-secret-token-for-tests' }, payload: { status: 'completed' } })
  t.equal(withToken.statusCode, 404)
})

t.test('quotes: an amount only unsettled funds would cover is 409 transacting-unsettled-funds', async t => {
  const s = await transactionSetup(t)
  await s.fund(s.accounts.USD, 'USD', '10')
  await s.fund(s.accounts.USD, 'USD', '100', true)
  t.same(await s.balance(s.accounts.USD), { total: '110', available: '10' })
  const settlementAt = new Date(s.app.clock.now() + 60_000).toISOString()
  const trade = (amount: string) => ({ origin: acct(s.accounts.USD), destination: acct(s.accounts.BTC), denomination: { asset: 'USD', amount } })

  const res = await s.quote(trade('50'))
  t.equal(res.statusCode, 409)
  t.same(res.json(), {
    code: 'transaction_amount_invalid',
    message: 'The amount is invalid due to unsettled funds',
    details: {
      context: 'body',
      property: 'denomination',
      rule: 'transacting-unsettled-funds',
      unsettledFunds: { settlementAt, shortfallAmount: '40.00', reasons: ['pending-ach-deposit-settlement'] }
    }
  })
  t.equal((await s.quote(trade('10'))).statusCode, 201, 'what is available is quoted')
  const beyond = await s.quote(trade('200'))
  t.equal(beyond.statusCode, 201, 'more than even the unsettled funds cover is quoted, and refused at commit')
  t.equal((await s.commit({ quoteId: beyond.json().quote.id })).json().code, 'insufficient_balance')

  await s.advance(60)
  t.same(await s.balance(s.accounts.USD), { total: '110', available: '110' }, 'settled on the sandbox clock')
  const settled = await s.quote(trade('50'))
  t.equal(settled.statusCode, 201)
  t.equal((await s.commit({ quoteId: settled.json().quote.id }, USER_CONTEXT)).statusCode, 201)
})
