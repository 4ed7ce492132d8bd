// The sandbox view of the ledger: GET /_sandbox/ledger (each user's accounts with balances, the
// transactions with their status), and the dashboard showing them in a real browser, with a
// pending transaction completed by its button.
import t from 'tap'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTransaction, deposit, ledgerOf } from '../../src/transactions/service.js'
import { ownDocumentChecker } from '../catalogue/openapi-check.js'
import { randomUUID } from 'node:crypto'
import { DEMO_ORG, build, makeUser, waitFor } from '../helpers.js'
import { quoteSetup, type QuoteSetup } from '../quotes/support.js'
import { launchBrowser, withoutChromium } from '../browser.js'

const CONTEXT = { ip: '47.174.97.164', agent: 'dashboard-test' }

/** A user with 100 GBP and a pending trade of 10 GBP to BTC. */
async function funded (s: QuoteSetup): Promise<{ depositId: string, tradeId: string }> {
  const credited = await deposit(s.app, { organizationId: DEMO_ORG, userId: s.userId, accountId: s.accounts.GBP, originNode: { type: 'bank-address', network: 'fps' }, asset: 'GBP', amount: '100' })
  // A second later (the clock is frozen), so that the list's order is the creation order.
  await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 1 } })
  const quote = (await s.quote({ origin: { type: 'account', id: s.accounts.GBP }, destination: { type: 'account', id: s.accounts.BTC }, denomination: { asset: 'GBP', amount: '10' } })).json().quote
  const { transaction } = await createTransaction(s.app, DEMO_ORG, s.userId, { quoteId: quote.id }, CONTEXT)
  return { depositId: credited.id, tradeId: transaction.id as string }
}

t.test('GET /_sandbox/ledger: accounts with balances and transactions with status, by organization', async t => {
  const s = await quoteSetup(t)
  const check = await ownDocumentChecker(s.app)
  const { depositId, tradeId } = await funded(s)
  const other = await makeUser(s.app, '0b8f7a4e-2f5c-4d3b-9c1a-6e5d4c3b2a19')

  const res = await s.app.inject({ method: 'GET', url: '/_sandbox/ledger' })
  t.equal(res.statusCode, 200)
  t.same(check('GET', '/_sandbox/ledger', res), [], 'conforms to the document')
  const view = res.json()
  const user = view.users.find((u: { id: string }) => u.id === s.userId)
  t.equal(user.organizationId, DEMO_ORG)
  t.equal(user.accounts.length, 7, 'every account of the user')
  t.same(user.accounts.find((a: { id: string }) => a.id === s.accounts.GBP), { id: s.accounts.GBP, label: 'GBP', asset: 'GBP', archived: false, balance: { total: '100', available: '90' } })
  t.same(user.accounts.find((a: { id: string }) => a.id === s.accounts.BTC).balance, { total: '0', available: '0' })
  t.ok(view.users.some((u: { id: string }) => u.id === other.id), 'users of every organization without a filter')
  t.same(view.transactions.map((x: { id: string }) => x.id), [tradeId, depositId], 'newest first')
  t.match(view.transactions[0], {
    userId: s.userId,
    kind: 'transfer',
    label: 'buy BTC',
    status: 'processing',
    origin: { asset: 'GBP', amount: '10.00', type: 'account', accountId: s.accounts.GBP },
    destination: { asset: 'BTC', type: 'account', accountId: s.accounts.BTC }
  })
  t.match(view.transactions[1], { kind: 'deposit', label: 'deposit', status: 'completed', origin: { asset: 'GBP', amount: '100', type: 'bank-address' } })
  t.equal(view.transactions[0].pendingRequestForInformation, undefined, 'none while processing')
  await s.app.inject({ method: 'POST', url: `/_sandbox/transactions/${tradeId}/status`, payload: { status: 'on-hold' } })
  const onHold = (await s.app.inject({ method: 'GET', url: '/_sandbox/ledger' })).json().transactions[0]
  t.equal(onHold.pendingRequestForInformation, (await ledgerOf(s.app).rfis(tradeId))[0].id, 'on hold: its pending request for information')

  const mine = (await s.app.inject({ method: 'GET', url: `/_sandbox/ledger?organizationId=${DEMO_ORG}` })).json()
  t.notOk(mine.users.some((u: { id: string }) => u.id === other.id), 'only the organization asked for')
  t.equal(mine.transactions.length, 2)
  const none = (await s.app.inject({ method: 'GET', url: `/_sandbox/ledger?organizationId=${other.organizationId}` })).json()
  t.same(none.transactions, [])
  t.equal((await s.app.inject({ method: 'GET', url: '/_sandbox/ledger?organizationId=nope' })).statusCode, 400)
})

t.test('GET /_sandbox/ledger labels a trade: buy or sell the crypto asset, exchange between fiat currencies', async t => {
  const s = await quoteSetup(t)
  const fund = async (asset: string, amount: string) => await deposit(s.app, { organizationId: DEMO_ORG, userId: s.userId, accountId: s.accounts[asset], originNode: { type: 'bank-address', network: 'fps' }, asset, amount })
  await fund('GBP', '100')
  await fund('BTC', '0.01')
  const trade = async (from: string, to: string, amount: string): Promise<string> => {
    await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 1 } })
    const quote = (await s.quote({ origin: { type: 'account', id: s.accounts[from] }, destination: { type: 'account', id: s.accounts[to] }, denomination: { asset: from, amount } })).json().quote
    return (await createTransaction(s.app, DEMO_ORG, s.userId, { quoteId: quote.id }, CONTEXT)).transaction.id as string
  }
  const bought = await trade('GBP', 'BTC', '10')
  const sold = await trade('BTC', 'GBP', '0.001')
  const exchanged = await trade('GBP', 'EUR', '5')
  const swapped = await trade('BTC', 'ETH', '0.001')
  const res = await s.app.inject({ method: 'GET', url: `/_sandbox/ledger?organizationId=${DEMO_ORG}` })
  t.equal(res.statusCode, 200)
  const labels = Object.fromEntries(res.json().transactions.map((x: { id: string, label: string }) => [x.id, x.label]))
  t.equal(labels[bought], 'buy BTC', 'GBP to BTC buys BTC')
  t.equal(labels[sold], 'sell BTC', 'BTC to GBP sells BTC')
  t.equal(labels[exchanged], 'exchange GBP → EUR', 'between two fiat currencies')
  t.equal(labels[swapped], 'buy ETH', 'from one crypto asset to another buys the destination\'s')
  t.same(res.json().transactions.filter((x: { kind: string }) => x.kind === 'deposit').map((x: { label: string }) => x.label), ['deposit', 'deposit'])
})

t.test('the dashboard shows balances and transactions, and completes a pending one', { skip: withoutChromium }, async t => {
  const s = await quoteSetup(t)
  const { tradeId } = await funded(s)
  await s.app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(s.app.server.address() as { port: number }).port}`

  const browser = await launchBrowser(t)
  const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } })
  const problems: string[] = []
  page.on('console', m => { if (m.type() === 'error') problems.push(m.text()) })
  page.on('pageerror', e => problems.push(e.message))
  await page.goto(`${base}/_sandbox/`)
  const show = async (panel: string): Promise<void> => { await page.getByRole('navigation').getByRole('link', { name: panel, exact: true }).click() }

  await show('Accounts')
  const account = page.locator(`#accounts tr[data-user-id="${s.userId}"] [data-account-id="${s.accounts.GBP}"]`)
  await account.waitFor()
  t.match(await account.textContent(), /GBP · GBP 100 \(90 available\)/, 'the account with its balance')

  await show('Transactions')
  const row = page.locator(`#transactions tr[data-transaction-id="${tradeId}"]`)
  await row.waitFor()
  t.match(await row.textContent(), /buy BTC.*10\.00 GBP · account.*BTC · account.*processing/s)
  t.same(await row.locator('button').allTextContents(), ['Complete', 'Fail', 'Hold'], 'the control actions of a processing transaction')

  await row.getByRole('button', { name: 'Complete' }).click()
  await page.locator(`#transactions tr[data-transaction-id="${tradeId}"][data-status="completed"]`).waitFor()
  await waitFor(async () => (await ledgerOf(s.app).get(undefined, tradeId))?.status === 'completed', { what: 'the transaction to complete' })
  t.match(await page.locator(`#transactions tr[data-transaction-id="${tradeId}"]`).textContent(), /completed.*final/s, 'no actions once final')
  await show('Accounts')
  await page.locator(`#accounts [data-account-id="${s.accounts.GBP}"]`, { hasText: 'GBP 90 (90 available)' }).waitFor()
  t.pass('the balance after completion')
  await show('Transactions')

  // A transaction on hold: its pending request for information can be expired from the page.
  const again = (await s.quote({ origin: { type: 'account', id: s.accounts.GBP }, destination: { type: 'account', id: s.accounts.BTC }, denomination: { asset: 'GBP', amount: '10' } })).json().quote
  const held = (await createTransaction(s.app, DEMO_ORG, s.userId, { quoteId: again.id }, CONTEXT)).transaction.id as string
  t.equal((await s.app.inject({ method: 'POST', url: `/_sandbox/transactions/${held}/status`, payload: { status: 'on-hold' } })).statusCode, 200)
  const heldRow = page.locator(`#transactions tr[data-transaction-id="${held}"][data-status="on-hold"]`)
  await heldRow.waitFor()
  t.same(await heldRow.locator('button').allTextContents(), ['Complete', 'Fail', 'Expire RFI'], 'the control actions of a transaction on hold')
  await heldRow.getByRole('button', { name: 'Expire RFI' }).click()
  await page.locator(`#transactions tr[data-transaction-id="${held}"][data-status="failed"]`, { hasText: 'travel-rule-verification-failed' }).waitFor()
  t.equal((await ledgerOf(s.app).rfis(held))[0].status, 'expired', 'the request for information expired')
  await show('Accounts')
  await page.locator(`#accounts [data-account-id="${s.accounts.GBP}"]`, { hasText: 'GBP 90 (90 available)' }).waitFor()
  t.pass('the hold released')
  await page.screenshot({ path: join(tmpdir(), 'dashboard-ledger.png'), fullPage: true })
  t.same(problems, [], 'no script errors')
})

t.test('GET /_sandbox/ledger: the newest 200 users, newest first, read without the rest', async t => {
  const app = await build(t)
  const org = randomUUID()
  const made: string[] = []
  for (let i = 0; i < 201; i++) {
    made.push((await makeUser(app, org)).id)
    await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 1 } })
  }
  const newest = made.slice(1).reverse()
  const ids = (view: { users: Array<{ id: string }> }): string[] => view.users.map(u => u.id)
  t.same(ids((await app.inject({ method: 'GET', url: `/_sandbox/ledger?organizationId=${org}` })).json()), newest, 'the organization\'s newest 200: the first one made is left out')
  t.same(ids((await app.inject({ method: 'GET', url: '/_sandbox/ledger' })).json()), newest, 'of every organization: the same 200, the newest of all')
})
