// npm run bench [-- --duration 10 --warmup 2 --connections 50 --runs 3]
// Starts the sandbox (compiled, file database, 1 000 users with metadata) and a bare Fastify
// baseline on this machine, measures each scenario with autocannon after a warm-up, and prints one
// table with requests/s, p50, p99, errors and the ratio to the baseline measured right before each
// scenario (medians over the runs).
// Other flags: --only get,put (scenario keys: get, 304, put, patch, token, catalogue, mixed, transactions), --users 1000, --log-level info,
// --cpu-prof (profile the sandbox and print its self time per function and file),
// --cpu-prof-dir DIR (the same, and keep the profiles in DIR: run-1.cpuprofile, ...; open one in
// Chrome's DevTools, or in bench/cpuprofile.js with the --from/--to printed for each scenario),
// --node-options=--max-semi-space-size=8 (NODE_OPTIONS added to the start script's command line; the
// `=` is needed, as the value starts with a dash).
import { spawn, fork } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { summarize } from './cpuprofile.js'

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    runs: { type: 'string', default: '3' },
    users: { type: 'string', default: '1000' },
    only: { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    'cpu-prof': { type: 'boolean', default: false },
    'cpu-prof-dir': { type: 'string' },
    'node-options': { type: 'string', default: '' }
  }
})
const DURATION = Number(opts.duration)
const WARMUP = Number(opts.warmup)
const CONNECTIONS = Number(opts.connections)
const RUNS = Number(opts.runs)
const USERS = Number(opts.users)
const KEEP_PROFILES = opts['cpu-prof-dir']
const PROFILING = opts['cpu-prof'] || KEEP_PROFILES !== undefined
// Users whose metadata no write touches: the 304 requests keep matching their ETags.
const HOT = Math.min(200, Math.floor(USERS / 2))
// The sandbox starts with `npm start`; a profiled run starts the start script's command itself.
const START_ARGS = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start.split(' ').slice(1)
const START_FILE = START_ARGS.at(-1)
const ID = 'sandbox-demo-client'
const SECRET = 'sandbox-demo-secret'
const BASIC = 'Basic ' + Buffer.from(`${ID}:${SECRET}`).toString('base64')

const freePort = () => new Promise((resolve, reject) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)) }).on('error', reject)
})

// The high-water mark of the resident set: the peak since the process started.
const peakRssMb = (pid) => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find(l => l.startsWith('VmHWM:'))
    return Number(line.replace(/\D+/g, '')) / 1024
  } catch { return NaN }
}

// CPU time (user + system) of a process, in ms: per request, it compares servers far more steadily
// than requests/s when the machine is shared.
const cpuMs = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch { return NaN }
}

/** The pid of the server `npm start` runs: npm starts a shell, which starts node with scripts/start.js. */
function serverPid (pid) {
  for (let depth = 0; depth < 4; depth++) {
    let children
    try { children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean) } catch { return undefined }
    for (const child of children) {
      try {
        // The node process itself, not the shell whose command line names the same file.
        const args = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0')
        if (/(^|\/)node$/.test(args[0]) && args.includes(START_FILE)) return Number(child)
      } catch {}
    }
    if (children.length === 0) return undefined
    pid = children[0]
  }
  return undefined
}

async function startSandbox (dir, profiles) {
  const port = await freePort()
  const started = process.hrtime.bigint()
  // A clean environment: nothing of the caller's (a rate limit, an admin token) changes the numbers.
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'bench.db'), LOG_LEVEL: opts['log-level'], NODE_OPTIONS: opts['node-options'] }
  // `npm start`, as a developer or CI starts it: the start-up figure includes npm's own start. When
  // profiling, node is run with the start script's arguments directly, so that the profile is the
  // server's and not npm's. Its own process group, so that stopping it stops npm's children too.
  const child = PROFILING
    ? spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profiles, ...START_ARGS], { env, stdio: ['ignore', 'ignore', 'inherit'], detached: true })
    // The log (one JSON line per request at info) goes to /dev/null: written, not kept.
    : spawn('npm', ['start', '--silent'], { env, stdio: ['ignore', 'ignore', 'inherit'], detached: true })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    try {
      const res = await fetch(`${url}/_sandbox/health`)
      if (res.status === 200) break
    } catch {}
    if (child.exitCode !== null) throw new Error('the sandbox exited during start-up')
    await new Promise(resolve => setTimeout(resolve, 2))
  }
  const startupMs = Number(process.hrtime.bigint() - started) / 1e6
  const pid = PROFILING ? child.pid : serverPid(child.pid)
  if (pid === undefined) throw new Error('the server process of `npm start` was not found')
  return { child, pid, url, startupMs, sinceStart: () => Number(process.hrtime.bigint() - started) / 1e6 }
}

async function startBaseline () {
  const port = await freePort()
  const child = fork(new URL('./baseline.js', import.meta.url), [String(port)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  await new Promise(resolve => child.once('message', resolve))
  return { child, url: `http://127.0.0.1:${port}` }
}

async function stop (child, group = false) {
  if (child.exitCode !== null) return
  const exited = new Promise(resolve => child.once('exit', resolve))
  if (group) process.kill(-child.pid, 'SIGTERM')
  else child.kill('SIGTERM')
  await exited
}

async function json (url, init) {
  const res = await fetch(url, init)
  const text = await res.text()
  if (res.status >= 400) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${text}`)
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }
}

/** 1 000 users with metadata, created through the API as an integrator would; ETags of the hot ones. */
async function seed (url) {
  const token = (await json(`${url}/core/oauth2/token`, {
    method: 'POST', headers: { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials'
  })).body.access_token
  const users = []
  for (let i = 0; i < USERS; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, USERS - i) }, (_, k) => json(`${url}/core/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-service-user-ip': '47.174.97.164' },
      body: JSON.stringify({
        email: `bench-${i + k}@example.com`,
        termsOfService: 'general-gb-fca',
        primaryCitizenship: 'GB',
        address: { country: 'GB' },
        metadata: { externalId: `ext-${i + k}`, tier: 'gold', tags: ['a', 'b'], nested: { region: 'eu', score: i + k } }
      })
    })))
    users.push(...batch.map(r => r.body.user.id))
  }
  const etags = new Map()
  for (const id of users.slice(0, HOT)) {
    const res = await json(`${url}/core/users/me/metadata`, { headers: { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${id}` } })
    etags.set(id, res.headers.get('etag'))
  }
  return { token, users, etags }
}

// The KYC processes a user needs for quotes and transactions, screening and risk last.
const KYC_PROCESSES = ['profile', 'address', 'email', 'phone', 'identity', 'proof-of-address', 'customer-due-diligence', 'enhanced-due-diligence',
  'crypto-risk-assessment', 'self-categorization-statement', 'tax-details', 'screening', 'risk']
const TRADERS = 10
const TRADE_GBP = '2'
const DEPOSITS = 5
const DEPOSIT_GBP = '10000'

/**
 * Traders for the transactions scenario, made through the API: users with their KYC forced ok (the
 * control API), the cooldown skipped and the vIBAN terms accepted, a GBP and a BTC account each, and
 * 50 000 GBP credited by simulated FPS deposits to the GBP account's deposit details: room for
 * 25 000 trades of 2 GBP per trader.
 */
async function seedTraders (url, token) {
  const traders = []
  for (let i = 0; i < TRADERS; i++) {
    const user = (await json(`${url}/core/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-service-user-ip': '47.174.97.164' },
      body: JSON.stringify({ email: `trader-${i}@example.com`, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } })
    })).body.user.id
    const headers = { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${user}`, 'content-type': 'application/json' }
    for (const process of KYC_PROCESSES) {
      await json(`${url}/_sandbox/users/${user}/kyc/${process}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'ok' }) })
    }
    await json(`${url}/core/assets/test-helpers/skip-assets-cooldowns`, { method: 'PUT', headers: { authorization: headers.authorization, 'x-on-behalf-of': headers['x-on-behalf-of'] } })
    await json(`${url}/core/terms-of-service/unique-account-number-viban/accept`, {
      method: 'POST', headers: { authorization: headers.authorization, 'x-on-behalf-of': headers['x-on-behalf-of'], 'x-service-user-ip': '47.174.97.164' }
    })
    const account = async (asset) => (await json(`${url}/core/accounts`, { method: 'POST', headers, body: JSON.stringify({ label: asset, asset }) })).body.account.id
    const gbp = await account('GBP')
    const btc = await account('BTC')
    const details = (await json(`${url}/core/accounts/${gbp}/deposit-method?type=bank&asset=GBP&network=fps`, { method: 'PUT', headers: { authorization: headers.authorization, 'x-on-behalf-of': headers['x-on-behalf-of'] } })).body.depositMethod.details
    for (let d = 0; d < DEPOSITS; d++) {
      await json(`${url}/core/accounts/test-helpers/bank-deposits`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ network: 'fps', sortCode: details.sortCode, accountNumber: details.accountNumber, ...(details.reference === undefined ? {} : { reference: details.reference }), asset: 'GBP', amount: DEPOSIT_GBP })
      })
    }
    traders.push({ user, gbp, btc })
  }
  return traders
}

/**
 * One iteration: a quote of 2 GBP from a trader's GBP account to their BTC account, then the
 * transaction that commits it (its id from the quote's answer). Traders in turn; a refused quote
 * starts the iteration again.
 */
function tradeRequests (token, traders) {
  const nextTrader = cycle(traders)
  const auth = `Bearer ${token}`
  return [
    {
      method: 'POST',
      path: '/core/transactions/quote',
      setupRequest: (req, context) => {
        const trader = nextTrader()
        context.trader = trader
        return {
          ...req,
          headers: { authorization: auth, 'content-type': 'application/json', 'x-on-behalf-of': `user ${trader.user}` },
          body: JSON.stringify({ origin: { type: 'account', id: trader.gbp }, destination: { type: 'account', id: trader.btc }, denomination: { asset: 'GBP', amount: TRADE_GBP } })
        }
      },
      onResponse: (status, body, context) => { context.quoteId = status === 201 ? JSON.parse(body).quote.id : undefined }
    },
    {
      method: 'POST',
      path: '/core/transactions',
      setupRequest: (req, context) => context.quoteId === undefined
        ? undefined
        : {
            ...req,
            headers: {
              authorization: auth,
              'content-type': 'application/json',
              'x-on-behalf-of': `user ${context.trader.user}`,
              'x-service-user-ip': '47.174.97.164',
              'x-service-user-agent': 'bench/run.js'
            },
            body: JSON.stringify({ quoteId: context.quoteId })
          }
    }
  ]
}

function measure (url, { requests, setupClient }, duration) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration, requests, setupClient }, (err, result) => err ? reject(err) : resolve(result))
  })
}

/** Warm-up, then the measured period. Errors: failed or timed-out requests, and any status not expected. */
async function scenario (url, pid, s, window = {}) {
  await measure(url, s, WARMUP)
  window.from = window.clock?.()
  const cpu = cpuMs(pid)
  const r = await measure(url, s, DURATION)
  const cpuPerRequest = (cpuMs(pid) - cpu) * 1000 / r.requests.total
  window.to = window.clock?.()
  const unexpected = Object.entries(r.statusCodeStats).reduce((n, [status, { count }]) => s.expect.includes(Number(status)) ? n : n + count, 0)
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + unexpected, cpu: cpuPerRequest, statuses: r.statusCodeStats }
}

function cycle (list) {
  let i = 0
  return () => list[i++ % list.length]
}

/**
 * A fixed sequence of requests that each connection sends in turn, from its own starting point, so
 * the connections are spread over the sequence rather than in step. A request without
 * `setupRequest` is built once (autocannon keeps its bytes), so the load generator spends its CPU
 * on sending and reading, not on building each request again: on two cores, it shares the machine
 * with the server it measures.
 */
function sequence (list) {
  let connection = 0
  const step = Math.max(1, Math.floor(list.length / CONNECTIONS))
  return {
    requests: [list[0]],
    setupClient: (client) => {
      const from = (connection++ * step) % list.length
      client.setRequests([...list.slice(from), ...list.slice(0, from)])
    }
  }
}

/** The metadata GET of each user as a client sends it: the baseline answers the very same requests. */
function getRequests (token, users) {
  return users.map(id => ({ method: 'GET', path: '/core/users/me/metadata', headers: { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${id}` } }))
}

function scenarios (state) {
  const { token, users, etags, traders } = state
  const auth = `Bearer ${token}`
  const hot = [...etags.keys()]
  const written = users.slice(HOT)
  const gets = getRequests(token, users)
  const notModified = hot.map(id => ({ method: 'GET', path: '/core/users/me/metadata', headers: { authorization: auth, 'x-on-behalf-of': `user ${id}`, 'if-none-match': etags.get(id) } }))
  let n = 0
  const nextWritten = cycle(written)
  const put = {
    method: 'PUT',
    path: '/core/users/me/metadata',
    setupRequest: (req) => ({
      ...req,
      headers: { authorization: auth, 'content-type': 'application/json', 'x-on-behalf-of': `user ${nextWritten()}` },
      body: JSON.stringify({ externalId: `ext-${n++}`, tier: 'silver', tags: ['c'], nested: { region: 'us', score: n } })
    })
  }
  const patch = {
    method: 'PATCH',
    path: '/core/users/me/metadata',
    setupRequest: (req) => ({
      ...req,
      headers: { authorization: auth, 'content-type': 'application/json-patch+json', 'x-on-behalf-of': `user ${nextWritten()}` },
      body: JSON.stringify([{ op: 'replace', path: '/tier', value: `t${n++}` }, { op: 'add', path: '/seen', value: true }])
    })
  }
  const token_ = {
    method: 'POST',
    path: '/core/oauth2/token',
    headers: { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=core.users.metadata%3Aread'
  }
  // The catalogue read: the assets ordered by price, and every asset's price in USD (the rates of
  // USD in each), both computed by the price model on each request.
  const catalogue = [
    { method: 'GET', path: '/core/assets?sort=price:desc', headers: { authorization: auth } },
    { method: 'GET', path: '/core/assets/USD/rates', headers: { authorization: auth } }
  ]
  return [
    { key: 'get', name: 'GET metadata (X-On-Behalf-Of)', ...sequence(gets), expect: [200], target: { ratio: 0.5, p99: 10 } },
    { key: '304', name: 'GET 304 (If-None-Match)', ...sequence(notModified), expect: [304], target: { ratio: 0.6 } },
    // Writes change their bodies on every request, so autocannon builds each one.
    { key: 'put', name: 'PUT metadata', requests: [put], expect: [200], target: { ratio: 0.3 } },
    { key: 'patch', name: 'PATCH metadata (2 ops)', requests: [patch], expect: [200], target: { ratio: 0.3 } },
    { key: 'token', name: 'Token (client credentials)', requests: [token_], expect: [200], target: { ratio: 0.3 } },
    { key: 'catalogue', name: 'Catalogue read: list assets with rates', ...sequence(Array.from({ length: 50 }, () => catalogue).flat()), expect: [200], target: { ratio: 0.3 } },
    // A quote and the transaction that commits it: 2 requests per iteration, each a write (the
    // quote is stored; the transaction consumes it, holds the funds and records its events).
    ...(traders === undefined ? [] : [{ key: 'transactions', name: 'Quote + transaction (2 requests each)', requests: tradeRequests(token, traders), expect: [201], perIteration: 2 }]),
    // 4 reads, 2 conditional reads, 1 PUT, 1 PATCH, 1 token per 9 requests.
    {
      key: 'mixed',
      name: 'Mixed workload',
      ...sequence(Array.from({ length: hot.length / 2 }, (_, i) => [...gets.slice(4 * i, 4 * i + 4), notModified[2 * i], notModified[2 * i + 1], put, patch, token_]).flat()),
      expect: [200, 304]
    }
  ]
}

const only = opts.only === undefined ? undefined : new Set(opts.only.split(','))
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2 }
const fmt = (x, d = 1) => Number.isFinite(x) ? x.toFixed(d) : 'n/a'
const BASELINE = 'Baseline: bare Fastify GET'

const dir = mkdtempSync(join(tmpdir(), 'sandbox-bench-'))
const startups = []
const results = new Map()
// Scenario name -> its target (BENCHMARKS.md, "Against the targets").
const targets = new Map()
// Scenario name -> requests per iteration, for those whose iteration is more than one request.
const perIteration = new Map()
const push = (name, r) => { if (!results.has(name)) results.set(name, []); results.get(name).push(r) }
let peak = 0
const began = Date.now()
try {
  for (let run = 1; run <= RUNS; run++) {
    process.stderr.write(`run ${run}/${RUNS}: starting\n`)
    rmSync(join(dir, 'bench.db'), { force: true })
    rmSync(join(dir, 'bench.db-wal'), { force: true })
    rmSync(join(dir, 'bench.db-shm'), { force: true })
    const profiles = join(dir, `profiles-${run}`)
    const sandbox = await startSandbox(dir, profiles)
    startups.push(sandbox.startupMs)
    const windows = []
    const baseline = await startBaseline()
    try {
      const seeded = Date.now()
      const state = await seed(sandbox.url)
      if (only === undefined || only.has('transactions')) state.traders = await seedTraders(sandbox.url, state.token)
      process.stderr.write(`run ${run}/${RUNS}: started in ${sandbox.startupMs.toFixed(0)} ms, seeded ${USERS} users${state.traders === undefined ? '' : ` and ${TRADERS} funded traders`} in ${Date.now() - seeded} ms, peak RSS so far ${peakRssMb(sandbox.pid).toFixed(0)} MB\n`)
      const bare = { ...sequence(getRequests(state.token, state.users)), expect: [200] }
      for (const s of scenarios(state)) {
        if (only !== undefined && !only.has(s.key)) continue
        // The baseline runs right before each scenario: the machine's speed drifts (a shared
        // machine's did by 2x within minutes), so a ratio compares two measurements taken together.
        const base = await scenario(baseline.url, baseline.child.pid, bare)
        push(BASELINE, { ...base, ratio: 1 })
        process.stderr.write(`run ${run}/${RUNS}: ${s.name} (baseline ${base.rps.toFixed(0)} req/s, ${base.cpu.toFixed(0)} µs CPU per request)\n`)
        const window = { name: s.name, clock: sandbox.sinceStart }
        windows.push(window)
        const r = await scenario(sandbox.url, sandbox.pid, s, window)
        if (r.errors > 0) process.stderr.write(`  errors: ${r.errors}, statuses ${JSON.stringify(r.statuses)}\n`)
        process.stderr.write(`  ${r.rps.toFixed(0)} req/s (x${(r.rps / base.rps).toFixed(2)}), ${r.cpu.toFixed(0)} µs CPU per request, peak RSS so far ${peakRssMb(sandbox.pid).toFixed(0)} MB\n`)
        if (s.perIteration !== undefined) process.stderr.write(`  ${(r.rps / s.perIteration).toFixed(0)} iterations/s\n`)
        push(s.name, { ...r, ratio: r.rps / base.rps })
        if (s.perIteration !== undefined) perIteration.set(s.name, s.perIteration)
        if (s.target !== undefined) targets.set(s.name, s.target)
      }
      peak = Math.max(peak, peakRssMb(sandbox.pid))
    } finally {
      await stop(baseline.child)
      await stop(sandbox.child, true)
    }
    if (PROFILING) {
      // The profile starts a little after the spawn: the windows lose a little at each end.
      const file = join(profiles, readdirSync(profiles)[0])
      const profile = JSON.parse(readFileSync(file, 'utf8'))
      if (KEEP_PROFILES !== undefined) {
        mkdirSync(KEEP_PROFILES, { recursive: true })
        copyFileSync(file, join(KEEP_PROFILES, `run-${run}.cpuprofile`))
      }
      for (const w of windows) {
        const from = Math.round(w.from + 100)
        const to = Math.round(w.to - 100)
        console.log(`\n=== run ${run}: ${w.name} (--from ${from} --to ${to})\n` + summarize(profile, { from, to }))
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

const rows = [['Scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'x baseline', 'CPU µs/req']]
for (const [name, rs] of results) {
  const rps = median(rs.map(r => r.rps))
  rows.push([name, fmt(rps, 0), fmt(median(rs.map(r => r.p50))), fmt(median(rs.map(r => r.p99))), String(rs.reduce((a, r) => a + r.errors, 0)), fmt(median(rs.map(r => r.ratio)), 2), fmt(median(rs.map(r => r.cpu)), 0)])
}
for (const [name, n] of perIteration) {
  const rps = median(results.get(name).map(r => r.rps))
  rows.push([`${name}: iterations/s`, fmt(rps / n, 0), '', '', '', '', ''])
}
rows.push(['Start to first healthy answer (ms)', fmt(median(startups), 0), '', '', '', '', ''])
rows.push(['Peak RSS of the sandbox (MB)', fmt(peak, 0), '', '', '', '', ''])
const widths = rows[0].map((_, i) => Math.max(...rows.map(r => r[i].length)))
const line = (r) => '| ' + r.map((c, i) => i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])).join(' | ') + ' |'
const cpu = cpus()
console.log(`\n${RUNS} run(s), ${DURATION} s per scenario after a ${WARMUP} s warm-up, ${CONNECTIONS} connections, ${USERS} users, LOG_LEVEL=${opts['log-level']}` +
  `${PROFILING ? ', profiling (slower)' : ''}; medians over the runs, errors summed`)
console.log(`${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${((Date.now() - began) / 1000).toFixed(0)} s in all\n`)
console.log(line(rows[0]))
console.log('|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|')
for (const r of rows.slice(1)) console.log(line(r))

// The targets, from this run's medians. Nothing here fails the run: the benchmark is not a test.
const verdict = (ok) => ok ? 'met' : 'NOT met'
console.log('\nTargets (medians of this run):')
for (const [name, target] of targets) {
  const rs = results.get(name)
  const ratio = median(rs.map(r => r.ratio))
  let text = `- ${name}: x${fmt(ratio, 3)} of the baseline, target x${target.ratio}: ${verdict(ratio >= target.ratio)}`
  if (target.p99 !== undefined) {
    const p99 = median(rs.map(r => r.p99))
    text += `; p99 ${fmt(p99, 0)} ms, target under ${target.p99} ms: ${verdict(p99 < target.p99)} (the bare route's own p99: ${fmt(median(results.get(BASELINE).map(r => r.p99)), 0)} ms)`
  }
  console.log(text)
}
console.log(`- Start to first healthy answer: ${fmt(median(startups), 0)} ms, target under 1000 ms: ${verdict(median(startups) < 1000)}`)
console.log(`- Peak RSS: ${fmt(peak, 0)} MB, target under 150 MB: ${verdict(peak < 150)}`)
