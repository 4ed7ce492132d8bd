// Commits racing at a real listening server: many quotes against one balance that covers only some
// of them, and many commits of one quote. The ledger's single writer decides: exactly the covered
// number succeed, the balance never goes negative and ends exact, and no quote is used twice.
import t from 'tap'
import type { AddressInfo } from 'node:net'
import { Decimal } from '../../src/money/decimal.js'
import { ledgerOf } from '../../src/transactions/service.js'
import { quotesOf } from '../../src/quotes/service.js'
import { DEMO_ORG, bearer, onBehalfOf } from '../helpers.js'
import { USER_CONTEXT, acct, transactionSetup, type TransactionSetup } from './support.js'

const RACERS = 50

async function listening (s: TransactionSetup) {
  await s.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = s.app.server.address() as AddressInfo
  const headers = { ...bearer(s.token), ...onBehalfOf(s.userId), ...USER_CONTEXT, 'content-type': 'application/json' }
  return async (quoteId: string): Promise<{ status: number, body: Record<string, any> }> => {
    const res = await fetch(`http://127.0.0.1:${port}/core/transactions`, { method: 'POST', headers, body: JSON.stringify({ quoteId }) })
    return { status: res.status, body: await res.json() }
  }
}

t.test(`${RACERS} concurrent commits, each of its own quote, against a balance that covers only some`, async t => {
  const s = await transactionSetup(t)
  const commit = await listening(s)
  await s.fund(s.accounts.GBP, 'GBP', '1000')
  const quotes: Array<{ id: string, destination: string }> = []
  for (let i = 0; i < RACERS; i++) {
    const quote = (await s.quote({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '30' } })).json().quote
    t.equal(quote.origin.amount, '30.00')
    quotes.push({ id: quote.id, destination: quote.destination.amount })
  }
  const covered = 33 // 1000 / 30

  const results = await Promise.all(quotes.map(q => commit(q.id)))
  const created = results.filter(r => r.status === 201)
  const refused = results.filter(r => r.status !== 201)
  t.equal(created.length, covered, 'exactly the covered number are created')
  t.equal(refused.length, RACERS - covered)
  t.ok(refused.every(r => r.status === 409 && r.body.code === 'insufficient_balance'), 'the rest are insufficient_balance')
  t.same(await s.balance(s.accounts.GBP), { total: '1000', available: '10' }, 'every hold is there, and no more')

  // No quote is used twice: each created transaction commits a distinct quote; the refused ones stay unused.
  const committed = await Promise.all(created.map(async r => (await ledgerOf(s.app).get(DEMO_ORG, r.body.transaction.id))!.quoteId))
  t.equal(new Set(committed).size, covered, 'distinct quotes')
  const used = new Set(committed)
  for (const q of quotes) {
    const stored = (await quotesOf(s.app).get(DEMO_ORG, q.id))!
    t.equal(stored.usedAt !== null, used.has(q.id), `quote ${q.id} used only if committed`)
  }

  await s.advance(5)
  t.same(await s.balance(s.accounts.GBP), { total: '10', available: '10' }, 'after settlement: exact')
  const btc = quotes.filter(q => used.has(q.id)).reduce((a, q) => a.plus(q.destination), new Decimal(0)).toFixed()
  t.same(await s.balance(s.accounts.BTC), { total: btc, available: btc }, 'the destination got exactly the committed amounts')
  const list = (await s.call('GET', '/core/transactions?perPage=100')).json().transactions as Array<{ status: string }>
  t.equal(list.filter(x => x.status === 'completed').length, covered + 1, 'the committed ones and the funding deposit, all completed')
})

t.test(`${RACERS} concurrent commits of one quote: exactly one is created`, async t => {
  const s = await transactionSetup(t)
  const commit = await listening(s)
  await s.fund(s.accounts.GBP, 'GBP', '1000')
  const quoteId = await s.quoteId({ origin: acct(s.accounts.GBP), destination: acct(s.accounts.BTC), denomination: { asset: 'GBP', amount: '10' } })
  const results = await Promise.all(Array.from({ length: RACERS }, () => commit(quoteId)))
  t.equal(results.filter(r => r.status === 201).length, 1, 'one 201')
  const refused = results.filter(r => r.status !== 201)
  t.equal(refused.length, RACERS - 1)
  t.ok(refused.every(r => r.status === 404 && r.body.code === 'entity_not_found' && r.body.details.entity === 'quote'), 'the others find no quote')
  t.same(await s.balance(s.accounts.GBP), { total: '1000', available: '990' }, 'held once')
  await s.advance(5)
  t.same(await s.balance(s.accounts.GBP), { total: '990', available: '990' }, 'debited once')
})
