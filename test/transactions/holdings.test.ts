// What the ledger tells the users and accounts areas, with real funds: archive-account and
// delete-user refuse a balance or a pending transaction, account answers carry the ledger's
// balance, and funds arriving at an archived account bring it back.
import t from 'tap'
import { quoteSetup } from '../quotes/support.js'
import { DEMO_ORG } from '../helpers.js'
import { Decimal } from '../../src/money/decimal.js'
import { changeTransactionStatus, createTransaction, deposit, ledgerOf } from '../../src/transactions/service.js'
import { openStorage } from '../../src/storage/index.js'
import { build } from '../helpers.js'
import { oneLine, planOf, preparedDuring } from '../storage/query-plans.js'

const REVIEW = { review: { reason: 'closure-per-user-request', note: 'User requested account closure' } }
const CONTEXT = { ip: '203.0.113.7', agent: 'holdings-test' }

t.test('archive-account and delete-user read the ledger', async t => {
  const s = await quoteSetup(t)
  const { app, call, userId, accounts } = s
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: true } })
  const fund = async (accountId: string, asset: string, amount: string) => await deposit(app, { organizationId: DEMO_ORG, userId, accountId, asset, amount, originNode: { type: 'bank-address', network: 'fps' } })

  await fund(accounts.GBP, 'GBP', '50')
  const account = (await call('GET', `/core/accounts/${accounts.GBP}`)).json().account
  t.same(account.balance, await ledgerOf(app).balance(accounts.GBP), "the account answers the ledger's balance")
  t.not(account.balance.total, '0')

  const archive = await call('DELETE', `/core/accounts/${accounts.GBP}`)
  t.equal(archive.statusCode, 409)
  t.same(archive.json(), { code: 'account_has_balance', message: 'The account has balance and cannot be archived' })
  const del = await call('DELETE', '/core/users/me', { payload: REVIEW })
  t.equal(del.statusCode, 409)
  t.equal(del.json().code, 'user_has_balance')

  // Everything moves to BTC: GBP is empty but has a pending transaction.
  const quote = (await s.quote({ origin: { type: 'account', id: accounts.GBP }, destination: { type: 'account', id: accounts.BTC }, denomination: { asset: 'GBP', amount: '50' } })).json().quote
  const { transaction } = await createTransaction(app, DEMO_ORG, userId, { quoteId: quote.id }, CONTEXT)
  t.same((await call('GET', `/core/accounts/${accounts.GBP}`)).json().account.balance, { total: '50', available: '0' }, 'held, not yet spent')
  const pending = await call('DELETE', `/core/accounts/${accounts.BTC}`)
  t.equal(pending.statusCode, 409)
  t.same(pending.json(), { code: 'account_has_pending_transactions', message: 'The account has pending transactions and cannot be archived' }, 'the destination has it pending too')

  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: app.config.transactionSettlementSeconds } })
  t.equal((await ledgerOf(app).get(DEMO_ORG, transaction.id as string))?.status, 'completed')
  t.same((await call('GET', `/core/accounts/${accounts.GBP}`)).json().account.balance, { total: '0', available: '0' })
  t.equal((await call('DELETE', `/core/accounts/${accounts.GBP}`)).statusCode, 204, 'an empty account with nothing pending archives')
  // The same amount: a balance is written without the trailing zeros the quote's amount keeps (0.0009635, 0.00096350).
  const btc = (await call('GET', `/core/accounts/${accounts.BTC}`)).json().account.balance.total as string
  t.ok(new Decimal(btc).eq(quote.destination.amount), `the balance ${btc} is the quote's ${quote.destination.amount as string}`)

  // Funds reaching the archived account bring it back to the lists.
  t.notOk((await call('GET', '/core/accounts?asset=GBP')).json().accounts.some((a: { id: string }) => a.id === accounts.GBP))
  await fund(accounts.GBP, 'GBP', '12.5')
  const listed = (await call('GET', '/core/accounts?asset=GBP')).json().accounts
  t.ok(listed.some((a: { id: string, balance: { total: string } }) => a.id === accounts.GBP && a.balance.total === '12.5'), 'unarchived by the deposit')
})

t.test('delete-user: refused while a transaction is pending, allowed once it failed and nothing is held', async t => {
  const s = await quoteSetup(t)
  const { app, call, userId, accounts } = s
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: true } })
  // A card deposit: nothing is held and no balance yet, but it is pending.
  const quote = (await s.quote({ origin: { type: 'external-account', id: s.cardId }, destination: { type: 'account', id: accounts.GBP }, denomination: { asset: 'GBP', amount: '20' } })).json().quote
  const { transaction } = await createTransaction(app, DEMO_ORG, userId, { quoteId: quote.id }, CONTEXT)
  t.equal(transaction.status, 'processing')
  t.same((await call('GET', `/core/accounts/${accounts.GBP}`)).json().account.balance, { total: '0', available: '0' })
  const del = await call('DELETE', '/core/users/me', { payload: REVIEW })
  t.equal(del.statusCode, 409)
  t.same(del.json(), { code: 'user_has_pending_transactions', message: 'The user has pending transactions and cannot be deleted' })
  t.match(await changeTransactionStatus(app, transaction.id as string, 'failed', 'card-declined-by-bank'), { status: 'failed', reason: 'card-declined-by-bank' })
  t.same((await call('GET', `/core/accounts/${accounts.GBP}`)).json().account.balance, { total: '0', available: '0' }, 'a failed deposit credits nothing')
  t.equal((await call('DELETE', '/core/users/me', { payload: REVIEW })).statusCode, 204, 'nothing held, nothing pending')
})

t.test('archive-account: a transaction in progress to the account, processing or on hold, stops it; failed, it does not', async t => {
  const s = await quoteSetup(t)
  const { app, call, userId, accounts } = s
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: true } })
  // Funds the account has moved before do not count: only transactions still in progress.
  await deposit(app, { organizationId: DEMO_ORG, userId, accountId: accounts.BTC, asset: 'BTC', amount: '1', originNode: { type: 'bank-address', network: 'fps' } })
  const quote = (await s.quote({ origin: { type: 'external-account', id: s.cardId }, destination: { type: 'account', id: accounts.GBP }, denomination: { asset: 'GBP', amount: '20' } })).json().quote
  const { transaction } = await createTransaction(app, DEMO_ORG, userId, { quoteId: quote.id }, CONTEXT)
  const refused = { code: 'account_has_pending_transactions', message: 'The account has pending transactions and cannot be archived' }
  for (const status of ['processing', 'on-hold'] as const) {
    if (status === 'on-hold') await changeTransactionStatus(app, transaction.id as string, 'on-hold', null)
    t.equal((await ledgerOf(app).get(DEMO_ORG, transaction.id as string))?.status, status)
    const archive = await call('DELETE', `/core/accounts/${accounts.GBP}`)
    t.equal(archive.statusCode, 409, status)
    t.same(archive.json(), refused, status)
  }
  await changeTransactionStatus(app, transaction.id as string, 'failed', 'card-declined-by-bank')
  t.equal((await call('DELETE', `/core/accounts/${accounts.GBP}`)).statusCode, 204, 'failed: nothing in progress')
})

t.test("an account's check for transactions in progress reads the open transactions only, not every one the account had", async t => {
  const prepared = await preparedDuring(async () => {
    await build(t, {}, { storage: await openStorage({ databasePath: ':memory:' }) })
  })
  const checks = [...prepared].filter(([sql]) => /account_id = \? AND status IN \('processing', 'on-hold'\)/.test(sql))
  t.equal(checks.length, 1, 'the ledger prepares the check')
  for (const [sql, db] of checks) {
    const reads = planOf(db, sql).filter(d => /^(SEARCH|SCAN) /.test(d))
    t.same(reads, [
      'SEARCH transactions USING INDEX transactions_open_origin (origin_account_id=?)',
      'SEARCH transactions USING INDEX transactions_open_destination (destination_account_id=?)'
    ], oneLine(sql))
  }
})
