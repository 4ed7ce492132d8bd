// Shared setup of the quotes tests: a ready user with accounts, an ok card and an ACH account.
import type { Test } from 'tap'
import type { Config } from '../../src/config.js'
import { ready, setup, type Setup } from '../accounts/support.js'
import { ach, card } from '../external-accounts/support.js'

export interface QuoteSetup extends Setup {
  accounts: Record<string, string>
  cardId: string
  card3dsId: string
  achId: string
  quote: (body: Record<string, unknown>) => Promise<{ statusCode: number, json: () => any }>
}

export async function quoteSetup (t: Test, overrides: Partial<Config> = {}): Promise<QuoteSetup> {
  const s = await setup(t, { cardCheckDelaySeconds: 0, ...overrides })
  await ready(s)
  const accounts: Record<string, string> = {}
  for (const asset of ['GBP', 'USD', 'BTC', 'ETH', 'USDC', 'XRP', 'EUR']) {
    accounts[asset] = (await s.call('POST', '/core/accounts', { payload: { label: asset, asset } })).json().account.id
  }
  const made = async (payload: Record<string, unknown>): Promise<string> => {
    const res = await s.call('POST', '/core/external-accounts', { payload })
    if (res.statusCode !== 201) throw new Error(res.body)
    const id = res.json().externalAccount.id as string
    await s.app.inject({ method: 'POST', url: `/_sandbox/external-accounts/${id}/status`, payload: { status: 'ok' } })
    return id
  }
  const cardId = await made(card('4111111111111111'))
  const card3dsId = await made(card('4000000000003220'))
  const achId = await made(ach())
  const quote = async (body: Record<string, unknown>) => await s.call('POST', '/core/transactions/quote', { payload: body })
  return { ...s, accounts, cardId, card3dsId, achId, quote }
}
