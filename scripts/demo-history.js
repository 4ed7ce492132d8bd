// A user with a year of history for a demo, made through a running sandbox's API and control API:
//
//   node scripts/demo-history.js [--url http://127.0.0.1:8080] [--weeks 52] [--service-name service]
//                                [--client-id sandbox-demo-client] [--client-secret sandbox-demo-secret] [--admin-token T]
//
// It moves the sandbox clock back `weeks` weeks (frozen), creates an individual user (GB) there,
// makes it ready (KYC forced ok, cooldowns skipped, vIBAN terms accepted), opens GBP, BTC and ETH
// accounts, then week after week: deposits GBP 1000 every fourth week (a simulated FPS bank
// deposit), buys BTC for GBP 100 and, every other week, ETH for GBP 50, sells BTC for GBP 200
// every eighth week, each trade settled by moving the clock past the settlement delay. Prices are
// the price model's curve, so the history is the same on every run from the same instant. Last,
// the clock goes back to where it was (and runs again if it was running). It prints the user id:
// act for the user with `X-On-Behalf-Of: user <id>` and read `/core/portfolio...` and
// `/core/statements/...`. The clock is the whole sandbox's: run it on a sandbox of its own.

const KYC_PROCESSES = [
  'profile', 'address', 'email', 'phone', 'identity', 'proof-of-address', 'customer-due-diligence', 'enhanced-due-diligence',
  'crypto-risk-assessment', 'self-categorization-statement', 'tax-details', 'screening', 'risk'
]
const WEEK = 7 * 24 * 3_600_000

/**
 * Builds the history. `request` sends one HTTP request to the sandbox and answers its status and
 * JSON body; `deposit` credits the user's GBP account (by default a simulated FPS bank deposit) and
 * `commit` commits a quote (by default `POST /core/transactions`).
 *
 * @param {object} options
 * @param {(method: string, path: string, init?: { body?: unknown, headers?: Record<string, string> }) => Promise<{ status: number, json: any }>} options.request
 * @param {(deposit: { userId: string, accountId: string, asset: string, amount: string, call: Function }) => Promise<void>} [options.deposit]
 * @param {(commit: { userId: string, quoteId: string, call: Function, context: Record<string, string> }) => Promise<void>} [options.commit]
 * @param {number} [options.weeks]
 * @param {string} [options.serviceName]
 * @param {string} [options.clientId]
 * @param {string} [options.clientSecret]
 * @param {string} [options.adminToken]
 * @param {(line: string) => void} [options.log]
 */
export async function demoHistory ({
  request, deposit = fpsDeposit, commit = commitQuote, weeks = 52, serviceName = 'service', clientId = 'sandbox-demo-client', clientSecret = 'sandbox-demo-secret',
  adminToken, log = () => {}
}) {
  const fail = (what, res) => { throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json)}`) }
  const control = async (method, path, body) => {
    const res = await request(method, `/_sandbox${path}`, { body, headers: adminToken === undefined ? {} : { authorization: `Bearer ${adminToken}` } })
    if (res.status >= 300) fail(`${method} /_sandbox${path}`, res)
    return res.json
  }
  let bearer
  const renewToken = async () => {
    const res = await request('POST', '/core/oauth2/token', {
      body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` }
    })
    if (res.status !== 200) fail('token', res)
    bearer = res.json.access_token
  }
  let userId
  const call = async (method, path, body, headers = {}) => {
    const res = await request(method, path, {
      body,
      headers: { authorization: `Bearer ${bearer}`, ...(userId === undefined ? {} : { 'x-on-behalf-of': `user ${userId}` }), ...headers }
    })
    if (res.status >= 300) fail(`${method} ${path}`, res)
    return res.json
  }
  const setClock = async (body) => { await control('POST', '/clock', body); await renewToken() }

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
    userId = user.user.id
    log(`user ${userId}, created at ${new Date(start).toISOString()}`)
    for (const process of KYC_PROCESSES) await control('POST', `/users/${userId}/kyc/${process}`, { status: 'ok' })
    await call('PUT', '/core/assets/test-helpers/skip-assets-cooldowns')
    await call('POST', '/core/terms-of-service/unique-account-number-viban/accept', undefined, { [`x-${serviceName}-user-ip`]: '47.174.97.164' })
    const accounts = {}
    for (const asset of ['GBP', 'BTC', 'ETH']) accounts[asset] = (await call('POST', '/core/accounts', { label: `My ${asset}`, asset })).account.id

    const context = { [`x-${serviceName}-user-ip`]: '47.174.97.164', [`x-${serviceName}-user-agent`]: 'demo-history' }
    let transactions = 0
    const trade = async (origin, destination, denomination) => {
      const { quote } = await call('POST', '/core/transactions/quote', {
        origin: { type: 'account', id: accounts[origin] }, destination: { type: 'account', id: accounts[destination] }, denomination
      })
      await commit({ userId, quoteId: quote.id, call, context })
      transactions++
    }
    // Settled once the GBP account holds nothing back (the trades' holds became debits).
    const settled = async () => {
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
        await deposit({ userId, accountId: accounts.GBP, asset: 'GBP', amount: '1000.00', call })
        transactions++
      }
      await trade('GBP', 'BTC', { asset: 'GBP', amount: '100' })
      if (week % 2 === 1) await trade('GBP', 'ETH', { asset: 'GBP', amount: '50' })
      if (week % 8 === 7) await trade('BTC', 'GBP', { asset: 'GBP', amount: '200', target: 'destination' })
      await setClock({ advanceSeconds: 60 })
      await settled()
    }
    log(`${transactions} transactions from ${new Date(start).toISOString()} to ${new Date(start + (weeks - 1) * WEEK).toISOString()}`)
    return { userId, accounts, from: new Date(start).toISOString(), transactions }
  } finally {
    await setClock({ now: before.now })
    if (!before.frozen) await setClock({ frozen: false })
  }
}

/** Commits a quote as a transaction (`core.create-transaction`). */
async function commitQuote ({ quoteId, call, context }) {
  await call('POST', '/core/transactions', { quoteId }, context)
}

/** A deposit: the account's FPS details, then a simulated bank deposit to them (`core.simulate-bank-deposit`). */
async function fpsDeposit ({ accountId, asset, amount, call }) {
  const { depositMethod } = await call('PUT', `/core/accounts/${accountId}/deposit-method?type=bank&asset=${asset}&network=fps`)
  const { sortCode, accountNumber, reference } = depositMethod.details
  await call('POST', '/core/accounts/test-helpers/bank-deposits', { network: 'fps', sortCode, accountNumber, reference, asset, amount })
}

function flags (argv) {
  const out = {}
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase())
    out[name] = argv[i + 1]
  }
  return out
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url = 'http://127.0.0.1:8080', weeks = '52', ...rest } = flags(process.argv.slice(2))
  const request = async (method, path, { body, headers = {} } = {}) => {
    const json = body !== undefined && typeof body !== 'string'
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...(json ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : json ? JSON.stringify(body) : body
    })
    const text = await res.text()
    return { status: res.status, json: text === '' ? undefined : JSON.parse(text) }
  }
  const result = await demoHistory({ request, weeks: Number(weeks), ...rest, log: line => { process.stderr.write(`${line}\n`) } })
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
}
