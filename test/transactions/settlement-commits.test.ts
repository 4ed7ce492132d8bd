// Transactions that fall due together complete together: one group commit for the batch, not one
// each (src/kit/due-work.ts, allTogether). Taken one after another, a burst of trades settled a
// commit at a time, and under load the settlements fell behind by thousands.
import t from 'tap'
import { build } from '../helpers.js'
import { clientToken } from '../reliability/support.js'
import { fpsDeposit, fpsDetails, http, newAccount, readyUser, trade } from './http-support.js'

const TRADES = 12

t.test(`${TRADES} trades due at the same instant complete in one pass, with fewer commits than trades`, async t => {
  const app = await build(t, { serviceName: 'uphold', partnerArea: 'topper', transactionSettlementSeconds: 30 })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const h = http(base, await clientToken(base, 'sandbox-demo-client', 'sandbox-demo-secret'), 'uphold')
  const user = await readyUser(h, 'settlements@example.com')
  const gbp = await newAccount(h, user, 'GBP')
  const btc = await newAccount(h, user, 'BTC')
  await fpsDeposit(h, user, await fpsDetails(h, user, gbp), '1000')
  const ids: string[] = []
  for (let i = 0; i < TRADES; i++) {
    const traded = await trade(h, user, { origin: { type: 'account', id: gbp }, destination: { type: 'account', id: btc }, denomination: { asset: 'GBP', amount: '10' } })
    t.equal(traded.status, 201)
    ids.push(traded.body.transaction.id)
  }
  const listed = async (): Promise<string[]> => await Promise.all(ids.map(async id => (await h.call('GET', `/core/transactions/${id}`, { user })).body.transaction.status as string))
  t.same(new Set(await listed()), new Set(['processing']), 'all processing before the clock moves')

  let commits = 0
  app.storage.db.afterCommit(() => { commits++ })
  // The clock's answer waits for the due work it started.
  t.equal((await h.call('POST', '/_sandbox/clock', { body: { advanceSeconds: 31 } })).status, 200)
  t.same(new Set(await listed()), new Set(['completed']), 'all completed')
  t.ok(commits < TRADES, `the ${TRADES} completions took ${commits} commits`)
})
