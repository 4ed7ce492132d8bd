// The ledger's invariants over random histories (fast-check): deposits (ACH ones unsettled for a
// while), trades between a user's accounts, crypto withdrawals, sends to another user, completions,
// failures and holds by the control API, resumptions by answering the request for information, and
// the clock moving. Transactions go through
// POST /core/transactions; deposits through the engine's deposit() (ACH funds stay unsettled for
// ACH_SETTLEMENT_SECONDS). After every step:
// - every transaction's postings, system accounts included, sum to zero per asset in both columns;
// - every account's balance is the sum of its postings, and each posting's running balance is right;
// - no user account is negative, and its available never exceeds its total;
// - each user account's balance is what a model of the history predicts, and what the API shows.
import t from 'tap'
import fc from 'fast-check'
import { Decimal } from '../../src/money/decimal.js'
import { deposit, ledgerOf } from '../../src/transactions/service.js'
import { accessToken, backend, bearer, DEMO_ORG, makeUser, onBehalfOf } from '../helpers.js'
import { ready } from '../accounts/support.js'
import { quoteSetup } from '../quotes/support.js'

const BTC_ADDRESS = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'
const CONTEXT = { 'x-uphold-user-ip': '47.174.97.164', 'x-uphold-user-agent': 'ledger-property-test' }
const ASSETS = ['GBP', 'USD', 'BTC', 'ETH'] as const
type Asset = typeof ASSETS[number]
const SCALE: Record<Asset, number> = { GBP: 2, USD: 2, BTC: 5, ETH: 4 }
// Fewer histories on PostgreSQL, where each of the thousands of statements is a round trip (about
// 1.5 ms on a loaded CI machine against microseconds in process): 30 still reach every kind of step.
const NUM_RUNS = Number(process.env.LEDGER_RUNS ?? (backend === 'postgres' ? 30 : 100))
// A fixed seed by default, so that the histories (and the counts checked at the end) are the same
// on every run; LEDGER_SEED=<n> (and LEDGER_RUNS) explores others.
const SEED = Number(process.env.LEDGER_SEED ?? 20261125)

const amount = (asset: Asset, min: number, max: number): fc.Arbitrary<string> =>
  fc.integer({ min, max }).map(n => new Decimal(n).div(new Decimal(10).pow(SCALE[asset])).toFixed())
const anyAmount = (asset: Asset, big: boolean): fc.Arbitrary<string> =>
  // Deposits are larger than spends; the smallest spend is still over the quotes' 1 USD minimum.
  asset === 'BTC' ? amount(asset, big ? 100 : 10, big ? 5000 : 800) : asset === 'ETH' ? amount(asset, big ? 100 : 10, big ? 10000 : 3000) : amount(asset, big ? 1000 : 200, big ? 200_000 : 30_000)

type Step =
  | { kind: 'deposit', owner: 'a' | 'b', asset: Asset, amount: string, ach: boolean }
  | { kind: 'trade', from: Asset, to: Asset, amount: string }
  | { kind: 'withdraw', amount: string }
  | { kind: 'send', from: Asset, to: 'GBP' | 'BTC', amount: string }
  | { kind: 'complete' | 'fail' | 'hold' | 'resume', pick: number }
  | { kind: 'advance', seconds: number }

const assetArb = fc.constantFrom(...ASSETS)
const depositArb: fc.Arbitrary<Step> = fc.tuple(fc.constantFrom('a' as const, 'a' as const, 'b' as const), assetArb, fc.boolean()).chain(([owner, asset, ach]) =>
  anyAmount(asset, true).map(a => ({ kind: 'deposit' as const, owner, asset, amount: a, ach: ach && asset === 'USD' })))
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: depositArb },
  { weight: 3, arbitrary: fc.tuple(assetArb, assetArb).filter(([a, b]) => a !== b).chain(([from, to]) => anyAmount(from, false).map(a => ({ kind: 'trade' as const, from, to, amount: a }))) },
  { weight: 1, arbitrary: anyAmount('BTC', false).map(a => ({ kind: 'withdraw' as const, amount: a })) },
  { weight: 2, arbitrary: fc.tuple(assetArb, fc.constantFrom('GBP' as const, 'BTC' as const)).chain(([from, to]) => anyAmount(from, false).map(a => ({ kind: 'send' as const, from, to, amount: a }))) },
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom('complete' as const, 'fail' as const, 'hold' as const, 'resume' as const), fc.nat()).map(([kind, pick]) => ({ kind, pick })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 120 }).map(seconds => ({ kind: 'advance' as const, seconds })) }
)

interface Pending { id: string, status: 'processing' | 'on-hold', settleAt: number | null, origin: string, hold: string, destination: string | null, credit: string, withdrawalKey: string | null }

t.test(`the ledger balances after every step of random histories (seed ${SEED})`, async t => {
  const s = await quoteSetup(t)
  const { app } = s
  const ledger = ledgerOf(app)
  const b = await makeUser(app)
  await ready({ app, userId: b.id, call: async (method, url, options = {}) => await s.call(method, url, { ...options, user: b.id }) })
  const settleMs = app.config.transactionSettlementSeconds * 1000
  const achMs = app.config.achSettlementSeconds * 1000
  const seen = { deposits: 0, created: 0, refused: 0, completed: 0, failed: 0, held: 0, resumed: 0, settledByClock: 0, achSettled: 0, unsettledRefused: 0 }

  // Calls inside the runs skip the document check of `s.call` (test/quotes and test/accounts make it).
  // The token is renewed whenever the clock moves (it would expire).
  let token = await accessToken(app)
  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, user: string, payload?: object, headers: Record<string, string> = {}) =>
    await app.inject({ method, url, payload, headers: { ...bearer(token), ...onBehalfOf(user), ...headers } })
  const newAccount = async (user: string, asset: string): Promise<string> => {
    const res = await api('POST', '/core/accounts', user, { label: `${asset} property`, asset })
    if (res.statusCode !== 201) throw new Error(`account: ${res.statusCode} ${res.body}`)
    return res.json().account.id as string
  }

  // Each history opens with a few deposits (so that most spends are covered), then anything.
  const historyArb = fc.tuple(fc.array(depositArb, { minLength: 2, maxLength: 5 }), fc.array(stepArb, { minLength: 4, maxLength: 24 })).map(([d, rest]) => [...d, ...rest])
  await fc.assert(fc.asyncProperty(historyArb, async steps => {
    // Fresh accounts each run: the model starts from zero, while the audit covers the whole ledger.
    const accounts = { a: {} as Record<Asset, string>, b: {} as Record<'GBP' | 'BTC', string> }
    for (const asset of ASSETS) accounts.a[asset] = await newAccount(s.userId, asset)
    for (const asset of ['GBP', 'BTC'] as const) accounts.b[asset] = await newAccount(b.id, asset)
    const model = new Map<string, { total: Decimal, available: Decimal }>()
    for (const id of [...Object.values(accounts.a), ...Object.values(accounts.b)]) model.set(id, { total: new Decimal(0), available: new Decimal(0) })
    const unsettled: Array<{ accountId: string, amount: string, at: number }> = []
    const pending: Pending[] = []
    const transactions: string[] = []
    const bal = (id: string): { total: Decimal, available: Decimal } => model.get(id)!

    const complete = (p: Pending): void => {
      bal(p.origin).total = bal(p.origin).total.minus(p.hold)
      if (p.destination !== null) {
        bal(p.destination).total = bal(p.destination).total.plus(p.credit)
        bal(p.destination).available = bal(p.destination).available.plus(p.credit)
      }
      pending.splice(pending.indexOf(p), 1)
    }
    const settleByClock = (): void => {
      const now = app.clock.now()
      for (const p of [...pending]) {
        if (p.status === 'processing' && p.settleAt !== null && p.settleAt <= now) { complete(p); seen.settledByClock++ }
      }
      for (const f of [...unsettled]) {
        if (f.at <= now) { bal(f.accountId).available = bal(f.accountId).available.plus(f.amount); unsettled.splice(unsettled.indexOf(f), 1); seen.achSettled++ }
      }
    }

    /** Quotes and commits; the model holds the origin amount when the commit is accepted. */
    const transfer = async (origin: string, destination: Record<string, unknown>, asset: Asset, value: string, destinationAccount: string | null): Promise<void> => {
      const quoted = await api('POST', '/core/transactions/quote', s.userId, { origin: { type: 'account', id: origin }, destination, denomination: { asset, amount: value } })
      if (quoted.statusCode === 409 && quoted.json().details?.rule === 'transacting-unsettled-funds') {
        // Refused at the quote: the available balance falls short, and would not with the unsettled funds.
        const funds = unsettled.filter(f => f.accountId === origin).reduce((a, f) => a.plus(f.amount), new Decimal(0))
        if (bal(origin).available.gte(value) || bal(origin).available.plus(funds).lt(value)) throw new Error(`unsettled funds refused a quote of ${value} at ${bal(origin).available.toFixed()} available, ${funds.toFixed()} unsettled`)
        seen.unsettledRefused++
        return
      }
      if (quoted.statusCode !== 201) throw new Error(`quote: ${quoted.statusCode} ${JSON.stringify(quoted.json())}`)
      const quote = quoted.json().quote
      const hold = quote.origin.amount as string
      const key = destinationAccount === null ? `${origin}|${BTC_ADDRESS}|${hold}` : null
      const duplicate = key !== null && pending.some(p => p.withdrawalKey === key)
      const enough = bal(origin).available.gte(hold)
      const committed = await api('POST', '/core/transactions', s.userId, { quoteId: quote.id }, CONTEXT)
      if (committed.statusCode === 201) {
        const transaction = committed.json().transaction
        if (!enough || duplicate) throw new Error(`accepted a transaction the model refuses (enough: ${String(enough)}, duplicate: ${String(duplicate)})`)
        const status = transaction.status as 'processing' | 'on-hold'
        pending.push({ id: transaction.id as string, status, settleAt: status === 'processing' ? app.clock.now() + settleMs : null, origin, hold, destination: destinationAccount, credit: quote.destination.amount, withdrawalKey: key })
        transactions.push(transaction.id as string)
        bal(origin).available = bal(origin).available.minus(hold)
        seen.created++
        if (status === 'on-hold') seen.held++
        return
      }
      const { code, message } = committed.json() as { code: string, message: string }
      const expected = duplicate ? 'operation_not_allowed' : 'insufficient_balance'
      if (committed.statusCode !== 409 || (enough && !duplicate)) throw new Error(`refused a transaction the model accepts: ${committed.statusCode} ${code} ${message}`)
      if (code !== expected) throw new Error(`refused with ${code}, expected ${expected}`)
      seen.refused++
    }

    for (const step of steps) {
      switch (step.kind) {
        case 'deposit': {
          const accountId = step.owner === 'a' ? accounts.a[step.asset] : accounts.b[step.asset === 'BTC' ? 'BTC' : 'GBP']
          const asset = step.owner === 'a' ? step.asset : step.asset === 'BTC' ? 'BTC' : 'GBP'
          const userId = step.owner === 'a' ? s.userId : b.id
          const crypto = asset === 'BTC' || asset === 'ETH'
          const ach = step.ach && asset === 'USD'
          const node = crypto ? { type: 'crypto-address', network: asset === 'BTC' ? 'bitcoin' : 'ethereum', address: 'sender' } : { type: 'bank-address', network: ach ? 'ach' : 'fps' }
          const done = await deposit(app, { organizationId: DEMO_ORG, userId, accountId, originNode: node, asset, amount: step.amount, unsettled: ach })
          transactions.push(done.id)
          bal(accountId).total = bal(accountId).total.plus(step.amount)
          if (ach) unsettled.push({ accountId, amount: step.amount, at: app.clock.now() + achMs })
          else bal(accountId).available = bal(accountId).available.plus(step.amount)
          seen.deposits++
          break
        }
        case 'trade':
          await transfer(accounts.a[step.from], { type: 'account', id: accounts.a[step.to] }, step.from, step.amount, accounts.a[step.to])
          break
        case 'withdraw':
          await transfer(accounts.a.BTC, { type: 'crypto-address', asset: 'BTC', network: 'bitcoin', address: BTC_ADDRESS }, 'BTC', step.amount, null)
          break
        case 'send':
          await transfer(accounts.a[step.from], { type: 'account', id: accounts.b[step.to] }, step.from, step.amount, accounts.b[step.to])
          break
        case 'advance': {
          const res = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: step.seconds } })
          if (res.statusCode !== 200) throw new Error(`clock: ${res.statusCode}`)
          settleByClock()
          token = await accessToken(app)
          break
        }
        default: {
          // Resume picks among the transactions on hold, hold among the processing ones, the others among all pending.
          const candidates = pending.filter(x => step.kind === 'resume' ? x.status === 'on-hold' : step.kind === 'hold' ? x.status === 'processing' : true)
          if (candidates.length === 0) break
          const p = candidates[step.pick % candidates.length]
          if (step.kind === 'resume') {
            // The user answers the pending request for information: the transaction resumes processing.
            const rfis = `/core/transactions/${p.id}/requests-for-information`
            const open = (await api('GET', rfis, s.userId)).json().requestsForInformation.filter((r: { status: string }) => r.status === 'pending')
            if (open.length === 0) throw new Error(`${p.id} is on hold without a pending request for information`)
            for (const rfi of open) {
              const answered = await api('PUT', `${rfis}/${rfi.id as string}`, s.userId, { data: { originatorEqualsBeneficiary: true } })
              if (answered.statusCode !== 200) throw new Error(`answer: ${answered.statusCode} ${answered.body}`)
            }
            const now = (await api('GET', `/core/transactions/${p.id}`, s.userId)).json().transaction.status
            if (now !== 'processing') throw new Error(`answered, ${p.id} is ${String(now)}`)
          } else {
            const status = { complete: 'completed', fail: 'failed', hold: 'on-hold' }[step.kind]
            const moved = await app.inject({ method: 'POST', url: `/_sandbox/transactions/${p.id}/status`, payload: { status } })
            if (moved.statusCode !== 200 || moved.json().transaction.status !== status) throw new Error(`control ${status}: ${moved.statusCode} ${moved.body}`)
          }
          if (step.kind === 'complete') { complete(p); seen.completed++ } else if (step.kind === 'fail') {
            bal(p.origin).available = bal(p.origin).available.plus(p.hold)
            pending.splice(pending.indexOf(p), 1)
            seen.failed++
          } else if (step.kind === 'hold') {
            p.status = 'on-hold'
            p.settleAt = null
            seen.held++
          } else {
            p.status = 'processing'
            p.settleAt = app.clock.now() + settleMs
            seen.resumed++
          }
        }
      }
      await audit(step)
    }

    /** The invariants, read back from the ledger and the API. */
    async function audit (step: Step): Promise<void> {
      const where = `after ${JSON.stringify(step)}`
      for (const id of transactions) {
        const sums = new Map<string, { total: Decimal, available: Decimal }>()
        for (const p of await ledger.transactionPostings(id)) {
          const sum = sums.get(p.asset) ?? { total: new Decimal(0), available: new Decimal(0) }
          sums.set(p.asset, { total: sum.total.plus(p.total), available: sum.available.plus(p.available) })
        }
        for (const [asset, sum] of sums) {
          if (!sum.total.isZero() || !sum.available.isZero()) throw new Error(`${where}: transaction ${id}'s postings in ${asset} sum to ${sum.total.toFixed()}/${sum.available.toFixed()}`)
        }
      }
      const whole = await ledger.organizationLedger(DEMO_ORG)
      const running = new Map<string, { total: Decimal, available: Decimal }>()
      for (const p of whole.postings) {
        const before = running.get(p.accountId) ?? { total: new Decimal(0), available: new Decimal(0) }
        const after = { total: before.total.plus(p.total), available: before.available.plus(p.available) }
        if (!after.total.eq(p.totalAfter) || !after.available.eq(p.availableAfter)) throw new Error(`${where}: a posting of ${p.accountId} records ${p.totalAfter}/${p.availableAfter}, its postings sum to ${after.total.toFixed()}/${after.available.toFixed()}`)
        running.set(p.accountId, after)
      }
      for (const row of whole.balances) {
        const sum = running.get(row.accountId) ?? { total: new Decimal(0), available: new Decimal(0) }
        if (!sum.total.eq(row.total) || !sum.available.eq(row.available)) throw new Error(`${where}: ${row.accountId} holds ${row.total}/${row.available}, its postings sum to ${sum.total.toFixed()}/${sum.available.toFixed()}`)
        if (row.userId === null) continue
        const total = new Decimal(row.total)
        const available = new Decimal(row.available)
        if (total.isNegative() || available.isNegative() || available.gt(total)) throw new Error(`${where}: user account ${row.accountId} at ${row.total}/${row.available}`)
      }
      if (running.size !== whole.balances.length) throw new Error(`${where}: postings on ${running.size} accounts, balances of ${whole.balances.length}`)
      for (const [user, ids] of [[s.userId, Object.values(accounts.a)], [b.id, Object.values(accounts.b)]] as const) {
        for (const id of ids) {
          const res = await api('GET', `/core/accounts/${id}`, user)
          const shown = res.json().account.balance as { total: string, available: string }
          const expected = bal(id)
          const stored = await ledger.balance(id)
          if (!expected.total.eq(shown.total) || !expected.available.eq(shown.available)) {
            throw new Error(`${where}: the API shows ${id} at ${shown.total}/${shown.available}, the model expects ${expected.total.toFixed()}/${expected.available.toFixed()}`)
          }
          if (shown.total !== stored.total || shown.available !== stored.available) throw new Error(`${where}: the API shows ${shown.total}/${shown.available}, the ledger ${stored.total}/${stored.available}`)
        }
      }
    }
  }), { numRuns: NUM_RUNS, seed: SEED })

  t.comment(JSON.stringify(seen))
  // The histories did reach every kind of step that moves funds.
  for (const key of ['deposits', 'created', 'refused', 'completed', 'failed', 'held', 'resumed', 'settledByClock', 'achSettled', 'unsettledRefused'] as const) t.ok(seen[key] > 0, `${key}: ${seen[key]}`)
})
