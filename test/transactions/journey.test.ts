// A user's journey through the API alone, at a listening server, with a listening webhook
// receiver: a bank deposit (FPS, to the details of the GBP account's deposit method), the
// balance, a quote from GBP to BTC and the transaction that commits it, completed on the sandbox
// clock, the BTC balance, then a withdrawal to a crypto address, completed too. Each step's answers,
// statuses and balances, and the events delivered for it, in order: the receiver gets each step's
// events before the next step starts, and the events of one entity in the order of its changes.
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { Decimal } from '../../src/money/decimal.js'
import { build } from '../helpers.js'
import { clientToken } from '../reliability/support.js'
import { startReceiver, type Received } from '../webhooks/support.js'
import { fpsDeposit, fpsDetails, http, newAccount, readyUser } from './http-support.js'

const BTC_ADDRESS = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'
const EVENT_TYPES = ['core.transaction.created', 'core.transaction.status-changed', 'core.account.balance-changed']

interface Event { type: string, data: { transaction?: { id: string, status: string }, account?: { id: string, balance: { total: string, available: string } } } }

t.test('deposit, trade and withdrawal through the API, with their events in order', async t => {
  const app = await build(t, { serviceName: 'uphold', partnerArea: 'topper', transactionSettlementSeconds: 30 })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const h = http(base, await clientToken(base, 'sandbox-demo-client', 'sandbox-demo-secret'), 'uphold')

  // The webhook endpoint, through the management link and the portal's API.
  const receiver = await startReceiver(t)
  const linkToken = await (await fetch(`${base}/core/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('sandbox-demo-client:sandbox-demo-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=core.webhooks%3Amanagement-link'
  })).json() as { access_token: string }
  const link = await fetch(`${base}/core/webhooks/management-link`, { method: 'POST', headers: { authorization: `Bearer ${linkToken.access_token}` } })
  t.equal(link.status, 201)
  const portal = new URL(((await link.json()) as { managementLink: { url: string } }).managementLink.url).pathname
  const added = await fetch(`${base}${portal}/api/endpoints`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: receiver.url, eventTypes: EVENT_TYPES }) })
  t.equal(added.status, 201)
  const secret = ((await added.json()) as { endpoint: { secret: string } }).endpoint.secret

  let delivered = 0
  /** The events of the step just taken: `count` of them, verified, with nothing else. */
  const step = async (count: number): Promise<Event[]> => {
    const all = await receiver.waitFor(delivered + count)
    const mine = all.slice(delivered, delivered + count)
    delivered += count
    return mine.map((r: Received) => new Webhook(secret).verify(r.body, Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]))) as Event)
  }
  /** Each event as its type, the entity it is about and what it says of it (balances as numbers: 500 for 500.00). */
  const summary = (events: Event[]): string[] => events.map(e => e.data.transaction !== undefined
    ? `${e.type} ${e.data.transaction.id} ${e.data.transaction.status}`
    : `${e.type} ${e.data.account!.id} ${new Decimal(e.data.account!.balance.total).toFixed()}/${new Decimal(e.data.account!.balance.available).toFixed()}`)
  /** The same, sorted by entity while keeping each entity's order: deliveries of different entities may pass each other. */
  const byEntity = (lines: string[]): string[] => {
    const entity = (line: string): string => line.split(' ')[1]
    const order = [...new Set(lines.map(entity))].sort()
    return order.flatMap(e => lines.filter(l => entity(l) === e))
  }
  const advance = async (seconds: number): Promise<void> => {
    const res = await h.call('POST', '/_sandbox/clock', { body: { advanceSeconds: seconds } })
    t.equal(res.status, 200, `the clock moves ${seconds} s`)
  }

  const user = await readyUser(h, 'journey@example.com')
  const gbp = await newAccount(h, user, 'GBP')
  const btc = await newAccount(h, user, 'BTC')
  const balance = async (id: string): Promise<{ total: string, available: string }> => {
    const res = await h.call('GET', `/core/accounts/${id}`, { user })
    t.equal(res.status, 200)
    return res.body.account.balance
  }

  // 1. A bank deposit of 500 GBP to the GBP account's FPS details.
  const details = await fpsDetails(h, user, gbp)
  t.match(details, { network: 'fps', asset: 'GBP', sortCode: /^\d{6}$/, accountNumber: /^\d{8}$/ })
  const deposited = await fpsDeposit(h, user, details, '500')
  t.equal(deposited.status, 202)
  const deposits = await step(3)
  const depositId = deposits.find(e => e.type === 'core.transaction.created')!.data.transaction!.id
  t.same(byEntity(summary(deposits)), byEntity([
    `core.transaction.created ${depositId} processing`,
    `core.transaction.status-changed ${depositId} completed`,
    `core.account.balance-changed ${gbp} 500/500`
  ]), 'created then completed, and the balance')
  let gbpBalance = await balance(gbp)
  t.ok(new Decimal(gbpBalance.total).eq(500) && new Decimal(gbpBalance.available).eq(500), `GBP ${gbpBalance.total}/${gbpBalance.available} after the deposit`)
  const deposit = await h.call('GET', `/core/transactions/${depositId}`, { user })
  t.equal(deposit.status, 200)
  t.match(deposit.body.transaction, { id: depositId, status: 'completed', destination: { asset: 'GBP', node: { type: 'account', id: gbp } } })
  await advance(1) // the clock stands still: the next transaction is a second newer

  // 2. A quote from GBP to BTC, and the transaction that commits it: the funds are held.
  const tradeQuote = await h.call('POST', '/core/transactions/quote', { user, body: { origin: { type: 'account', id: gbp }, destination: { type: 'account', id: btc }, denomination: { asset: 'GBP', amount: '100' } } })
  t.equal(tradeQuote.status, 201)
  const missing = await h.call('POST', '/core/transactions', { user, body: { quoteId: tradeQuote.body.quote.id } })
  t.equal(missing.status, 409, 'the user context is required')
  t.same(missing.body.details?.reasons, ['missing-user-ip-header', 'missing-user-agent-header'])
  const traded = await h.call('POST', '/core/transactions', { user, body: { quoteId: tradeQuote.body.quote.id }, headers: h.context })
  t.equal(traded.status, 201)
  const trade = traded.body.transaction
  t.match(trade, { status: 'processing', origin: { asset: 'GBP', amount: '100.00' }, destination: { asset: 'BTC', amount: tradeQuote.body.quote.destination.amount } })
  t.same(byEntity(summary(await step(2))), byEntity([`core.transaction.created ${trade.id} processing`, `core.account.balance-changed ${gbp} 500/400`]), 'created, and the hold')
  gbpBalance = await balance(gbp)
  t.ok(new Decimal(gbpBalance.total).eq(500) && new Decimal(gbpBalance.available).eq(400), `GBP ${gbpBalance.total}/${gbpBalance.available}: 100 held`)

  // 3. Completed when the sandbox clock reaches its settlement.
  await advance(31)
  const settled = (await h.call('GET', `/core/transactions/${trade.id}`, { user })).body.transaction
  t.match(settled, { id: trade.id, status: 'completed', completedAt: String })
  const credit = trade.destination.amount as string
  t.same(byEntity(summary(await step(3))), byEntity([
    `core.transaction.status-changed ${trade.id} completed`,
    `core.account.balance-changed ${gbp} 400/400`,
    `core.account.balance-changed ${btc} ${new Decimal(credit).toFixed()}/${new Decimal(credit).toFixed()}`
  ]), 'completed: the debit and the credit')
  const btcBalance = await balance(btc)
  t.ok(new Decimal(btcBalance.total).eq(credit) && new Decimal(btcBalance.available).eq(credit), `BTC ${btcBalance.total}: the trade's credit`)

  // 4. A withdrawal of half of it to a crypto address: quoted, committed, completed on the clock.
  const half = new Decimal(credit).div(2).toDecimalPlaces(8, Decimal.ROUND_DOWN).toFixed()
  const withdrawalQuote = await h.call('POST', '/core/transactions/quote', { user, body: { origin: { type: 'account', id: btc }, destination: { type: 'crypto-address', asset: 'BTC', network: 'bitcoin', address: BTC_ADDRESS }, denomination: { asset: 'BTC', amount: half } } })
  t.equal(withdrawalQuote.status, 201)
  const withdrawn = await h.call('POST', '/core/transactions', { user, body: { quoteId: withdrawalQuote.body.quote.id }, headers: h.context })
  t.equal(withdrawn.status, 201)
  const withdrawal = withdrawn.body.transaction
  t.match(withdrawal, { status: 'processing', origin: { asset: 'BTC', node: { type: 'account', id: btc } }, destination: { asset: 'BTC', node: { type: 'crypto-address', address: BTC_ADDRESS } } })
  const paid = withdrawal.origin.amount as string
  const left = new Decimal(credit).minus(paid).toFixed()
  t.ok(new Decimal(paid).eq(half), `${paid} BTC paid`)
  t.same(byEntity(summary(await step(2))), byEntity([`core.transaction.created ${withdrawal.id} processing`, `core.account.balance-changed ${btc} ${new Decimal(credit).toFixed()}/${left}`]), 'created, and the hold')
  await advance(31)
  t.same(byEntity(summary(await step(2))), byEntity([`core.transaction.status-changed ${withdrawal.id} completed`, `core.account.balance-changed ${btc} ${left}/${left}`]), 'completed: the debit')
  t.equal((await h.call('GET', `/core/transactions/${withdrawal.id}`, { user })).body.transaction.status, 'completed')

  // 5. Where the user stands.
  gbpBalance = await balance(gbp)
  t.ok(new Decimal(gbpBalance.total).eq(400) && new Decimal(gbpBalance.available).eq(400), `GBP ${gbpBalance.total}/${gbpBalance.available}`)
  const finalBtc = await balance(btc)
  t.ok(new Decimal(finalBtc.total).eq(left) && new Decimal(finalBtc.available).eq(left), `BTC ${finalBtc.total}/${finalBtc.available}: the credit less the withdrawal`)
  const listed = await h.call('GET', '/core/transactions', { user })
  t.equal(listed.status, 200)
  t.same(listed.body.transactions.map((x: { id: string, status: string }) => `${x.id} ${x.status}`),
    [withdrawal.id, trade.id, depositId].map(id => `${id} completed`), 'the user\'s transactions, newest first, all completed')
  t.equal(receiver.received.length, delivered, 'no other event was delivered')
})
