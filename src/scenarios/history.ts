// A user with a year of history for a demo, made through the sandbox's own API and control API
// (the clock, KYC, cooldowns, accounts, deposits, quotes and transactions), so every record and
// event is what an integrator's calls would make. One implementation for two callers: the control
// `POST /_sandbox/scenarios/history` (requests through `app.inject`) and `npm run demo:history`
// (scripts/demo-history.js, requests over HTTP to a running sandbox).
//
// It moves the sandbox clock back `weeks` weeks (frozen), creates an individual user (GB) there,
// makes it ready (every KYC process forced ok in one call, cooldowns skipped, vIBAN terms
// accepted), opens GBP, BTC and ETH accounts, then week after week: deposits GBP 1000 every fourth
// week (a simulated FPS bank deposit), buys BTC for GBP 100 and, every other week, ETH for GBP 50,
// sells BTC for GBP 200 every eighth week, each trade settled by moving the clock past the
// settlement delay. Prices are the price model's curve, so the history is the same on every run
// from the same instant. Last, the clock goes back to where it was (and runs again if it was
// running). The clock is the whole sandbox's: run it on a sandbox of its own.

/** Sends one request to the sandbox and answers its status and JSON body. */
export type DemoRequest = (method: string, path: string, init?: { body?: unknown, headers?: Record<string, string> }) => Promise<{ status: number, json: any }>
export type DemoCall = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<any>

export interface DemoHistoryOptions {
  request: DemoRequest
  /** Credits the user's GBP account: by default a simulated FPS bank deposit. */
  deposit?: (deposit: { userId: string, accountId: string, asset: string, amount: string, call: DemoCall }) => Promise<void>
  /** Commits a quote: by default `POST /core/transactions`. */
  commit?: (commit: { userId: string, quoteId: string, call: DemoCall, context: Record<string, string> }) => Promise<void>
  weeks?: number
  serviceName?: string
  clientId?: string
  clientSecret?: string
  adminToken?: string
  log?: (line: string) => void
}

export interface DemoHistory { userId: string, accounts: Record<string, string>, from: string, transactions: number }

const WEEK = 7 * 24 * 3_600_000

/** Builds the history; answers the user, its accounts by asset, when it starts and how many transactions it holds. */
export async function demoHistory ({
  request, deposit = fpsDeposit, commit = commitQuote, weeks = 52, serviceName = 'service', clientId = 'sandbox-demo-client', clientSecret = 'sandbox-demo-secret',
  adminToken, log = () => {}
}: DemoHistoryOptions): Promise<DemoHistory> {
  const fail = (what: string, res: { status: number, json: unknown }): never => { throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json)}`) }
  const control = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await request(method, `/_sandbox${path}`, { body, headers: adminToken === undefined ? {} : { authorization: `Bearer ${adminToken}` } })
    if (res.status >= 300) fail(`${method} /_sandbox${path}`, res)
    return res.json
  }
  let bearer = ''
  const renewToken = async (): Promise<void> => {
    const res = await request('POST', '/core/oauth2/token', {
      body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` }
    })
    if (res.status !== 200) fail('token', res)
    bearer = res.json.access_token
  }
  let userId: string | undefined
  const call: DemoCall = async (method, path, body, headers = {}) => {
    const res = await request(method, path, {
      body,
      headers: { authorization: `Bearer ${bearer}`, ...(userId === undefined ? {} : { 'x-on-behalf-of': `user ${userId}` }), ...headers }
    })
    if (res.status >= 300) fail(`${method} ${path}`, res)
    return res.json
  }
  const setClock = async (body: Record<string, unknown>): Promise<void> => { await control('POST', '/clock', body); await renewToken() }

  const before = await control('GET', '/clock')
  const end = Date.parse(before.now)
  const start = end - weeks * WEEK
  await setClock({ frozen: true })
  await setClock({ now: new Date(start).toISOString() })
  try {
    const user = await call('POST', '/core/users', {
      email: `demo-${start}-${Math.random().toString(36).slice(2, 8)}@example.com`,
      termsOfService: 'general-gb-fca',
      primaryCitizenship: 'GB',
      address: { country: 'GB', subdivision: 'GB-MAN' }
    }, { [`x-${serviceName}-user-ip`]: '47.174.97.164' })
    const id: string = user.user.id
    userId = id
    log(`user ${id}, created at ${new Date(start).toISOString()}`)
    await control('POST', `/users/${id}/kyc`, { status: 'ok' })
    await call('PUT', '/core/assets/test-helpers/skip-assets-cooldowns')
    await call('POST', '/core/terms-of-service/unique-account-number-viban/accept', undefined, { [`x-${serviceName}-user-ip`]: '47.174.97.164' })
    const accounts: Record<string, string> = {}
    for (const asset of ['GBP', 'BTC', 'ETH']) accounts[asset] = (await call('POST', '/core/accounts', { label: `My ${asset}`, asset })).account.id

    const context = { [`x-${serviceName}-user-ip`]: '47.174.97.164', [`x-${serviceName}-user-agent`]: 'demo-history' }
    let transactions = 0
    const trade = async (origin: string, destination: string, denomination: Record<string, string>): Promise<void> => {
      const { quote } = await call('POST', '/core/transactions/quote', {
        origin: { type: 'account', id: accounts[origin] }, destination: { type: 'account', id: accounts[destination] }, denomination
      })
      await commit({ userId: id, quoteId: quote.id, call, context })
      transactions++
    }
    // Settled once the GBP account holds nothing back (the trades' holds became debits).
    const settled = async (): Promise<void> => {
      for (let i = 0; i < 200; i++) {
        const { account } = await call('GET', `/core/accounts/${accounts.GBP}`)
        const btc = (await call('GET', `/core/accounts/${accounts.BTC}`)).account
        if (account.balance.total === account.balance.available && btc.balance.total === btc.balance.available) return
        await new Promise(resolve => setTimeout(resolve, 10))
      }
      throw new Error('the trades did not settle')
    }
    for (let week = 0; week < weeks; week++) {
      await setClock({ now: new Date(start + week * WEEK + 3_600_000).toISOString() })
      if (week % 4 === 0) {
        await deposit({ userId: id, accountId: accounts.GBP, asset: 'GBP', amount: '1000.00', call })
        transactions++
      }
      await trade('GBP', 'BTC', { asset: 'GBP', amount: '100' })
      if (week % 2 === 1) await trade('GBP', 'ETH', { asset: 'GBP', amount: '50' })
      if (week % 8 === 7) await trade('BTC', 'GBP', { asset: 'GBP', amount: '200', target: 'destination' })
      await setClock({ advanceSeconds: 60 })
      await settled()
    }
    log(`${transactions} transactions from ${new Date(start).toISOString()} to ${new Date(start + (weeks - 1) * WEEK).toISOString()}`)
    return { userId: id, accounts, from: new Date(start).toISOString(), transactions }
  } finally {
    await setClock({ now: before.now })
    if (!before.frozen) await setClock({ frozen: false })
  }
}

/** Commits a quote as a transaction (`core.create-transaction`). */
async function commitQuote ({ quoteId, call, context }: { quoteId: string, call: DemoCall, context: Record<string, string> }): Promise<void> {
  await call('POST', '/core/transactions', { quoteId }, context)
}

/** A deposit: the account's FPS details, then a simulated bank deposit to them (`core.simulate-bank-deposit`). */
async function fpsDeposit ({ accountId, asset, amount, call }: { accountId: string, asset: string, amount: string, call: DemoCall }): Promise<void> {
  const { depositMethod } = await call('PUT', `/core/accounts/${accountId}/deposit-method?type=bank&asset=${asset}&network=fps`)
  const { sortCode, accountNumber, reference } = depositMethod.details
  await call('POST', '/core/accounts/test-helpers/bank-deposits', { network: 'fps', sortCode, accountNumber, reference, asset, amount })
}
