// What the bench scripts share to drive a running sandbox through its API: a free port, a JSON call
// that throws on a 4xx or 5xx, the demo client's token, and a funded trader (bench/run.js's quote
// and transaction scenario, bench/history.js's long history).
import { createServer } from 'node:net'

export const DEMO_BASIC = 'Basic ' + Buffer.from('sandbox-demo-client:sandbox-demo-secret').toString('base64')
/** The end user's IP header the user-facing writes need. */
export const USER_IP = { 'x-service-user-ip': '47.174.97.164' }
/** What one trade moves: GBP from the trader's GBP account to their BTC account. */
export const TRADE_GBP = '2'
const DEPOSITS = 5
const DEPOSIT_GBP = '10000'

export const freePort = () => new Promise((resolve, reject) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)) }).on('error', reject)
})

/** A call whose answer is JSON (or empty); a status of 400 or more throws, with the answer. */
export async function json (url, init) {
  const res = await fetch(url, init)
  const text = await res.text()
  if (res.status >= 400) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${text}`)
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }
}

/** A client-credentials token of the demo client. */
export async function demoToken (url) {
  return (await json(`${url}/core/oauth2/token`, {
    method: 'POST', headers: { authorization: DEMO_BASIC, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials'
  })).body.access_token
}

/**
 * A trader made through the API: a user with every KYC process forced ok (the control API), the
 * cooldown skipped and the vIBAN terms accepted, a GBP and a BTC account, and 50 000 GBP credited
 * by simulated FPS deposits to the GBP account's deposit details: room for 25 000 trades of 2 GBP.
 */
export async function makeTrader (url, token, email) {
  const user = (await json(`${url}/core/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...USER_IP },
    body: JSON.stringify({ email, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } })
  })).body.user.id
  const acting = { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${user}` }
  const headers = { ...acting, 'content-type': 'application/json' }
  await json(`${url}/_sandbox/users/${user}/kyc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'ok' }) })
  await json(`${url}/core/assets/test-helpers/skip-assets-cooldowns`, { method: 'PUT', headers: acting })
  await json(`${url}/core/terms-of-service/unique-account-number-viban/accept`, { method: 'POST', headers: { ...acting, ...USER_IP } })
  const account = async (asset) => (await json(`${url}/core/accounts`, { method: 'POST', headers, body: JSON.stringify({ label: asset, asset }) })).body.account.id
  const gbp = await account('GBP')
  const btc = await account('BTC')
  const details = (await json(`${url}/core/accounts/${gbp}/deposit-method?type=bank&asset=GBP&network=fps`, { method: 'PUT', headers: acting })).body.depositMethod.details
  for (let d = 0; d < DEPOSITS; d++) {
    await json(`${url}/core/accounts/test-helpers/bank-deposits`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, ...(details.reference === undefined ? {} : { reference: details.reference }), asset: 'GBP', amount: DEPOSIT_GBP })
    })
  }
  return { user, gbp, btc }
}

/** A quote's body: one trade of the trader's. */
export const tradeQuote = (trader) => JSON.stringify({ origin: { type: 'account', id: trader.gbp }, destination: { type: 'account', id: trader.btc }, denomination: { asset: 'GBP', amount: TRADE_GBP } })
