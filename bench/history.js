// node bench/history.js [--trades 3000] [--reads 7] [--days 2]   (--help: this text)
// What the portfolio's reads cost against the length of a user's history. Starts the built sandbox
// (dist/, `npm run build` first) on a new SQLite file, makes one trader through the API (KYC forced
// ok by the control API, GBP and BTC accounts, 50 000 GBP deposited), commits --trades trades of
// 2 GBP to BTC (a quote and its transaction each: a hold, then at completion the debit and the
// credit), lets them complete, moves the organization's clock --days days on, and times each read
// --reads times (the median of the wall time of an answer, on one connection):
// - the overview and one account (the running balances: no history read);
// - the historical balances over one day, one month and one year, the performance over one day
//   (each a balance at given instants: one index lookup per account and instant);
// - the performance over all time, which reads every posting that moved a total.
// The trades are all older than the one-day window, so the reads of that window find none; with
// --days 0 they are inside it. The database is removed at the end.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { benchArgs } from './args.js'
import { USER_IP, demoToken, freePort, json, makeTrader, tradeQuote } from './trader.js'

const { values: opts } = benchArgs(import.meta.url, {
  options: { trades: { type: 'string', default: '3000' }, reads: { type: 'string', default: '7' }, days: { type: 'string', default: '2' } }
}, { numbers: { trades: 0, reads: 1, days: 0 } })
const TRADES = Number(opts.trades)
const READS = Number(opts.reads)
const ROOT = fileURLToPath(new URL('..', import.meta.url))

const dir = mkdtempSync(join(tmpdir(), 'bench-history-'))
const port = await freePort()
const url = `http://127.0.0.1:${port}`
const env = { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'sandbox.db'), LOG_LEVEL: 'warn' }
const server = spawn(process.execPath, ['scripts/start.cjs'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] })
const stop = () => { server.kill(); rmSync(dir, { recursive: true, force: true }) }
process.on('exit', stop)
process.on('SIGINT', () => process.exit(130))

for (let tries = 0; ; tries++) {
  try { if ((await fetch(`${url}/_sandbox/health`)).ok) break } catch {}
  if (server.exitCode !== null || tries > 500) {
    process.stderr.write('bench/history.js: the sandbox did not start (its own message above)\n')
    process.exit(1)
  }
  await new Promise(resolve => setTimeout(resolve, 20))
}

const call = async (method, path, { headers = {}, body } = {}) => (await json(url + path, {
  method,
  headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  body: body === undefined ? undefined : JSON.stringify(body)
})).body

const first = await demoToken(url)
let auth = `Bearer ${first}`
const trader = await makeTrader(url, first, 'trader@example.com')
const { user, btc } = trader
const acting = () => ({ authorization: auth, 'x-on-behalf-of': `user ${user}` })

const started = Date.now()
for (let i = 0; i < TRADES; i++) {
  const quote = (await json(`${url}/core/transactions/quote`, { method: 'POST', headers: { ...acting(), 'content-type': 'application/json' }, body: tradeQuote(trader) })).body
  await call('POST', '/core/transactions', { headers: { ...acting(), ...USER_IP, 'x-service-user-agent': 'bench/history.js' }, body: { quoteId: quote.quote.id } })
}
process.stderr.write(`bench/history.js: ${TRADES} trades in ${Date.now() - started} ms\n`)
// Completed ten minutes on, then the clock moved the days asked for; a new token for its expiry.
await call('POST', '/_sandbox/clock', { body: { advanceSeconds: 600 } })
auth = `Bearer ${await demoToken(url)}`
// Completed when nothing is held: every GBP holding's total is available.
const held = async () => (await call('GET', '/core/portfolio?includeBase=true', { headers: acting() })).holdings.some(h => h.baseTotal !== h.baseAvailable)
for (let tries = 0; await held(); tries++) {
  if (tries > 300) throw new Error('bench/history.js: the trades did not complete')
  await new Promise(resolve => setTimeout(resolve, 100))
}
if (Number(opts.days) > 0) await call('POST', '/_sandbox/clock', { body: { advanceSeconds: Number(opts.days) * 86_400 } })
auth = `Bearer ${await demoToken(url)}`

const READS_TIMED = [
  ['overview', '/core/portfolio'],
  ['one account', `/core/accounts/${btc}`],
  ['historical balance, one day', '/core/portfolio/historical-balance?interval=one-day'],
  ['historical balance of BTC, one month', '/core/portfolio/assets/BTC/historical-balance?interval=one-month'],
  ['historical balance, one year', '/core/portfolio/historical-balance?interval=one-year'],
  ['performance, one day', '/core/portfolio/performance?interval=one-day'],
  ['performance of the BTC account, one day', `/core/portfolio/accounts/${btc}/performance`],
  ['performance, all time', '/core/portfolio/performance?interval=all-time']
]
const rows = []
for (const [name, path] of READS_TIMED) {
  const times = []
  for (let i = 0; i < READS; i++) {
    const at = performance.now()
    await call('GET', path, { headers: acting() })
    times.push(performance.now() - at)
  }
  times.sort((a, b) => a - b)
  rows.push([name, times[Math.floor(times.length / 2)].toFixed(1)])
}
const width = Math.max(...rows.map(([name]) => name.length))
console.log(`A user of ${TRADES} trades, the clock ${opts.days} days after them; the median of ${READS} reads, ms:`)
for (const [name, ms] of rows) console.log(`  ${name.padEnd(width)}  ${ms.padStart(7)}`)
process.exit(0)
