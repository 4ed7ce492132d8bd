// Organizations using the sandbox at the same time, each driving its own: a journey per
// organization (a token, a user made KYC-ok, accounts, a bank deposit, a quote and the trade that
// commits it, balances and portfolio, its own clock moved to settle the trade, its request log),
// all at once on one app; on PostgreSQL also spread over three replicas of one database, each
// journey's requests going round the replicas. Nothing of one organization shows in another's:
// its users, transactions, balances, clock and log are its own.
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { backend, build, waitFor } from '../helpers.js'
import { Clock } from '../../src/clock.js'
import { Decimal } from '../../src/money/decimal.js'
import { fpsDeposit, fpsDetails, newAccount, readyUser, type Answer } from '../transactions/http-support.js'
import { acct } from '../transactions/support.js'
import { ADMIN_TOKEN, asAdmin, injectHttp, organization, type Call } from '../sandbox/organization-support.js'

const SETTLEMENT = 300
const HOUR = 3600

const expect = (what: string, res: Answer, status: number): Answer => {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`)
  return res
}

const amount = (value: string): string => new Decimal(value).toFixed()
const balanceOf = (res: Answer): string[] => [amount(res.body.account.balance.total), amount(res.body.account.balance.available)]

/** Resolves each arrival once `count` journeys have arrived: the steps after it start together. */
function barrier (count: number): () => Promise<void> {
  let arrived = 0
  let release!: () => void
  const all = new Promise<void>(resolve => { release = resolve })
  return async () => {
    if (++arrived === count) release()
    await all
  }
}

/** What a journey leaves, for the checks across organizations. */
interface Outcome {
  organizationId: string
  clientId: string
  user: string
  deposit: string
  trade: string
  /** A token of the organization valid at the end. */
  token: () => Promise<string>
}

interface Journey {
  /** Where the requests go: the replicas in turn (one app: always it). */
  replicas: FastifyInstance[]
  index: number
  /** The global clock's instant when the journeys start (it stands still). */
  start: string
  /** Both barriers: trades made, clocks moved. */
  traded: () => Promise<void>
  moved: () => Promise<void>
}

async function journey (t: Test, { replicas, index, start, traded, moved }: Journey): Promise<Outcome> {
  const { serviceName, partnerArea } = replicas[0].config
  const requestId = `x-${serviceName}-request-id`
  let turn = index
  const spread: Call = async options => await replicas[turn++ % replicas.length].inject(options)
  // Every request of the journey the log keeps (all but reads of the control API), by request id.
  const logged = new Set<string>()
  const record = (to: Call): Call => async (options: InjectOptions) => {
    const res = await to(options)
    if (!(options.method === 'GET' && (options.url as string).startsWith('/_sandbox'))) logged.add(res.headers[requestId] as string)
    return res
  }
  const call = record(spread)
  const name = `org ${index}`
  const deposited = String(200 + 100 * index)
  const spent = String(50 + 10 * index)
  const move = HOUR * (index + 1)

  // The admin makes the organization and its client; the rest is the organization's own doing.
  const org = await organization(spread, randomUUID(), partnerArea)
  const token = await org.token(call)
  const h = injectHttp(call, token, serviceName)
  const user = await readyUser(h, `journey-${index}@example.com`)
  const gbp = await newAccount(h, user, 'GBP')
  const btc = await newAccount(h, user, 'BTC')
  await fpsDeposit(h, user, await fpsDetails(h, user, gbp), deposited)
  const quote = expect('quote', await h.call('POST', '/core/transactions/quote', { user, body: { origin: acct(gbp), destination: acct(btc), denomination: { asset: 'GBP', amount: spent } } }), 201).body.quote
  const trade = expect('trade', await h.call('POST', '/core/transactions', { user, body: { quoteId: quote.id }, headers: h.context }), 201).body.transaction
  t.match(trade, { status: 'processing', origin: { amount: quote.origin.amount }, destination: { amount: quote.destination.amount } }, `${name}: the trade waits for its settlement`)
  t.same(balanceOf(expect('GBP', await h.call('GET', `/core/accounts/${gbp}`, { user }), 200)), [deposited, String(Number(deposited) - Number(spent))], `${name}: the trade's amount held`)
  const listed = expect('transactions', await h.call('GET', '/core/transactions', { user }), 200).body.transactions as Array<{ id: string, status: string }>
  t.equal(listed.length, 2, `${name}: the deposit and the trade`)
  const deposit = listed.find(x => x.id !== trade.id)!.id

  // Every organization has its trade processing; then each moves its own clock, all at once.
  await traded()
  t.same(expect('clock', await h.call('GET', '/_sandbox/clock'), 200).body, { now: start, frozen: true, organizationId: org.organizationId }, `${name}: on the global clock before its move`)
  const clock = expect('move', await h.call('POST', '/_sandbox/clock', { body: { advanceSeconds: move } }), 200).body
  const moment = new Date(Date.parse(start) + move * 1000).toISOString()
  t.same(clock, { now: moment, frozen: true, organizationId: org.organizationId }, `${name}: its clock moved by ${move} s`)
  await moved()

  // Every replica reads the move at its next request: the token issued before it has expired there
  // (each replica verified it before), and the clock is the moved one.
  for (const [i, replica] of replicas.entries()) {
    const on = injectHttp(record(async options => await replica.inject(options)), token, serviceName)
    const expired = await on.call('GET', `/core/transactions/${trade.id as string}`, { user })
    t.equal(expired.status, 401, `${name}: its first token expired on replica ${i}`)
    t.equal(expired.body.code, 'token_expired')
    on.setToken(await org.token(record(async options => await replica.inject(options))))
    t.same(expect('clock', await on.call('GET', '/_sandbox/clock'), 200).body, clock, `${name}: replica ${i} reads its moved clock`)
  }
  h.setToken(await org.token(call))

  // The trade settled on its clock; balances and portfolio show it.
  const settled = expect('trade', await h.call('GET', `/core/transactions/${trade.id as string}`, { user }), 200).body.transaction
  t.match(settled, { id: trade.id, status: 'completed', completedAt: String }, `${name}: the trade completed`)
  t.equal(settled.completedAt, moment, `${name}: completed when its own clock reached the settlement`)
  const left = String(Number(deposited) - Number(spent))
  t.same(balanceOf(expect('GBP', await h.call('GET', `/core/accounts/${gbp}`, { user }), 200)), [left, left], `${name}: GBP debited`)
  const credit = amount(quote.destination.amount)
  t.same(balanceOf(expect('BTC', await h.call('GET', `/core/accounts/${btc}`, { user }), 200)), [credit, credit], `${name}: BTC credited`)
  const portfolio = expect('portfolio', await h.call('GET', '/core/portfolio?includeBase=true', { user }), 200).body
  t.same(portfolio.holdings.map((x: { asset: string, baseTotal: string, baseAvailable: string }) => [x.asset, amount(x.baseTotal), amount(x.baseAvailable)]),
    [['BTC', credit, credit], ['GBP', left, left]], `${name}: the portfolio holds the BTC bought and the GBP left`)

  // What the organization sees of the sandbox: its own user and transactions.
  const ledger = expect('ledger', await h.call('GET', '/_sandbox/ledger'), 200).body
  t.same(ledger.users.map((u: { id: string, organizationId: string }) => `${u.organizationId} ${u.id}`), [`${org.organizationId} ${user}`], `${name}: its one user in the ledger`)
  t.same(ledger.transactions.map((x: { id: string, organizationId: string, status: string }) => `${x.organizationId} ${x.id} ${x.status}`).sort(),
    [`${org.organizationId} ${deposit} completed`, `${org.organizationId} ${trade.id as string} completed`].sort(), `${name}: its two transactions, completed`)
  const kyc = expect('KYC list', await h.call('GET', '/_sandbox/kyc'), 200).body
  t.same(kyc.users.map((u: { id: string, summary: string }) => u.id), [user], `${name}: its one user in the KYC list`)

  // Its request log: exactly the requests of its journey, every one by its client.
  let entries: Array<{ requestId: string, clientId: string | null }> = []
  await waitFor(async () => {
    entries = expect('log', await h.call('GET', '/_sandbox/requests?limit=1000'), 200).body.requests
    return entries.length >= logged.size
  }, { what: `${name}'s request log` })
  t.same(entries.map(e => e.requestId).sort(), [...logged].sort(), `${name}: its log holds its ${logged.size} requests, and no other`)
  t.ok(entries.every(e => e.clientId === org.clientId), `${name}: every entry is its client's`)

  return { organizationId: org.organizationId, clientId: org.clientId, user, deposit, trade: trade.id, token: async () => await org.token(spread) }
}

/** Runs `count` journeys at once on `replicas`, then checks no organization reaches another's data. */
async function journeys (t: Test, replicas: FastifyInstance[], count: number): Promise<void> {
  const admin: Call = async options => await replicas[0].inject(options)
  // The global clock stands still (for every replica: they read it from the database).
  const start = expect('global clock', await asAdmin(admin, 'POST', '/_sandbox/clock', { frozen: true }), 200).body.now as string
  const traded = barrier(count)
  const moved = barrier(count)
  const outcomes = await Promise.all(Array.from({ length: count }, async (_, index) => await journey(t, { replicas, index, start, traded, moved })))

  t.equal(expect('global clock', await asAdmin(admin, 'GET', '/_sandbox/clock'), 200).body.now, start, 'the global clock did not move')
  for (const [i, mine] of outcomes.entries()) {
    const h = injectHttp(admin, await mine.token())
    for (const [j, other] of outcomes.entries()) {
      if (i === j) continue
      const asUser = await h.call('GET', `/core/transactions/${other.trade}`, { user: other.user })
      t.equal(asUser.status, 404, `org ${i} cannot act as org ${j}'s user`)
      t.match(asUser.body, { code: 'entity_not_found', details: { entity: 'user' } })
      const transaction = await h.call('GET', `/core/transactions/${other.deposit}`, { user: mine.user })
      t.equal(transaction.status, 404, `org ${i} does not find org ${j}'s deposit`)
      const clock = await h.call('GET', `/_sandbox/clock?organizationId=${other.organizationId}`)
      t.equal(clock.status, 404, `org ${i} does not find org ${j}'s clock`)
    }
  }
  // The admin's log holds every journey's requests, each organization's under its client.
  const log = expect('log', await asAdmin(admin, 'GET', '/_sandbox/requests?limit=1000'), 200).body.requests as Array<{ clientId: string | null }>
  for (const [i, o] of outcomes.entries()) t.ok(log.some(e => e.clientId === o.clientId), `the admin reads org ${i}'s requests`)
}

const config = { adminToken: ADMIN_TOKEN, transactionSettlementSeconds: SETTLEMENT }

t.test('three organizations\' journeys at once on one app', async t => {
  const app = await build(t, config)
  await journeys(t, [app], 3)
})

if (backend !== 'postgres') {
  t.comment('replicas share a PostgreSQL database: the journeys over three replicas run with SANDBOX_TEST_BACKEND=postgres (npm run test:postgres)')
} else {
  t.test('three organizations\' journeys at once over three replicas of one database', async t => {
    const first = await build(t, config)
    const another = async (): Promise<FastifyInstance> => {
      const clock = new Clock()
      clock.freeze(true)
      clock.set(first.clock.now())
      return await build(t, { ...first.config }, { clock })
    }
    await journeys(t, [first, await another(), await another()], 3)
  })

  t.test('organizations moving their clocks at once through different replicas: every replica reads every move at its next request', async t => {
    const first = await build(t, config)
    const another = async (): Promise<FastifyInstance> => {
      const clock = new Clock()
      clock.freeze(true)
      clock.set(first.clock.now())
      return await build(t, { ...first.config }, { clock })
    }
    const replicas = [first, await another(), await another()]
    const admin: Call = async options => await first.inject(options)
    const start = Date.parse(expect('freeze', await asAdmin(admin, 'POST', '/_sandbox/clock', { frozen: true }), 200).body.now)
    const orgs = await Promise.all([0, 1, 2].map(async () => await organization(admin, randomUUID(), first.config.partnerArea)))
    const tokens = await Promise.all(orgs.map(async o => await o.token()))
    for (let round = 1; round <= 8; round++) {
      // Each organization moves its clock by a second through another replica, all at once.
      const moves = await Promise.all(orgs.map(async (_, i) =>
        await injectHttp(async options => await replicas[(i + round) % 3].inject(options), tokens[i]).call('POST', '/_sandbox/clock', { body: { advanceSeconds: 1 } })))
      t.same(moves.map(m => m.status), [200, 200, 200], `round ${round}: moved`)
      const wanted = new Date(start + round * 1000).toISOString()
      const seen = await Promise.all(orgs.map(async (_, i) => await Promise.all(replicas.map(async r =>
        (await r.inject({ method: 'GET', url: '/_sandbox/clock', headers: { authorization: `Bearer ${tokens[i]}` } })).json().now as string))))
      t.same(seen, orgs.map(() => [wanted, wanted, wanted]), `round ${round}: every replica reads each organization ${round} s on`)
    }
  })
}
