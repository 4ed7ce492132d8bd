// The ledger across a SIGKILL: a server process on a file database takes deposits (an ACH one,
// unsettled for an hour) and transactions (settlement an hour away on the sandbox clock, so they
// stay pending), completes and
// fails some through the control API, then takes a burst of transactions and is killed with
// SIGKILL in the middle of it. Restarted on the same database, every transaction answered 201 is
// there with its status, the balances, holds and unsettled funds are as they were, and the pending
// transactions and funds settle when the clock reaches their time.
import t from 'tap'
import { Decimal } from '../../src/money/decimal.js'
import { fileDatabasePath, waitFor } from '../helpers.js'
import { clientToken, startServer, type Server } from '../reliability/support.js'
import { fpsDeposit, fpsDetails, http, newAccount, readyUser, trade, type Http } from './http-support.js'

const CLIENT_ID = 'sigkill-client'
const CLIENT_SECRET = 'sigkill-client-secret'
const SETTLEMENT_SECONDS = 3600
const ENV = { SANDBOX_CLIENT_ID: CLIENT_ID, SANDBOX_CLIENT_SECRET: CLIENT_SECRET, TRANSACTION_SETTLEMENT_SECONDS: String(SETTLEMENT_SECONDS), ACH_SETTLEMENT_SECONDS: String(SETTLEMENT_SECONDS) }
const BURST = 40

interface Acknowledged { id: string, status: string, origin: string, destination: string }

t.test('acknowledged transactions, balances, holds and unsettled funds survive a SIGKILL, and settle after it', async t => {
  const databasePath = fileDatabasePath(t)
  let server: Server = await startServer(databasePath, ENV)
  t.teardown(() => { server.child.kill('SIGKILL') })
  let h: Http = http(server.base, await clientToken(server.base, CLIENT_ID, CLIENT_SECRET))

  const user = await readyUser(h, 'sigkill@example.com')
  const gbp = await newAccount(h, user, 'GBP')
  const btc = await newAccount(h, user, 'BTC')
  await fpsDeposit(h, user, await fpsDetails(h, user, gbp), '1000')
  // 100 USD by ACH: in the total at once, available only after ACH_SETTLEMENT_SECONDS.
  const usd = await newAccount(h, user, 'USD')
  const ach = (await h.call('PUT', `/core/accounts/${usd}/deposit-method?type=bank&asset=USD&network=ach`, { user })).body.depositMethod.details
  const achDeposit = await h.call('POST', '/core/accounts/test-helpers/bank-deposits', { user, body: { network: 'ach', accountNumber: ach.accountNumber, routingNumber: ach.routingNumber, amount: '100' } })
  t.equal(achDeposit.status, 202, 'the ACH deposit is accepted')
  const quote = { origin: { type: 'account', id: gbp }, destination: { type: 'account', id: btc }, denomination: { asset: 'GBP', amount: '5' } }

  const acked: Acknowledged[] = []
  const commit = async (): Promise<void> => {
    const res = await trade(h, user, quote)
    if (res.status !== 201) throw new Error(`transaction: ${res.status} ${JSON.stringify(res.body)}`)
    const x = res.body.transaction
    acked.push({ id: x.id, status: x.status, origin: x.origin.amount, destination: x.destination.amount })
  }
  for (let i = 0; i < 6; i++) await commit()
  const move = async (x: Acknowledged, status: string): Promise<void> => {
    const res = await h.call('POST', `/_sandbox/transactions/${x.id}/status`, { body: { status } })
    if (res.status !== 200) throw new Error(`control: ${res.status} ${JSON.stringify(res.body)}`)
    x.status = res.body.transaction?.status ?? status
  }
  await move(acked[0], 'completed')
  await move(acked[1], 'failed')
  t.same(acked.map(x => x.status), ['completed', 'failed', 'processing', 'processing', 'processing', 'processing'])

  // A burst of transactions in flight, and the kill in the middle of it: those answered 201 count.
  const burstState = { stop: false }
  const burst = Array.from({ length: 4 }, async () => {
    while (!burstState.stop) {
      try { await commit() } catch (err) {
        if (burstState.stop || err instanceof TypeError) return // the server went away mid-request
        throw err
      }
    }
  })
  await waitFor(() => acked.length >= 6 + BURST / 2, { timeoutMs: 30_000, what: 'a part of the burst acknowledged' })
  server.child.kill('SIGKILL')
  burstState.stop = true
  await server.exited
  await Promise.all(burst)
  t.ok(acked.length > 6, `${acked.length - 6} transactions of the burst acknowledged before the kill`)

  server = await startServer(databasePath, ENV)
  h = http(server.base, await clientToken(server.base, CLIENT_ID, CLIENT_SECRET))

  // Every acknowledged transaction, as acknowledged (or moved later by the control API).
  const wrong: string[] = []
  for (const x of acked) {
    const res = await h.call('GET', `/core/transactions/${x.id}`, { user })
    if (res.status !== 200 || res.body.transaction.status !== x.status) wrong.push(`${x.id}: acknowledged ${x.status}, got ${res.status} ${JSON.stringify(res.body)}`)
  }
  t.same(wrong, [], `all ${acked.length} acknowledged transactions are there after the restart`)

  // The ledger agrees with the transactions it lists: an unacknowledged one in flight at the kill may have been stored too.
  const listed = await h.call('GET', `/core/accounts/${gbp}/transactions?perPage=100`, { user })
  t.equal(listed.status, 200)
  const all = listed.body.transactions as Array<{ id: string, status: string, origin: { amount: string, node: { type: string } }, destination: { amount: string } }>
  const stored = new Set(all.map(x => x.id))
  t.same(acked.filter(x => !stored.has(x.id)).map(x => x.id), [], 'the account lists every acknowledged transaction')
  t.ok(all.length - 1 <= acked.length + 4, 'at most the requests in flight at the kill were stored unanswered')
  const transfers = all.filter(x => x.origin.node.type === 'account')
  const sum = (xs: typeof transfers, pick: (x: typeof transfers[number]) => string): Decimal => xs.reduce((a, x) => a.plus(pick(x)), new Decimal(0))
  const completed = transfers.filter(x => x.status === 'completed')
  const pending = transfers.filter(x => x.status === 'processing')
  t.equal(completed.length, 1)
  t.equal(transfers.filter(x => x.status === 'failed').length, 1)
  const balance = async (id: string): Promise<{ total: string, available: string }> => (await h.call('GET', `/core/accounts/${id}`, { user })).body.account.balance
  let gbpBalance = await balance(gbp)
  const total = new Decimal(1000).minus(sum(completed, x => x.origin.amount))
  t.ok(new Decimal(gbpBalance.total).eq(total), `GBP total ${gbpBalance.total}: the deposit less the completed transaction`)
  t.ok(new Decimal(gbpBalance.available).eq(total.minus(sum(pending, x => x.origin.amount))), `GBP available ${gbpBalance.available}: less the holds of ${pending.length} pending transactions`)
  t.ok(new Decimal((await balance(btc)).total).eq(sum(completed, x => x.destination.amount)), 'BTC: the completed transaction\'s credit')
  const usdBefore = await balance(usd)
  t.ok(new Decimal(usdBefore.total).eq(100) && new Decimal(usdBefore.available).eq(0), `USD ${usdBefore.total}/${usdBefore.available}: the ACH funds still unsettled`)

  // The pending settlements resume: when the clock reaches them, they complete.
  const moved = await h.call('POST', '/_sandbox/clock', { body: { advanceSeconds: SETTLEMENT_SECONDS + 1 } })
  t.equal(moved.status, 200)
  h.setToken(await clientToken(server.base, CLIENT_ID, CLIENT_SECRET))
  for (const x of pending) {
    await waitFor(async () => (await h.call('GET', `/core/transactions/${x.id}`, { user })).body.transaction.status === 'completed', { what: `${x.id} to settle` })
  }
  t.pass(`all ${pending.length} pending transactions completed after the restart`)
  gbpBalance = await balance(gbp)
  const spent = sum(completed, x => x.origin.amount).plus(sum(pending, x => x.origin.amount))
  t.same(gbpBalance, { total: gbpBalance.available, available: gbpBalance.available }, 'no hold left')
  t.ok(new Decimal(gbpBalance.total).eq(new Decimal(1000).minus(spent)), `GBP ${gbpBalance.total}: the deposit less every completed transaction`)
  t.ok(new Decimal((await balance(btc)).total).eq(sum(completed, x => x.destination.amount).plus(sum(pending, x => x.destination.amount))), 'BTC: every credit')
  const usdAfter = await balance(usd)
  t.ok(new Decimal(usdAfter.total).eq(100) && new Decimal(usdAfter.available).eq(100), `USD ${usdAfter.total}/${usdAfter.available}: the ACH funds settled`)

  server.child.kill('SIGTERM')
  await server.exited
})
