// Shared setup of the portfolio tests: a user created at a fixed instant on a frozen sandbox clock,
// ready to trade, with accounts in GBP, BTC, ETH and USD, and the steps of a history: pin prices,
// move the clock, deposit (the deposit test helpers), trade (a quote, then a transaction) and
// settle (the clock moved past the settlement delay).
import type { Test } from 'tap'
import { Decimal } from '../../src/money/decimal.js'
import { deposit } from '../../src/transactions/service.js'
import { ready, setup, type Call, type Setup } from '../accounts/support.js'
import { DEMO_ORG, makeUser } from '../helpers.js'

export { Decimal }
export const ASSETS = ['GBP', 'BTC', 'ETH', 'USD'] as const
export const CONTEXT = { 'x-uphold-user-ip': '47.174.97.164', 'x-uphold-user-agent': 'portfolio-test' }

export interface HistoryApp extends Setup {
  /** Moves the frozen clock to an instant (ms). */
  at: (ms: number) => Promise<void>
  /** Moves the frozen clock by some seconds. */
  advance: (seconds: number) => Promise<void>
  /** Pins an asset's USD mid price from the clock's now on. */
  pin: (asset: string, mid: string) => Promise<void>
  /** A new user, created at the clock's now, ready to trade, with accounts in ASSETS. */
  newUser: () => Promise<UserHistory>
}

export interface UserHistory {
  user: string
  /** API calls as that user, checked against the app's own OpenAPI document. */
  as: Call
  accounts: Record<string, string>
  /** Credits an account of the user at once. */
  fund: (asset: string, amount: string) => Promise<void>
  /** Quotes `amount` of `from` into `to` between the user's accounts and commits it (`POST /core/transactions`); answers the transaction (processing). */
  trade: (from: string, to: string, amount: string) => Promise<{ id: string, origin: { amount: string }, destination: { amount: string } }>
}

export type History = HistoryApp & UserHistory

/** The app on a frozen clock at `start`; `checks` as setup's (test/api-setup.ts). */
export async function historyApp (t: Test, start: number, checks: 'assert' | 'throw' = 'assert'): Promise<HistoryApp> {
  const s = await setup(t, { cardCheckDelaySeconds: 0 }, { checks })
  const { app } = s
  const clock = async (payload: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload })
    if (res.statusCode !== 200) throw new Error(`clock: ${res.statusCode} ${res.body}`)
    await s.renewToken()
  }
  await clock({ frozen: true })
  await clock({ now: new Date(start).toISOString() })
  const pin = async (asset: string, mid: string) => {
    const res = await app.inject({ method: 'POST', url: '/_sandbox/rates', payload: { asset, mid } })
    if (res.statusCode !== 201) throw new Error(`pin: ${res.body}`)
  }
  const newUser = async (): Promise<UserHistory> => {
    const user = (await makeUser(app)).id
    const as: Call = async (method, url, options = {}) => await s.call(method, url, { user, ...options })
    await ready({ app, userId: user, call: as })
    const accounts: Record<string, string> = {}
    for (const asset of ASSETS) {
      const res = await as('POST', '/core/accounts', { payload: { label: asset, asset } })
      if (res.statusCode !== 201) throw new Error(res.body)
      accounts[asset] = res.json().account.id
    }
    // Through the deposit test helpers, to the account's own deposit details (its FPS reference; its Ethereum address); USD and BTC through the engine.
    const fund = async (asset: string, amount: string) => {
      const via = asset === 'GBP' ? { type: 'bank', network: 'fps' } : asset === 'ETH' ? { type: 'crypto', network: 'ethereum' } : undefined
      if (via === undefined) {
        await deposit(app, { organizationId: DEMO_ORG, userId: user, accountId: accounts[asset], originNode: { type: 'bank-address', network: 'fps' }, asset, amount })
        return
      }
      const method = await as('PUT', `/core/accounts/${accounts[asset]}/deposit-method?type=${via.type}&asset=${asset}&network=${via.network}`)
      if (method.statusCode !== 201 && method.statusCode !== 200) throw new Error(`deposit method: ${method.body}`)
      const details = method.json().depositMethod.details
      const res = via.type === 'bank'
        ? await as('POST', '/core/accounts/test-helpers/bank-deposits', { payload: { network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, reference: details.reference, asset, amount } })
        : await as('POST', '/core/accounts/test-helpers/crypto-deposits', { payload: { network: 'ethereum', address: details.address, asset, amount, remitter: { addresses: ['0x742d35Cc6634C0532925a3b844Bc454e4438f44e'] } } })
      if (res.statusCode !== 202) throw new Error(`deposit: ${res.statusCode} ${res.body}`)
    }
    const trade = async (from: string, to: string, amount: string) => {
      const q = await as('POST', '/core/transactions/quote', {
        payload: { origin: { type: 'account', id: accounts[from] }, destination: { type: 'account', id: accounts[to] }, denomination: { asset: from, amount } }
      })
      if (q.statusCode !== 201) throw new Error(`quote: ${q.body}`)
      const res = await as('POST', '/core/transactions', { payload: { quoteId: q.json().quote.id }, headers: CONTEXT })
      if (res.statusCode !== 201) throw new Error(`transaction: ${res.statusCode} ${res.body}`)
      return res.json().transaction as { id: string, origin: { amount: string }, destination: { amount: string } }
    }
    return { user, as, accounts, fund, trade }
  }
  return {
    ...s,
    at: async ms => { await clock({ now: new Date(ms).toISOString() }) },
    advance: async seconds => { await clock({ advanceSeconds: seconds }) },
    pin,
    newUser
  }
}

/** The app on a frozen clock at `start`, and a user created then. */
export async function history (t: Test, start: number): Promise<History> {
  const h = await historyApp(t, start)
  return { ...h, ...(await h.newUser()) }
}
