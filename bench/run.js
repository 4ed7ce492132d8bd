// npm run bench [-- --duration 10 --warmup 2 --connections 50 --runs 3]
// Starts the sandbox (compiled, file database, 1 000 users with metadata) and a bare Fastify
// baseline on this machine, measures each scenario with autocannon after a warm-up, and prints one
// table with requests/s, p50, p99, errors and the ratio to the baseline (medians over the runs).
import { spawn, fork } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    runs: { type: 'string', default: '3' },
    users: { type: 'string', default: '1000' }
  }
})
const DURATION = Number(opts.duration)
const WARMUP = Number(opts.warmup)
const CONNECTIONS = Number(opts.connections)
const RUNS = Number(opts.runs)
const USERS = Number(opts.users)
const ID = 'sandbox-demo-client'
const SECRET = 'sandbox-demo-secret'
const BASIC = 'Basic ' + Buffer.from(`${ID}:${SECRET}`).toString('base64')

const freePort = () => new Promise((resolve, reject) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)) }).on('error', reject)
})

const peakRssMb = (pid) => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find(l => l.startsWith('VmHWM:'))
    return Number(line.replace(/\D+/g, '')) / 1024
  } catch { return NaN }
}

async function startSandbox (dir) {
  const port = await freePort()
  const started = process.hrtime.bigint()
  const child = spawn(process.execPath, ['dist/src/server.js'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'bench.db'), LOG_LEVEL: 'warn', REQUEST_LOG_SIZE: '1000' },
    stdio: ['ignore', 'ignore', 'inherit']
  })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    try {
      const res = await fetch(`${url}/_sandbox/health`)
      if (res.status === 200) break
    } catch {}
    if (child.exitCode !== null) throw new Error('the sandbox exited during start-up')
    await new Promise(resolve => setTimeout(resolve, 5))
  }
  const startupMs = Number(process.hrtime.bigint() - started) / 1e6
  return { child, url, startupMs }
}

async function startBaseline () {
  const port = await freePort()
  const child = fork(new URL('./baseline.js', import.meta.url), [String(port)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  await new Promise(resolve => child.once('message', resolve))
  return { child, url: `http://127.0.0.1:${port}` }
}

async function json (url, init) {
  const res = await fetch(url, init)
  const text = await res.text()
  if (res.status >= 400) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${text}`)
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }
}

async function seed (url) {
  const token = (await json(`${url}/core/oauth2/token`, {
    method: 'POST', headers: { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials'
  })).body.access_token
  const users = []
  const stamp = Date.now()
  for (let i = 0; i < USERS; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, USERS - i) }, (_, k) => json(`${url}/core/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `bench-${stamp}-${i + k}@example.com`,
        termsOfService: 'general-gb-fca',
        primaryCitizenship: 'GB',
        address: { country: 'GB' },
        metadata: { externalId: `ext-${i + k}`, tier: 'gold', tags: ['a', 'b'], nested: { region: 'eu', score: i + k } }
      })
    })))
    users.push(...batch.map(r => r.body.user.id))
  }
  const etags = new Map()
  for (const id of users.slice(0, 200)) {
    const res = await json(`${url}/core/users/me/metadata`, { headers: { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${id}` } })
    etags.set(id, res.headers.get('etag'))
  }
  return { token, users, etags }
}

function measure (url, requests, extra = {}) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION, requests, ...extra }, (err, result) => err ? reject(err) : resolve(result))
  })
}

async function scenario (url, requests) {
  await measure(url, requests, { duration: WARMUP })
  const r = await measure(url, requests)
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + (r.non2xx - (r['3xx'] ?? 0)) }
}

function cycle (list) {
  let i = 0
  return () => list[i++ % list.length]
}

function scenarios (state) {
  const { token, users, etags } = state
  const auth = { authorization: `Bearer ${token}` }
  const nextUser = cycle(users)
  const hot = [...etags.keys()]
  const nextHot = cycle(hot)
  const get = {
    method: 'GET',
    path: '/core/users/me/metadata',
    setupRequest: (req) => ({ ...req, headers: { ...auth, 'x-on-behalf-of': `user ${nextUser()}` } })
  }
  const notModified = {
    method: 'GET',
    path: '/core/users/me/metadata',
    setupRequest: (req) => { const id = nextHot(); return { ...req, headers: { ...auth, 'x-on-behalf-of': `user ${id}`, 'if-none-match': etags.get(id) } } }
  }
  let n = 0
  const put = {
    method: 'PUT',
    path: '/core/users/me/metadata',
    setupRequest: (req) => ({ ...req, headers: { ...auth, 'content-type': 'application/json', 'x-on-behalf-of': `user ${nextUser()}` }, body: JSON.stringify({ externalId: `ext-${n++}`, tier: 'silver', tags: ['c'] }) })
  }
  const patch = {
    method: 'PATCH',
    path: '/core/users/me/metadata',
    setupRequest: (req) => ({ ...req, headers: { ...auth, 'content-type': 'application/json-patch+json', 'x-on-behalf-of': `user ${nextUser()}` }, body: JSON.stringify([{ op: 'replace', path: '/tier', value: `t${n++}` }, { op: 'add', path: '/seen', value: true }]) })
  }
  const token_ = {
    method: 'POST',
    path: '/core/oauth2/token',
    headers: { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=core.users.metadata%3Aread'
  }
  const mixed = [get, get, get, get, notModified, notModified, put, patch, token_]
  return [
    ['GET metadata (X-On-Behalf-Of)', [get]],
    ['GET 304 (If-None-Match)', [notModified]],
    ['PUT metadata', [put]],
    ['PATCH metadata (2 ops)', [patch]],
    ['Token (client credentials)', [token_]],
    ['Mixed workload', mixed]
  ]
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] }
const fmt = (x, d = 1) => Number.isFinite(x) ? x.toFixed(d) : 'n/a'

const dir = mkdtempSync(join(tmpdir(), 'sandbox-bench-'))
const startups = []
const results = new Map()
let peak = 0
try {
  for (let run = 1; run <= RUNS; run++) {
    process.stderr.write(`run ${run}/${RUNS}: starting\n`)
    rmSync(join(dir, 'bench.db'), { force: true })
    const sandbox = await startSandbox(dir)
    startups.push(sandbox.startupMs)
    const baseline = await startBaseline()
    try {
      const state = await seed(sandbox.url)
      const base = await scenario(baseline.url, [{ method: 'GET', path: '/core/users/me/metadata' }])
      push('Baseline: bare Fastify GET', base)
      for (const [name, requests] of scenarios(state)) {
        process.stderr.write(`run ${run}/${RUNS}: ${name}\n`)
        push(name, await scenario(sandbox.url, requests))
      }
      peak = Math.max(peak, peakRssMb(sandbox.child.pid))
    } finally {
      sandbox.child.kill('SIGTERM')
      baseline.child.kill('SIGTERM')
      await new Promise(resolve => sandbox.child.once('exit', resolve))
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

function push (name, r) {
  if (!results.has(name)) results.set(name, [])
  results.get(name).push(r)
}

const baseRps = median(results.get('Baseline: bare Fastify GET').map(r => r.rps))
const rows = [['Scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'x baseline']]
for (const [name, rs] of results) {
  const rps = median(rs.map(r => r.rps))
  rows.push([name, fmt(rps, 0), fmt(median(rs.map(r => r.p50))), fmt(median(rs.map(r => r.p99))), String(rs.reduce((a, r) => a + r.errors, 0)), fmt(rps / baseRps, 2)])
}
rows.push(['Start to first healthy answer (ms)', fmt(median(startups), 0), '', '', '', ''])
rows.push(['Peak RSS of the sandbox (MB)', fmt(peak, 0), '', '', '', ''])
const widths = rows[0].map((_, i) => Math.max(...rows.map(r => r[i].length)))
const line = (r) => '| ' + r.map((c, i) => i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])).join(' | ') + ' |'
console.log(`\n${RUNS} run(s), ${DURATION}s per scenario after ${WARMUP}s warm-up, ${CONNECTIONS} connections, ${USERS} users, Node ${process.version}\n`)
console.log(line(rows[0]))
console.log('|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|')
for (const r of rows.slice(1)) console.log(line(r))
