// The ledger store's domain operations on their own: holds, commits refused without a trace,
// duplicate withdrawals, completion and failure postings that sum to zero per asset and column,
// RFIs that hold and resume a transaction, unsettled funds, and the holdings the users and
// accounts areas read.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { build, DEMO_ORG, makeUser } from '../helpers.js'
import { Decimal } from '../../src/money/decimal.js'
import { accountsOf } from '../../src/accounts/service.js'
import { depositRecord, ledgerOf } from '../../src/transactions/service.js'
import type { LedgerEvents, NewTransaction, TransactionRecord } from '../../src/transactions/store.js'

interface Recorder { events: LedgerEvents, seen: string[], credited: string[] }

/** Events that record their kind and subject instead of being delivered. */
function recorder (app: FastifyInstance): Recorder {
  const seen: string[] = []
  const credited: string[] = []
  const event = (type: string, subject: string) => {
    seen.push(`${type} ${subject}`)
    return app.events.build(DEMO_ORG, type, { subject })
  }
  return {
    seen,
    credited,
    events: {
      transaction: (type, tx) => event(type, `${tx.id}:${tx.status}`),
      balanceChanged: (accountId, balance) => event('core.account.balance-changed', `${accountId}:${balance.total}/${balance.available}`),
      credited: accountId => { credited.push(accountId) }
    }
  }
}

async function account (app: FastifyInstance, userId: string, asset: string): Promise<string> {
  const now = app.clock.iso()
  const made = await accountsOf(app).create({ id: randomUUID(), organizationId: DEMO_ORG, userId, asset, label: asset, archivedAt: null, createdAt: now, updatedAt: now }, () => app.events.build(DEMO_ORG, 'core.account.created', {}))
  if (!made.ok) throw new Error('account')
  return made.account.id
}

function transfer (userId: string, from: string, to: string | null, amounts: { origin: string, destination: string, originAsset: string, destinationAsset: string, fee?: string }, overrides: Partial<TransactionRecord> = {}): NewTransaction {
  const id = randomUUID()
  const now = new Date().toISOString()
  const record: TransactionRecord = {
    id,
    organizationId: DEMO_ORG,
    userId,
    kind: 'transfer',
    quoteId: randomUUID(),
    status: 'processing',
    reason: null,
    body: {
      origin: { asset: amounts.originAsset, amount: amounts.origin, rate: '1', node: { type: 'account', id: from, ownerId: userId } },
      destination: { asset: amounts.destinationAsset, amount: amounts.destination, rate: '1', node: to === null ? { type: 'crypto-address', network: 'bitcoin', address: 'x' } : { type: 'account', id: to, ownerId: userId } },
      fees: amounts.fee === undefined ? [] : [{ type: 'network', code: 'network-fee', asset: amounts.destinationAsset, amount: amounts.fee }],
      quotedAt: now
    },
    originAccountId: from,
    destinationAccountId: to,
    holdAmount: amounts.origin,
    settleAt: null,
    authorization: null,
    returnUrl: null,
    withdrawalKey: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    ...overrides
  }
  return { record, parties: [{ userId, accountId: from }, ...(to === null ? [] : [{ userId, accountId: to }])] }
}

const hold = (accountId: string, userId: string, asset: string, amount: string) => ({ accountId, userId, asset, total: '0', available: `-${amount}` })

/** Each column of a transaction's postings sums to zero per asset. */
async function balanced (app: FastifyInstance, transactionId: string): Promise<boolean> {
  const sums = new Map<string, Decimal>()
  for (const p of await ledgerOf(app).transactionPostings(transactionId)) {
    sums.set(`${p.asset}:total`, (sums.get(`${p.asset}:total`) ?? new Decimal(0)).plus(p.total))
    sums.set(`${p.asset}:available`, (sums.get(`${p.asset}:available`) ?? new Decimal(0)).plus(p.available))
  }
  return [...sums.values()].every(s => s.isZero())
}

async function fund (app: FastifyInstance, userId: string, accountId: string, asset: string, amount: string, unsettled?: { until: number, reason: string }): Promise<TransactionRecord> {
  const now = app.clock.now()
  const record = depositRecord({ id: randomUUID(), organizationId: DEMO_ORG, userId, asset, amount, originNode: { type: 'bank-address', network: 'fps' } }, { id: accountId, userId }, new Date(now).toISOString())
  return await ledgerOf(app).deposit({ record, parties: [{ userId, accountId }] }, unsettled, now, recorder(app).events)
}

t.test('ledger store', async t => {
  const app = await build(t)
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: true } })
  const ledger = ledgerOf(app)

  t.test('a deposit credits at once and completes, with its events in order', async t => {
    const user = await makeUser(app)
    const gbp = await account(app, user.id, 'GBP')
    const r = recorder(app)
    const now = app.clock.now()
    const iso = new Date(now).toISOString()
    const made = await ledger.deposit({
      record: { ...(await fund(app, user.id, gbp, 'GBP', '1')), id: randomUUID(), status: 'processing', completedAt: null },
      parties: [{ userId: user.id, accountId: gbp }]
    }, undefined, now, r.events)
    t.equal(made.status, 'completed')
    t.equal(made.completedAt, iso)
    t.same(await ledger.balance(gbp), { total: '2', available: '2' })
    t.same(r.seen, [
      `core.transaction.created ${made.id}:processing`,
      `core.transaction.status-changed ${made.id}:completed`,
      `core.account.balance-changed ${gbp}:2/2`
    ])
    t.same(r.credited, [gbp], 'the account is told funds arrived (an archived one unarchives)')
    t.ok(await balanced(app, made.id))
  })

  t.test('a commit holds available, not total; completion debits, credits and takes fees', async t => {
    const user = await makeUser(app)
    const gbp = await account(app, user.id, 'GBP')
    const btc = await account(app, user.id, 'BTC')
    await fund(app, user.id, gbp, 'GBP', '100.00')
    const r = recorder(app)
    const tx = transfer(user.id, gbp, btc, { origin: '40.00', destination: '0.0005', originAsset: 'GBP', destinationAsset: 'BTC', fee: '0.00001' })
    const committed = await ledger.commit({ input: tx, hold: hold(gbp, user.id, 'GBP', '40.00'), consume: () => 'ok', events: r.events })
    t.equal(committed.ok, true)
    t.same(await ledger.balance(gbp), { total: '100', available: '60' })
    t.ok(await ledger.accountPending(gbp))
    t.same(await ledger.userHoldings(DEMO_ORG, user.id), { hasBalance: true, hasPendingTransactions: true })
    t.ok(await balanced(app, tx.record.id), 'the hold sums to zero')

    const done = await ledger.changeStatus(DEMO_ORG, tx.record.id, 'completed', null, app.clock.now(), null, r.events)
    t.equal(done.ok && done.transaction.status, 'completed')
    t.same(await ledger.balance(gbp), { total: '60', available: '60' })
    t.same(await ledger.balance(btc), { total: '0.0005', available: '0.0005' })
    t.ok(await balanced(app, tx.record.id), 'completion sums to zero per asset and column')
    t.same(r.credited, [btc])
    t.same(r.seen, [
      `core.transaction.created ${tx.record.id}:processing`,
      `core.account.balance-changed ${gbp}:100/60`,
      `core.transaction.status-changed ${tx.record.id}:completed`,
      `core.account.balance-changed ${gbp}:60/60`,
      `core.account.balance-changed ${btc}:0.0005/0.0005`
    ])
    t.notOk(await ledger.accountPending(gbp))

    t.same(await ledger.changeStatus(DEMO_ORG, tx.record.id, 'failed', null, app.clock.now(), null, r.events), { ok: false, reason: 'final' }, 'a completed transaction stays completed')
    const again = await ledger.changeStatus(DEMO_ORG, tx.record.id, 'completed', null, app.clock.now(), null, r.events)
    t.same(again.ok && again.changed, false, 'the same status again changes nothing')
    t.same(await ledger.balance(gbp), { total: '60', available: '60' })
    t.same(await ledger.changeStatus('another-org', tx.record.id, 'failed', null, app.clock.now(), null, r.events), { ok: false, reason: 'not-found' })
  })

  t.test('a commit the balance does not cover, or whose quote is refused, leaves no trace', async t => {
    const user = await makeUser(app)
    const gbp = await account(app, user.id, 'GBP')
    const usd = await account(app, user.id, 'USD')
    await fund(app, user.id, gbp, 'GBP', '10.00')
    const r = recorder(app)
    let consumed = 0
    const tooMuch = transfer(user.id, gbp, usd, { origin: '10.01', destination: '12', originAsset: 'GBP', destinationAsset: 'USD' })
    t.same(await ledger.commit({ input: tooMuch, hold: hold(gbp, user.id, 'GBP', '10.01'), consume: () => { consumed++; return 'ok' }, events: r.events }), { ok: false, reason: 'insufficient-balance' })
    t.equal(consumed, 0, 'the quote is not consumed')
    t.equal(await ledger.get(DEMO_ORG, tooMuch.record.id), undefined)
    const used = transfer(user.id, gbp, usd, { origin: '5', destination: '6', originAsset: 'GBP', destinationAsset: 'USD' })
    t.same(await ledger.commit({ input: used, hold: hold(gbp, user.id, 'GBP', '5'), consume: () => 'quote-used', events: r.events }), { ok: false, reason: 'quote-used' })
    t.equal(await ledger.get(DEMO_ORG, used.record.id), undefined)
    t.same(await ledger.balance(gbp), { total: '10', available: '10' })
    t.same(r.seen, [], 'no events')
    const exact = transfer(user.id, gbp, usd, { origin: '10.00', destination: '12', originAsset: 'GBP', destinationAsset: 'USD' })
    t.equal((await ledger.commit({ input: exact, hold: hold(gbp, user.id, 'GBP', '10.00'), consume: () => 'ok', events: r.events })).ok, true, 'the whole balance can be held')
    t.same(await ledger.balance(gbp), { total: '10', available: '0' })
  })

  t.test('a failure releases the hold; a repeated pending withdrawal is refused', async t => {
    const user = await makeUser(app)
    const btc = await account(app, user.id, 'BTC')
    await fund(app, user.id, btc, 'BTC', '1')
    const r = recorder(app)
    const key = `${btc}|bitcoin:x:|0.1`
    const first = transfer(user.id, btc, null, { origin: '0.1', destination: '0.0999', originAsset: 'BTC', destinationAsset: 'BTC', fee: '0.0001' }, { withdrawalKey: key })
    t.equal((await ledger.commit({ input: first, hold: hold(btc, user.id, 'BTC', '0.1'), consume: () => 'ok', events: r.events })).ok, true)
    const second = transfer(user.id, btc, null, { origin: '0.1', destination: '0.0999', originAsset: 'BTC', destinationAsset: 'BTC', fee: '0.0001' }, { withdrawalKey: key })
    t.same(await ledger.commit({ input: second, hold: hold(btc, user.id, 'BTC', '0.1'), consume: () => 'ok', events: r.events }), { ok: false, reason: 'duplicate-withdrawal' })
    const failed = await ledger.changeStatus(DEMO_ORG, first.record.id, 'failed', 'velocity', app.clock.now(), null, r.events)
    t.equal(failed.ok && failed.transaction.reason, 'velocity')
    t.same(await ledger.balance(btc), { total: '1', available: '1' })
    t.ok(await balanced(app, first.record.id))
    t.equal((await ledger.commit({ input: second, hold: hold(btc, user.id, 'BTC', '0.1'), consume: () => 'ok', events: r.events })).ok, true, 'once the first is final, the same withdrawal is allowed')
    const sent = await ledger.changeStatus(DEMO_ORG, second.record.id, 'completed', null, app.clock.now(), null, r.events)
    t.equal(sent.ok && sent.transaction.status, 'completed')
    t.same(await ledger.balance(btc), { total: '0.9', available: '0.9' })
    t.ok(await balanced(app, second.record.id), 'a withdrawal balances on the world and fee accounts')
  })

  t.test('on hold opens an RFI; answering it resumes processing until settlement', async t => {
    const user = await makeUser(app)
    const btc = await account(app, user.id, 'BTC')
    await fund(app, user.id, btc, 'BTC', '1')
    const r = recorder(app)
    const tx = transfer(user.id, btc, null, { origin: '0.5', destination: '0.5', originAsset: 'BTC', destinationAsset: 'BTC' })
    const committed = await ledger.commit({ input: tx, hold: hold(btc, user.id, 'BTC', '0.5'), consume: () => 'ok', events: r.events, onHold: true })
    t.equal(committed.ok && committed.transaction.status, 'on-hold')
    t.equal(committed.ok && committed.transaction.reason, 'pending-requests-for-information')
    const [rfi] = await ledger.rfis(tx.record.id)
    t.match(rfi, { type: 'travel-rule', status: 'pending', data: null })
    const settleAt = app.clock.now() + 5000
    const answered = await ledger.answerRfi(tx.record.id, rfi.id, { name: 'Ada' }, app.clock.now(), settleAt, r.events)
    t.match(answered, { ok: true, rfi: { status: 'ok', data: { name: 'Ada' } } })
    const resumed = await ledger.get(DEMO_ORG, tx.record.id)
    t.match(resumed, { status: 'processing', reason: null, settleAt })
    t.same(await ledger.answerRfi(tx.record.id, rfi.id, {}, app.clock.now(), settleAt, r.events), { ok: false, reason: 'not-pending' })
    t.same(await ledger.answerRfi(tx.record.id, randomUUID(), {}, app.clock.now(), settleAt, r.events), { ok: false, reason: 'not-found' })
    t.same(await ledger.due(settleAt - 1, 10, null), [])
    t.same(await ledger.due(settleAt, 10, null), [tx.record.id])
    t.same(r.seen.filter(s => s.startsWith('core.transaction')), [
      `core.transaction.created ${tx.record.id}:processing`,
      `core.transaction.status-changed ${tx.record.id}:on-hold`,
      `core.transaction.status-changed ${tx.record.id}:processing`
    ])
  })

  t.test('unsettled funds count in total until they settle', async t => {
    const user = await makeUser(app)
    const usd = await account(app, user.id, 'USD')
    const until = app.clock.now() + 60_000
    const made = await fund(app, user.id, usd, 'USD', '250.5', { until, reason: 'pending-ach-deposit-settlement' })
    t.same(await ledger.balance(usd), { total: '250.5', available: '0' })
    t.same(await ledger.unsettled(usd), { amount: '250.5', settlementAt: until })
    t.ok(await balanced(app, made.id))
    const r = recorder(app)
    t.equal(await ledger.settleFunds(until - 1, 10, null, r.events), 0)
    t.ok(await ledger.settleFunds(until, 100, null, r.events) >= 1)
    t.same(await ledger.balance(usd), { total: '250.5', available: '250.5' })
    t.equal(await ledger.unsettled(usd), undefined)
    t.same(r.seen, [`core.account.balance-changed ${usd}:250.5/250.5`])
    t.ok(await balanced(app, made.id), 'the settlement posting also balances')
  })

  t.test('a user with nothing holds nothing', async t => {
    const user = await makeUser(app)
    t.same(await ledger.userHoldings(DEMO_ORG, user.id), { hasBalance: false, hasPendingTransactions: false })
    t.same(await ledger.balance(randomUUID()), { total: '0', available: '0' })
  })
})
