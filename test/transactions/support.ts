// Shared setup of the transactions tests: the quotes setup (a ready user with accounts, cards and
// an ACH account), committing quotes with the end user's headers, funding accounts through the
// ledger's deposit, and the sandbox clock.
import type { Test } from 'tap'
import type { Config } from '../../src/config.js'
import { quoteSetup, type QuoteSetup } from '../quotes/support.js'
import { deposit } from '../../src/transactions/service.js'
import { DEMO_ORG } from '../helpers.js'

/** The end user's context create-transaction requires. */
export const USER_CONTEXT = { 'x-uphold-user-ip': '47.174.97.164', 'x-uphold-user-agent': 'Mozilla/5.0 (sandbox tests)' }
export const BTC_ADDRESS = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'

export const acct = (id: string) => ({ type: 'account', id })
export const ext = (id: string, network?: string) => network === undefined ? { type: 'external-account', id } : { type: 'external-account', id, network }

type Response = Awaited<ReturnType<QuoteSetup['quote']>>

export interface TransactionSetup extends QuoteSetup {
  /** A quote's id, failing the test setup when the quote is refused. */
  quoteId: (body: Record<string, unknown>) => Promise<string>
  /** POST /core/transactions with the user-context headers (or `headers` instead). */
  commit: (body: Record<string, unknown>, headers?: Record<string, string>) => Promise<Response>
  /** Credits the account at once through the ledger (a completed deposit); `unsettled` as ACH funds. */
  fund: (accountId: string, asset: string, amount: string, unsettled?: boolean) => Promise<string>
  /** The account's balance as GET /core/accounts/{id} answers it. */
  balance: (accountId: string) => Promise<{ total: string, available: string }>
  /** Moves the sandbox clock on and lets settlement run. */
  advance: (seconds: number) => Promise<void>
}

export async function transactionSetup (t: Test, overrides: Partial<Config> = {}): Promise<TransactionSetup> {
  const s = await quoteSetup(t, overrides)
  const quoteId = async (body: Record<string, unknown>): Promise<string> => {
    const res = await s.quote(body)
    if (res.statusCode !== 201) throw new Error(`quote: ${res.statusCode} ${JSON.stringify(res.json())}`)
    return res.json().quote.id
  }
  const commit = async (body: Record<string, unknown>, headers: Record<string, string> = USER_CONTEXT) =>
    await s.call('POST', '/core/transactions', { payload: body, headers })
  const fund = async (accountId: string, asset: string, amount: string, unsettled = false): Promise<string> => {
    const made = await deposit(s.app, { organizationId: DEMO_ORG, userId: s.userId, accountId, originNode: { type: 'bank-address', network: unsettled ? 'ach' : 'wire' }, asset, amount, unsettled })
    return made.id
  }
  const balance = async (accountId: string) => {
    const res = await s.call('GET', `/core/accounts/${accountId}`)
    if (res.statusCode !== 200) throw new Error(`account: ${res.statusCode}`)
    return res.json().account.balance
  }
  const advance = async (seconds: number): Promise<void> => {
    const res = await s.app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: seconds } })
    if (res.statusCode !== 200) throw new Error(`clock: ${res.statusCode} ${res.body}`)
  }
  return { ...s, quoteId, commit, fund, balance, advance }
}
