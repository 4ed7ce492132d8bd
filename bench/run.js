// npm run bench [-- --duration 10 --warmup 2 --connections 50 --runs 3]   (--help: this text)
// Starts the sandbox (compiled, file database, 1 000 users with metadata) and a bare Fastify
// baseline on this machine, measures each scenario with autocannon after a warm-up, interleaved
// with the baseline in 1 s slices (besideBaseline says why; the progress lines give each slice's
// ratio with the baseline's requests/s around it), and prints one table with requests/s,
// p50, p99, errors, the ratio to the baseline (the median of the slices' ratios; medians over the
// runs), CPU per request, and each scenario's own peak RSS (the
// high-water mark is started again before each one); then the reset of another, empty
// organization beside what the scenarios stored, the CPU of the sandbox left idle with 200
// organizations on clocks of their own, and `npm start` again on that same database. After the PUT
// and the token, their floor (bench/floor.js: Fastify and better-sqlite3 doing only what the
// answer needs, durable as the sandbox) is measured with the same requests, beside the same baseline;
// after each start of the sandbox on SQLite, the start's floor (bench/start-floor.js: a bundled
// Fastify and better-sqlite3 answering health, started by `npm start` with the same flags).
// Backends: --backends sqlite,postgres (default: both when a throwaway PostgreSQL can be started by
// scripts/pg-cluster.sh, else SQLite alone, with a note) and --replicas 1,3 (the PostgreSQL
// set-ups: that many sandbox processes on one fresh database each). The PostgreSQL rows are labelled
// `[pg×1]`, `[pg×3]`; the SQLite rows and the targets check keep their meaning. The cluster is
// started once and removed at the end, on an error or on Ctrl-C too.
// Other flags: --only get,put (scenario keys: get, 304, put, patch, token, token-bare, catalogue, transactions, mixed), --users 1000, --log-level info,
// --request-log-size N (the sandbox's REQUEST_LOG_SIZE; 0 turns its request log off; default: the sandbox's own, 1000),
// --cpu-prof (profile the sandbox and print its self time per function and file; with several
// replicas, the first one's),
// --cpu-prof-dir DIR (the same, and keep the profiles in DIR: run-1.cpuprofile, ..., and
// run-1-pg1.cpuprofile, run-1-pg3-r2.cpuprofile, ... for PostgreSQL; open one in
// Chrome's DevTools, or in bench/cpuprofile.js with the --from/--to printed for each scenario),
// --pg-durable (PostgreSQL with fsync and synchronous_commit on, as its defaults are: its commits wait
// for the disk as SQLite's do with synchronous=FULL; without it the throwaway cluster syncs nothing),
// --node-options=--max-semi-space-size=8 (NODE_OPTIONS added to the start script's command line; the
// `=` is needed, as the value starts with a dash),
// --perf DIR (Linux perf, when `perf` is installed: records each measured period of the sandbox, the
// bare route and the floor with `perf record -g`, their JavaScript named through --perf-basic-prof,
// keeps DIR/<scenario>.perf.data and prints where the process's time went: the kernel, Node's own
// binary (V8, libuv, the HTTP parser, the garbage collector), the JIT's JavaScript, and the hottest
// symbols. V8's --cpu-prof counts time in native code outside JavaScript as idle, such as reading
// sockets and parsing requests; perf counts everything, the kernel's TCP work too),
// --against DIR (another checkout, built: its sandbox beside this build's, interleaved slice by
// slice, each on a database of its own and seeded alike, both started anew for each of the --runs
// rounds; on SQLite, or on PostgreSQL with --backends postgres, one replica each; prints
// this build's requests/s over the other's per scenario, with quartiles, and both CPU figures, and
// measures nothing else: how a change is measured through the machine's changes of speed).
import { spawn, spawnSync, fork } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import postgres from 'postgres'
import { summarize } from './cpuprofile.js'
import { imageMallocEnv } from '../scripts/image-env.js'
import { benchArgs } from './args.js'
import { DEMO_BASIC, USER_IP, demoToken, freePort, json, makeTrader, tradeQuote } from './trader.js'

/** Every scenario's key, in the order they run (what --only takes; scenarios() checks its own against it). */
const SCENARIO_KEYS = ['get', '304', 'put', 'patch', 'token', 'token-bare', 'catalogue', 'transactions', 'mixed']

const { values: opts } = benchArgs(import.meta.url, {
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    runs: { type: 'string', default: '3' },
    users: { type: 'string', default: '1000' },
    only: { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    'request-log-size': { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
    'cpu-prof-dir': { type: 'string' },
    'node-options': { type: 'string', default: '' },
    backends: { type: 'string' },
    'pg-durable': { type: 'boolean', default: false },
    replicas: { type: 'string', default: '1,3' },
    perf: { type: 'string' },
    against: { type: 'string' }
  }
}, {
  numbers: { duration: 1, warmup: 0, connections: 1, runs: 1, users: 2, 'request-log-size': 0 },
  check: (v) => {
    for (const key of v.only?.split(',') ?? []) if (!SCENARIO_KEYS.includes(key)) return `--only: no scenario "${key}"; the scenarios: ${SCENARIO_KEYS.join(', ')}`
    for (const b of v.backends?.split(',') ?? []) if (b !== 'sqlite' && b !== 'postgres') return `--backends: sqlite or postgres, not "${b}"`
    for (const n of v.replicas.split(',').map(Number)) if (!Number.isInteger(n) || n < 1 || n > Number(v.connections)) return `--replicas: whole numbers from 1 to the connections, not "${v.replicas}"`
    if (v.against !== undefined) {
      if (!existsSync(join(resolve(v.against), 'dist', 'server.cjs'))) return `--against: ${resolve(v.against)} holds no build (run npm ci or npm run build there)`
      if (v.backends?.includes(',')) return '--against measures one backend: --backends sqlite (the default) or --backends postgres'
    }
    return undefined
  }
})
const DURATION = Number(opts.duration)
const WARMUP = Number(opts.warmup)
// The length of one slice of an interleaved measurement (besideBaseline), in seconds.
const SLICE = 1
// The scenario's slices in one measured period of --duration seconds.
const SLICES = Math.max(1, Math.round(DURATION / SLICE))
const CONNECTIONS = Number(opts.connections)
const RUNS = Number(opts.runs)
const USERS = Number(opts.users)
const KEEP_PROFILES = opts['cpu-prof-dir']
const PG_DURABLE = opts['pg-durable']
/** How the cluster keeps (or does not keep) its commits, for the run's description. */
const PG_DURABILITY = PG_DURABLE ? 'fsync and synchronous_commit on: durable, like SQLite\'s synchronous=FULL' : 'fsync off: nothing durable'
const PROFILING = opts['cpu-prof'] || KEEP_PROFILES !== undefined
const PERF_DIR = opts.perf
if (PERF_DIR !== undefined) {
  if (spawnSync('perf', ['--version']).status !== 0) throw new Error('--perf: the `perf` command is not installed (Debian: apt-get install linux-perf)')
  mkdirSync(PERF_DIR, { recursive: true })
}
/** Node's flag that writes the JIT's symbols where perf finds them (/tmp/perf-<pid>.map). */
const PERF_NODE_FLAGS = PERF_DIR === undefined ? [] : ['--perf-basic-prof']
const BACKENDS = opts.backends === undefined ? undefined : opts.backends.split(',')
const REPLICAS = [...new Set(opts.replicas.split(',').map(Number))]
// Users whose metadata no write touches: the 304 requests keep matching their ETags.
const HOT = Math.min(200, Math.floor(USERS / 2))
// The sandbox starts with `npm start`; a profiled run starts the start script's command itself.
const START_ARGS = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start.split(' ').slice(1)
const START_FILE = START_ARGS.at(-1)

// The high-water mark of the resident set: the peak since the process started.
const peakRssMb = (pid) => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find(l => l.startsWith('VmHWM:'))
    return Number(line.replace(/\D+/g, '')) / 1024
  } catch { return NaN }
}

// Starts the high-water mark again from the resident set of now (Linux's clear_refs, 5), so the
// next reading is the peak of what ran since: each scenario's own peak.
const resetPeakRss = (pid) => {
  try { writeFileSync(`/proc/${pid}/clear_refs`, '5') } catch {}
}

// CPU time (user + system) of a process, in ms: per request, it compares servers far more steadily
// than requests/s when the machine is shared.
const cpuMs = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch { return NaN }
}

// PostgreSQL's side of a request: the postmaster and every process it started (a backend per
// connection of each replica's pool, the WAL writer, the checkpointer...), by their CPU time in ms.
// A process that ends between two readings loses its share; the pools keep their connections.
const clusterCpu = (postmaster) => {
  const byPid = new Map([[postmaster, cpuMs(postmaster)]])
  try {
    for (const child of readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(' ').filter(Boolean)) byPid.set(Number(child), cpuMs(child))
  } catch {}
  return byPid
}
const clusterCpuSince = (before, after) => [...after].reduce((sum, [pid, ms]) => sum + (ms - (before.get(pid) ?? 0)), 0)

// Everything started here that must not outlive the run, whatever ends it (an error, Ctrl-C).
const live = new Set()
let cleaning
const track = (child, group) => {
  const entry = { child, group }
  // Started while the run is being stopped: stopped at once.
  if (cleaning !== undefined) {
    try { if (group) process.kill(-child.pid, 'SIGKILL'); else child.kill('SIGKILL') } catch {}
    return child
  }
  live.add(entry)
  child.once('exit', () => live.delete(entry))
  return child
}

/** The pid of the server `npm start` runs: npm starts a shell, which starts node with scripts/start.cjs. */
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

/** One sandbox process on the database `database` names (DATABASE_PATH or DATABASE_URL). */
async function startSandbox (database, profiles, cwd = ROOT) {
  const port = await freePort()
  const started = process.hrtime.bigint()
  // A clean environment: nothing of the caller's (a rate limit, an admin token) changes the numbers.
  // On PostgreSQL, glibc's threshold for mappings of their own as the image and `npm run replicas`
  // set it (docs/deployment.md): the replicas of a shared demo environment run so, and without it a
  // client secret's derivation leaves its 16 MiB resident (docs/behaviour.md). SQLite's rows are
  // `npm start` as a developer runs it, with nothing set.
  const malloc = database.DATABASE_URL === undefined ? {} : imageMallocEnv(ROOT)
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1', ...database, ...malloc, LOG_LEVEL: opts['log-level'], ...(opts['request-log-size'] === undefined ? {} : { REQUEST_LOG_SIZE: opts['request-log-size'] }), NODE_OPTIONS: [opts['node-options'], ...PERF_NODE_FLAGS].join(' ').trim() }
  // `npm start`, as a developer or CI starts it: the start-up figure includes npm's own start. When
  // profiling, node is run with the start script's arguments directly, so that the profile is the
  // server's and not npm's. Its own process group, so that stopping it stops npm's children too.
  const child = track(PROFILING
    ? spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profiles, ...START_ARGS], { cwd, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true })
    // The log (one JSON line per request at info) goes to /dev/null: written, not kept.
    : spawn('npm', ['start', '--silent'], { cwd, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true }), true)
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

/**
 * `count` sandbox processes on one database, started together (on PostgreSQL the first to get the
 * start-up lock migrates, the others wait for it). Their start-up is the slowest one's.
 */
async function startSandboxes (count, database, profiles) {
  const settled = await Promise.allSettled(Array.from({ length: count }, (_, i) => startSandbox(database, count === 1 ? profiles : `${profiles}-${i + 1}`)))
  const started = settled.filter(r => r.status === 'fulfilled').map(r => r.value)
  const failed = settled.find(r => r.status === 'rejected')
  if (failed !== undefined) {
    await Promise.all(started.map(s => stop(s.child, true)))
    throw failed.reason
  }
  return started
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLUSTER_SCRIPT = join(ROOT, 'scripts/pg-cluster.sh')

/**
 * Starts a throwaway PostgreSQL (scripts/pg-cluster.sh: loopback, trust, fsync off unless --pg-durable) for the whole
 * run in `cluster.dir`, filling in its URL, postmaster and version; or removes it again and answers
 * why it could not start. The directory is the caller's before the start, so that a Ctrl-C during
 * the start removes it too, and outside the run's directory: as root the script gives it to the
 * postgres user, who could not reach into a directory private to root.
 */
async function startCluster (cluster) {
  // No port named: the script's first free one, below the kernel's ephemeral ports.
  const env = PG_DURABLE ? { ...process.env, PG_CLUSTER_DURABLE: '1' } : process.env
  const out = spawnSync(CLUSTER_SCRIPT, ['start', cluster.dir], { encoding: 'utf8', env })
  if (out.status !== 0) {
    stopCluster(cluster)
    const why = (out.error?.message ?? out.stderr?.trim().split('\n').at(-1)) || `exit code ${out.status}`
    return `scripts/pg-cluster.sh could not start PostgreSQL (${why})`
  }
  cluster.url = out.stdout.trim().split('\n').at(-1)
  cluster.postmaster = Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0])
  cluster.admin = postgres(cluster.url, { max: 1, onnotice: () => {} })
  cluster.version = (await cluster.admin.unsafe('SHOW server_version'))[0].server_version
  return undefined
}

/** Stops the cluster at once and removes its directory; synchronous, so that a signal handler can call it. */
function stopCluster (cluster) {
  if (cluster === undefined || cluster.stopped) return
  cluster.stopped = true
  cluster.admin?.end({ timeout: 0 }).catch(() => {})
  spawnSync(CLUSTER_SCRIPT, ['stop', cluster.dir], { stdio: ['ignore', 'ignore', 'inherit'] })
  rmSync(cluster.dir, { recursive: true, force: true })
}

/** Starts the run's throwaway PostgreSQL as `cluster`; answers why not (`cluster` then undefined). */
async function beginCluster () {
  process.stderr.write('starting a throwaway PostgreSQL (scripts/pg-cluster.sh)\n')
  cluster = { dir: mkdtempSync(join(tmpdir(), 'sandbox-bench-pg-')), stopped: false }
  const why = await startCluster(cluster)
  if (why !== undefined) cluster = undefined
  return why
}

/** A new, empty database `name` on the cluster, as the sandbox's DATABASE_URL names it. */
async function freshDatabase (name) {
  await cluster.admin.unsafe(`CREATE DATABASE ${name}`)
  return { DATABASE_URL: cluster.url.replace(/\/[^/]*$/, `/${name}`) }
}

async function startBaseline () {
  const port = await freePort()
  const child = track(fork(new URL('./baseline.js', import.meta.url), [String(port)], { execArgv: PERF_NODE_FLAGS, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }), false)
  await new Promise(resolve => child.once('message', resolve))
  return { child, url: `http://127.0.0.1:${port}` }
}

/**
 * The floor of the writes (bench/floor.js): Fastify and better-sqlite3 doing only what the token's
 * and the PUT's answers need, durable as the sandbox, on a database file of its own.
 */
async function startFloor (path) {
  const port = await freePort()
  const child = track(fork(new URL('./floor.js', import.meta.url), [String(port), path], { execArgv: PERF_NODE_FLAGS, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }), false)
  await new Promise(resolve => child.once('message', resolve))
  return { child, url: `http://127.0.0.1:${port}` }
}
/**
 * The floor of a start (bench/start-floor.js), made once a run: bundled into one CommonJS file as the
 * build bundles the server, in a folder of its own whose package.json starts it with node and the
 * sandbox's start flags, so that `npm start` there is `npm start` here minus the sandbox. Its one
 * package that cannot be bundled (better-sqlite3, native) is found through NODE_PATH.
 */
let startFloorFolder
async function startFloorStart (path) {
  if (startFloorFolder === undefined) {
    const folder = join(dir, 'start-floor')
    mkdirSync(folder, { recursive: true })
    const { build } = await import('esbuild')
    await build({ entryPoints: [fileURLToPath(new URL('./start-floor.js', import.meta.url))], bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['better-sqlite3'], outfile: join(folder, 'start-floor.cjs'), logLevel: 'warning' })
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'start-floor', private: true, scripts: { start: ['node', ...START_ARGS.slice(0, -1), 'start-floor.cjs'].join(' ') } }))
    startFloorFolder = folder
  }
  const port = await freePort()
  const started = process.hrtime.bigint()
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), DATABASE_PATH: path, NODE_PATH: join(ROOT, 'node_modules') }
  const child = track(spawn('npm', ['start', '--silent'], { cwd: startFloorFolder, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true }), true)
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    try {
      if ((await fetch(`${url}/_sandbox/health`)).status === 200) break
    } catch {}
    if (child.exitCode !== null) throw new Error('the start\'s floor (bench/start-floor.js) exited during start-up')
    await new Promise(resolve => setTimeout(resolve, 2))
  }
  const startupMs = Number(process.hrtime.bigint() - started) / 1e6
  await stop(child, true)
  return startupMs
}

/** A floor's row in the table, beside the scenario it is the floor of. */
const floorName = (name) => `${name}: its floor (bench/floor.js)`

async function stop (child, group = false) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise(resolve => child.once('exit', resolve))
  if (group) process.kill(-child.pid, 'SIGTERM')
  else child.kill('SIGTERM')
  await exited
}

/** 1 000 users with metadata, created through the API as an integrator would; ETags of the hot ones. */
async function seed (url) {
  const token = await demoToken(url)
  const users = []
  for (let i = 0; i < USERS; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, USERS - i) }, (_, k) => json(`${url}/core/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...USER_IP },
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

const TRADERS = 10

/** Traders for the transactions scenario (bench/trader.js), each with room for 25 000 trades. */
async function seedTraders (url, token) {
  const traders = []
  for (let i = 0; i < TRADERS; i++) traders.push(await makeTrader(url, token, `trader-${i}@example.com`))
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
          body: tradeQuote(trader)
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
              ...USER_IP,
              'x-service-user-agent': 'bench/run.js'
            },
            body: JSON.stringify({ quoteId: context.quoteId })
          }
    }
  ]
}

function measureOne (url, connections, { requests, setupClient }, duration, skipAggregateResult) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, requests, setupClient, skipAggregateResult }, (err, result) => err ? reject(err) : resolve(result))
  })
}

/**
 * `seconds` of load on these servers, autocannon's raw results (their histograms kept, for
 * sideResult to merge). One server: one autocannon with all the connections. Several replicas:
 * one autocannon per replica in this same process, the connections shared among them (50 over 3:
 * 17, 17, 16), each driving its replica directly; requests are summed and the latency histograms
 * merged. Not a proxy in front of the replicas: on two cores a proxy would take its own share of
 * the CPU for every request (parsing it and sending it again) and add a hop to every latency, so
 * the figure would be the proxy's as much as the sandbox's. Driven directly, the replicas get the
 * same load generator, with the same connections and the same one thread, as a single server does.
 */
async function drive (urls, s, seconds) {
  const shares = urls.map((_, i) => Math.floor(CONNECTIONS / urls.length) + (i < CONNECTIONS % urls.length ? 1 : 0))
  return await Promise.all(urls.map((url, i) => measureOne(url, shares[i], s, seconds, true)))
}

/** A side's slices summed: requests/s over the time it was driven, latencies merged, CPU per request. */
function sideResult (side, s) {
  const merged = autocannon.aggregateResult(side.results, { url: side.urls[0], connections: CONNECTIONS })
  const unexpected = Object.entries(merged.statusCodeStats).reduce((n, [status, { count }]) => s.expect.includes(Number(status)) ? n : n + count, 0)
  return {
    rps: side.total / (side.rps.length * SLICE),
    p50: merged.latency.p50,
    p99: merged.latency.p99,
    errors: merged.errors + merged.timeouts + unexpected,
    cpu: side.cpuMs * 1000 / side.total,
    dbCpu: side.dbCpuMs === undefined ? undefined : side.dbCpuMs * 1000 / side.total,
    statuses: merged.statusCodeStats
  }
}

/**
 * A scenario measured beside the bare route, interleaved: after a warm-up of each, the measured
 * period is cut into slices of SLICE seconds, each of the scenario's between two of the bare
 * route's (B S B S ... S B). Each slice's ratio is the scenario's requests/s over the mean of the
 * two bare slices around it, and the scenario's ratio is the median of its slices' ratios. The
 * machine's speed moves by up to 2x within seconds (BENCHMARKS.md, thirtieth stop): measured one
 * after the other over 7 s each, the same build's ratio ranged from 0.45 to 1.24 as one of the two
 * measurements caught a slow spell; a slice and its neighbours share the machine's state.
 * `target` and `base`: { urls, pids }. Errors: failed or timed-out requests, and any status not
 * expected. CPU: the target's processes (all replicas'), and PostgreSQL's apart when `postmaster`
 * is given.
 */
async function besideBaseline (base, bare, target, s, { window = {}, postmaster, perfName } = {}) {
  await drive(base.urls, bare, WARMUP)
  await drive(target.urls, s, WARMUP)
  const side = (x) => ({ ...x, results: [], rps: [], total: 0, cpuMs: 0, dbCpuMs: undefined })
  const b = side(base)
  const t = side(target)
  const sliceOf = async (x, scen, db) => {
    const cpu = x.pids.map(cpuMs)
    const dbBefore = db === undefined ? undefined : clusterCpu(db)
    const results = await drive(x.urls, scen, SLICE)
    x.cpuMs += x.pids.reduce((sum, pid, i) => sum + cpuMs(pid) - cpu[i], 0)
    if (dbBefore !== undefined) x.dbCpuMs = (x.dbCpuMs ?? 0) + clusterCpuSince(dbBefore, clusterCpu(db))
    const total = results.reduce((sum, r) => sum + r.totalCompletedRequests, 0)
    x.results.push(...results)
    x.total += total
    x.rps.push(total / SLICE)
  }
  window.from = window.clock?.()
  const recordings = perfName === undefined ? [] : [startPerf(target.pids, perfName), startPerf(base.pids, `${perfName}-baseline`)].filter(x => x !== undefined)
  await sliceOf(b, bare)
  for (let i = 0; i < SLICES; i++) {
    await sliceOf(t, s, postmaster)
    await sliceOf(b, bare)
  }
  for (const recording of recordings) await stopPerf(recording)
  window.to = window.clock?.()
  // Each slice's bare route: the mean of the two slices around it.
  const bareRates = t.rps.map((_, i) => (b.rps[i] + b.rps[i + 1]) / 2)
  const ratios = t.rps.map((rps, i) => rps / bareRates[i])
  return { base: { ...sideResult(b, bare), ratio: 1 }, result: { ...sideResult(t, s), ratio: median(ratios) }, ratios, bareRates }
}

/** `perf record` of these processes until stopPerf; undefined without --perf. */
function startPerf (pids, name) {
  if (PERF_DIR === undefined) return undefined
  const file = join(PERF_DIR, `${name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}.perf.data`)
  const child = track(spawn('perf', ['record', '-q', '-F', '999', '-g', '-p', pids.join(','), '-o', file], { stdio: ['ignore', 'ignore', 'inherit'] }), false)
  return { child, file, name }
}

/** Stops the recording (perf writes its file on SIGINT) and prints where the time went. */
async function stopPerf ({ child, file, name }) {
  // A perf that could not record (no permission to trace the process) has exited already.
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise(resolve => child.once('exit', resolve))
  child.kill('SIGINT')
  await exited
  const report = (sort) => (spawnSync('perf', ['report', '-i', file, '--stdio', '--no-children', '--sort', sort, '-g', 'none', '--percent-limit', '0.7'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .stdout ?? '').split('\n').filter(line => line.trim() !== '' && !line.startsWith('#')).map(line => line.replace(/\s+$/, '').slice(0, 140))
  process.stderr.write(`  perf, ${name} (${file}):\n    by binary: ${report('dso').map(l => l.trim().replace(/\s+/, ' ')).join(', ')}\n` +
    report('dso,sym').slice(0, 25).map(l => `    ${l.trim()}\n`).join(''))
}

/**
 * An organization's reset in a sandbox holding the scenarios' data (every refresh token, metadata
 * revision, quote, transaction and event they stored, in the demo organization): another
 * organization, created empty, then reset by the admin (its rows, then itself with what cascades
 * from it), eleven times; the median in ms. In a shared sandbox each organization resets its own
 * again and again, and the cost must not grow with what the others have stored.
 */
async function resetOfAnother (url) {
  const times = []
  for (let i = 0; i < 11; i++) {
    const id = randomUUID()
    const headers = { 'content-type': 'application/json' }
    await json(`${url}/_sandbox/fixtures`, { method: 'POST', headers, body: JSON.stringify({ organizations: [{ id, name: 'Bench reset' }] }) })
    const started = process.hrtime.bigint()
    await json(`${url}/_sandbox/reset`, { method: 'POST', headers, body: JSON.stringify({ organizationId: id }) })
    times.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  return median(times)
}

/**
 * A shared sandbox where many organizations have moved their clocks, idle: ORGANIZATION_CLOCKS
 * organizations made by fixtures, each clock moved by the control API, then the sandbox's CPU (and
 * PostgreSQL's) over IDLE_SECONDS with no request, in % of one core. Due work and the webhook
 * dispatcher run every second whatever the load: their cost must not grow with the clocks.
 */
const ORGANIZATION_CLOCKS = 200
const IDLE_SECONDS = 5
async function idleWithOrganizationClocks (url, pids, postmaster) {
  const headers = { 'content-type': 'application/json' }
  const ids = Array.from({ length: ORGANIZATION_CLOCKS }, () => randomUUID())
  await json(`${url}/_sandbox/fixtures`, { method: 'POST', headers, body: JSON.stringify({ organizations: ids.map(id => ({ id, name: 'Bench clock' })) }) })
  for (const id of ids) await json(`${url}/_sandbox/clock?organizationId=${id}`, { method: 'POST', headers, body: JSON.stringify({ advanceSeconds: 60 }) })
  // The replicas adopt the clocks within a second of their shared state's poll.
  await new Promise(resolve => setTimeout(resolve, 2000))
  const cpu = pids.map(cpuMs)
  const db = postmaster === undefined ? undefined : clusterCpu(postmaster)
  await new Promise(resolve => setTimeout(resolve, IDLE_SECONDS * 1000))
  const percent = (ms) => ms / (IDLE_SECONDS * 1000) * 100
  return {
    sandbox: percent(pids.reduce((sum, pid, i) => sum + cpuMs(pid) - cpu[i], 0)),
    database: db === undefined ? undefined : percent(clusterCpuSince(db, clusterCpu(postmaster)))
  }
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

/** What the scenarios to run need: the users (and, for the quote + transaction, the funded traders). */
async function seedScenarios (url) {
  const state = await seed(url)
  if (only === undefined || only.has('transactions')) state.traders = await seedTraders(url, state.token)
  if (only === undefined || only.has('token-bare')) state.plainClient = await seedPlainClient(url)
  return state
}

// A client as `/_sandbox/clients` makes one by default: no refresh tokens, so its client-credentials
// token is signed and answered without a write (RFC 6749 section 4.4.3: a refresh token SHOULD NOT
// be issued there). The demo client, which the token scenario uses, is configured for them.
const PLAIN_ID = 'bench-plain-client'
const PLAIN_SECRET = 'bench-plain-secret'
async function seedPlainClient (url) {
  await json(`${url}/_sandbox/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: PLAIN_ID, clientSecret: PLAIN_SECRET, scopes: ['core.users.metadata:read'] })
  })
  return 'Basic ' + Buffer.from(`${PLAIN_ID}:${PLAIN_SECRET}`).toString('base64')
}

function scenarios (state) {
  const list = scenarioList(state)
  for (const { key } of list) if (!SCENARIO_KEYS.includes(key)) throw new Error(`bench/run.js: the scenario "${key}" is missing from SCENARIO_KEYS`)
  return list
}

function scenarioList (state) {
  const { token, users, etags, traders, plainClient } = state
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
    headers: { authorization: DEMO_BASIC, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=core.users.metadata%3Aread'
  }
  // The catalogue read: the assets ordered by price, and every asset's price in USD (the rates of
  // USD in each), both computed by the price model on each request.
  const catalogue = [
    { method: 'GET', path: '/core/assets?sort=price:desc', headers: { authorization: auth } },
    { method: 'GET', path: '/core/assets/USD/rates', headers: { authorization: auth } }
  ]
  return [
    { key: 'get', name: 'GET metadata (X-On-Behalf-Of)', ...sequence(gets), expect: [200], target: { ratio: 0.7, p99: 8 } },
    { key: '304', name: 'GET 304 (If-None-Match)', ...sequence(notModified), expect: [304], target: { ratio: 0.7 } },
    // Writes change their bodies on every request, so autocannon builds each one.
    // The writes with a floor (bench/floor.js) measured after them with the same requests.
    { key: 'put', name: 'PUT metadata', requests: [put], expect: [200], target: { ratio: 0.45 }, floor: true },
    { key: 'patch', name: 'PATCH metadata (2 ops)', requests: [patch], expect: [200], target: { ratio: 0.3 } },
    { key: 'token', name: 'Token (client credentials)', requests: [token_], expect: [200], target: { ratio: 0.4 }, floor: true },
    // The same grant for a client without refresh tokens (the default of a new client): no write.
    ...(plainClient === undefined ? [] : [{ key: 'token-bare', name: 'Token, a client without refresh tokens', requests: [{ ...token_, headers: { ...token_.headers, authorization: plainClient } }], expect: [200] }]),
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
const ratioList = (ratios) => ratios.map(x => x.toFixed(2)).join(' ')
/** Each slice's ratio with the bare route's requests/s around it, in thousands: `0.62@29.1k`. */
const sliceList = ({ ratios, bareRates }) => ratios.map((x, i) => `${x.toFixed(2)}@${(bareRates[i] / 1000).toFixed(1)}k`).join(' ')
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2 }
const fmt = (x, d = 1) => Number.isFinite(x) ? x.toFixed(d) : 'n/a'
const BASELINE = 'Baseline: bare Fastify GET'

const dir = mkdtempSync(join(tmpdir(), 'sandbox-bench-'))
// Set-up label ('' for SQLite, ' [pg×3]' ...) -> its figures over the runs.
const startups = new Map()
/** Start-up on the database the run filled, after the scenarios. */
const restarts = new Map()
// The start's floor (bench/start-floor.js), measured right after each of SQLite's starts and restarts.
const floorStartups = []
const floorRestarts = []
const resets = new Map()
const idles = new Map()
const peaks = new Map()
const results = new Map()
// Scenario names in the order measured: the table gives each one's rows together, one per set-up.
const scenarioOrder = []
// Scenario key (get, mixed ...) -> its name.
const scenarioNames = new Map()
// Scenario name -> its target (BENCHMARKS.md, "Against the targets"); SQLite's rows only.
const targets = new Map()
// Scenario name -> requests per iteration, for those whose iteration is more than one request.
const perIteration = new Map()
const push = (name, r) => { if (!results.has(name)) results.set(name, []); results.get(name).push(r) }
const pushTo = (map, key, x) => { if (!map.has(key)) map.set(key, []); map.get(key).push(x) }
const notes = []
let cluster

/** Stops every server started here and removes PostgreSQL and the run's files; once, however often called. */
function cleanup () {
  cleaning ??= (async () => {
    const signal = (name) => { for (const { child, group } of live) { try { if (group) process.kill(-child.pid, name); else child.kill(name) } catch {} } }
    signal('SIGTERM')
    for (const deadline = Date.now() + 3000; live.size > 0 && Date.now() < deadline;) await new Promise(resolve => setTimeout(resolve, 20))
    signal('SIGKILL')
    stopCluster(cluster)
    rmSync(dir, { recursive: true, force: true })
  })()
  return cleaning
}
for (const name of ['SIGINT', 'SIGTERM']) {
  process.on(name, () => {
    if (cleaning !== undefined) return
    process.stderr.write(`\n${name}: stopping the servers${cluster === undefined ? '' : ' and removing PostgreSQL'}\n`)
    cleanup().finally(() => process.exit(130))
  })
}

/** One run of one set-up: a fresh database, its sandbox process(es) and a baseline, seeding, the scenarios. */
async function runSetup (run, setup) {
  const tag = `run ${run}/${RUNS}${setup.label}`
  process.stderr.write(`${tag}: starting\n`)
  let database
  let dbName
  if (setup.backend === 'sqlite') {
    rmSync(join(dir, 'bench.db'), { force: true })
    rmSync(join(dir, 'bench.db-wal'), { force: true })
    rmSync(join(dir, 'bench.db-shm'), { force: true })
    database = { DATABASE_PATH: join(dir, 'bench.db') }
  } else {
    dbName = `bench_${run}_${setup.replicas}`
    database = await freshDatabase(dbName)
  }
  const profiles = join(dir, `profiles-${run}${setup.file}`)
  const windows = []
  try {
    const sandboxes = await startSandboxes(setup.replicas, database, profiles)
    const urls = sandboxes.map(x => x.url)
    const pids = sandboxes.map(x => x.pid)
    const rss = () => Math.max(...pids.map(peakRssMb))
    // The peak since start-up, over the scenarios' own peaks (each scenario starts the mark again).
    let peakSinceStart = 0
    const startupMs = Math.max(...sandboxes.map(x => x.startupMs))
    pushTo(startups, setup.label, startupMs)
    if (setup.backend === 'sqlite' && !PROFILING) {
      const floorMs = await startFloorStart(join(dir, `start-floor-${run}.db`))
      floorStartups.push(floorMs)
      process.stderr.write(`${tag}: started in ${startupMs.toFixed(0)} ms, its floor (bench/start-floor.js) right after in ${floorMs.toFixed(0)} ms\n`)
    }
    const baseline = await startBaseline()
    // The floor is SQLite's: measured on SQLite's set-up only, on a file beside the sandbox's,
    // started for the first scenario that has one.
    let floor
    try {
      const seeded = Date.now()
      // Seeded through the first replica: the others read what it wrote from the shared database.
      const state = await seedScenarios(urls[0])
      process.stderr.write(`${tag}: started in ${startupMs.toFixed(0)} ms, seeded ${USERS} users${state.traders === undefined ? '' : ` and ${TRADERS} funded traders`} in ${Date.now() - seeded} ms, peak RSS so far ${rss().toFixed(0)} MB\n`)
      const bare = { ...sequence(getRequests(state.token, state.users)), expect: [200] }
      const baseSide = { urls: [baseline.url], pids: [baseline.child.pid] }
      for (const s of scenarios(state)) {
        if (only !== undefined && !only.has(s.key)) continue
        const window = { name: s.name, clock: sandboxes[0].sinceStart }
        windows.push(window)
        peakSinceStart = Math.max(peakSinceStart, rss())
        pids.forEach(resetPeakRss)
        process.stderr.write(`${tag}: ${s.name}\n`)
        const measured = await besideBaseline(baseSide, bare, { urls, pids }, s,
          { window, postmaster: setup.backend === 'postgres' ? cluster.postmaster : undefined, perfName: PERF_DIR === undefined ? undefined : `run${run}${setup.file}-${s.key}` })
        const { base, result: r } = measured
        push(BASELINE, base)
        r.peakRss = rss()
        peakSinceStart = Math.max(peakSinceStart, r.peakRss)
        if (r.errors > 0) process.stderr.write(`  errors: ${r.errors}, statuses ${JSON.stringify(r.statuses)}\n`)
        process.stderr.write(`  baseline ${base.rps.toFixed(0)} req/s, ${base.cpu.toFixed(0)} µs CPU per request; ${r.rps.toFixed(0)} req/s (x${r.ratio.toFixed(2)}, slices ${sliceList(measured)}), ${r.cpu.toFixed(0)} µs CPU per request` +
          `${r.dbCpu === undefined ? '' : ` (${r.dbCpu.toFixed(0)} µs more in PostgreSQL)`}, peak RSS ${r.peakRss.toFixed(0)} MB (${peakSinceStart.toFixed(0)} since start)\n`)
        if (s.perIteration !== undefined) process.stderr.write(`  ${(r.rps / s.perIteration).toFixed(0)} iterations/s\n`)
        if (!scenarioOrder.includes(s.name)) scenarioOrder.push(s.name)
        scenarioNames.set(s.key, s.name)
        push(s.name + setup.label, r)
        if (s.perIteration !== undefined) perIteration.set(s.name, s.perIteration)
        if (s.target !== undefined && setup.backend === 'sqlite') targets.set(s.name, s.target)
        if (s.floor === true && setup.backend === 'sqlite') {
          floor ??= await startFloor(join(dir, `floor-${run}.db`))
          const fm = await besideBaseline(baseSide, bare, { urls: [floor.url], pids: [floor.child.pid] }, s, { perfName: PERF_DIR === undefined ? undefined : `run${run}-${s.key}-floor` })
          const f = fm.result
          if (f.errors > 0) process.stderr.write(`  floor errors: ${f.errors}, statuses ${JSON.stringify(f.statuses)}\n`)
          process.stderr.write(`  its floor: ${f.rps.toFixed(0)} req/s (x${f.ratio.toFixed(2)}, slices ${sliceList(fm)}), ${f.cpu.toFixed(0)} µs CPU per request\n`)
          if (!scenarioOrder.includes(floorName(s.name))) scenarioOrder.push(floorName(s.name))
          push(floorName(s.name), f)
        }
      }
      const resetMs = await resetOfAnother(urls[0])
      pushTo(resets, setup.label, resetMs)
      process.stderr.write(`${tag}: the reset of another, empty organization after the scenarios: ${resetMs.toFixed(1)} ms\n`)
      const idle = await idleWithOrganizationClocks(urls[0], pids, setup.backend === 'postgres' ? cluster.postmaster : undefined)
      pushTo(idles, setup.label, idle)
      process.stderr.write(`${tag}: idle with ${ORGANIZATION_CLOCKS} organization clocks: ${idle.sandbox.toFixed(1)} % of a core${idle.database === undefined ? '' : ` (PostgreSQL ${idle.database.toFixed(1)} %)`}\n`)
      peaks.set(setup.label, Math.max(peaks.get(setup.label) ?? 0, peakSinceStart, rss()))
    } finally {
      await stop(baseline.child)
      if (floor !== undefined) await stop(floor.child)
      await Promise.all(sandboxes.map(x => stop(x.child, true)))
    }
    // Issue 32's other start-up figure: `npm start` again on the database the scenarios filled
    // (migrated, seeded, 1 000 users and what the scenarios wrote), as a redeploy or a laptop's
    // second start finds it. Its profile, if any, goes to a directory of its own.
    const restarted = await startSandboxes(setup.replicas, database, `${profiles}-restart`)
    const restartMs = Math.max(...restarted.map(x => x.startupMs))
    await Promise.all(restarted.map(x => stop(x.child, true)))
    pushTo(restarts, setup.label, restartMs)
    process.stderr.write(`${tag}: started again on the same database in ${restartMs.toFixed(0)} ms\n`)
    if (setup.backend === 'sqlite' && !PROFILING) {
      const floorMs = await startFloorStart(join(dir, `start-floor-${run}.db`))
      floorRestarts.push(floorMs)
      process.stderr.write(`${tag}: its floor again on its database in ${floorMs.toFixed(0)} ms\n`)
    }
  } finally {
    if (dbName !== undefined && cleaning === undefined) await cluster.admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {})
  }
  if (PROFILING) {
    // The first replica's profile (each replica has its own directory when there are several). The
    // profile starts a little after the spawn: the windows lose a little at each end.
    const each = Array.from({ length: setup.replicas }, (_, i) => setup.replicas === 1 ? profiles : `${profiles}-${i + 1}`)
    const files = each.map(d => join(d, readdirSync(d)[0]))
    if (KEEP_PROFILES !== undefined) {
      mkdirSync(KEEP_PROFILES, { recursive: true })
      files.forEach((file, i) => copyFileSync(file, join(KEEP_PROFILES, `run-${run}${setup.file}${setup.replicas === 1 ? '' : `-r${i + 1}`}.cpuprofile`)))
    }
    const profile = JSON.parse(readFileSync(files[0], 'utf8'))
    for (const w of windows) {
      const from = Math.round(w.from + 100)
      const to = Math.round(w.to - 100)
      console.log(`\n=== run ${run}${setup.label}: ${w.name}${setup.replicas === 1 ? '' : ` (replica 1 of ${setup.replicas})`} (--from ${from} --to ${to})\n` + summarize(profile, { from, to }))
    }
  }
}

/**
 * --against DIR: this build's sandbox beside another build's (a checkout in DIR, built), both on
 * SQLite (or both on the throwaway PostgreSQL with --backends postgres: a database each, one
 * replica each), each on a fresh database of its own and seeded alike, interleaved slice by slice as a
 * scenario is beside the bare route (besideBaseline), with each build's own requests (its own
 * users and token). Each of the --runs rounds starts both anew (a process's own state, its
 * compiled code among it, varies from one start to the next). Prints, per scenario, this build's
 * requests/s over the other's: the median of every slice's ratio with their quartiles, and each
 * round's median; and the two builds' CPU a request. A change is measured against the build before
 * it in one run, through the machine's changes of speed. Nothing else is measured.
 */
async function compareBuilds (against) {
  const other = resolve(against)
  const backend = BACKENDS ?? ['sqlite']
  const onPostgres = backend[0] === 'postgres'
  if (onPostgres) {
    const why = await beginCluster()
    if (why !== undefined) throw new Error(why)
  }
  // A fresh database for each build and round: a file of its own, or a database of the cluster.
  const database = async (name) => onPostgres ? await freshDatabase(`against_${name.replace(/-/g, '_')}`) : { DATABASE_PATH: join(dir, `${name}.db`) }
  // Scenario key -> { name, ratios (every slice's), rounds (each round's median), cpu: [this, other] per round }
  const figures = new Map()
  for (let run = 1; run <= RUNS; run++) {
    const [mine] = await startSandboxes(1, await database(`this-${run}`), join(dir, `profiles-this-${run}`))
    const theirs = await startSandbox(await database(`other-${run}`), join(dir, `profiles-other-${run}`), other)
    try {
      const states = []
      for (const x of [mine, theirs]) {
        states.push(await seedScenarios(x.url))
      }
      const theirScenarios = new Map(scenarios(states[1]).map(s => [s.key, s]))
      for (const s of scenarios(states[0])) {
        if (only !== undefined && !only.has(s.key)) continue
        const m = await besideBaseline({ urls: [theirs.url], pids: [theirs.pid] }, theirScenarios.get(s.key), { urls: [mine.url], pids: [mine.pid] }, s)
        const errors = m.result.errors + m.base.errors
        process.stderr.write(`round ${run}/${RUNS}: ${s.name}: x${m.result.ratio.toFixed(3)} (slices ${ratioList(m.ratios)}); this ${m.result.cpu.toFixed(1)} µs CPU a request, the other ${m.base.cpu.toFixed(1)}` +
          `${errors === 0 ? '' : `; errors: ${errors}`}\n`)
        const f = figures.get(s.key) ?? { name: s.name, ratios: [], rounds: [], cpu: [], errors: 0 }
        f.ratios.push(...m.ratios)
        f.rounds.push(m.result.ratio)
        f.cpu.push([m.result.cpu, m.base.cpu])
        f.errors += errors
        figures.set(s.key, f)
      }
    } finally {
      await stop(mine.child, true)
      await stop(theirs.child, true)
    }
  }
  const quantile = (xs, q) => { const v = [...xs].sort((a, b) => a - b); const i = (v.length - 1) * q; return v[Math.floor(i)] + (v[Math.ceil(i)] - v[Math.floor(i)]) * (i - Math.floor(i)) }
  console.log(`\nThis build (${ROOT}) against ${other}, on ${onPostgres ? `PostgreSQL ${cluster.version} (one replica each; ${PG_DURABILITY})` : 'SQLite'}: requests/s of this over that, ${RUNS} round(s) of ${SLICES} slices of ${SLICE} s, each between two of the other's`)
  for (const f of figures.values()) {
    const cpuRatio = median(f.cpu.map(([mine, theirs]) => mine / theirs))
    console.log(`- ${f.name}: x${median(f.ratios).toFixed(3)} (quartiles ${quantile(f.ratios, 0.25).toFixed(3)} to ${quantile(f.ratios, 0.75).toFixed(3)}; rounds ${ratioList(f.rounds)}); ` +
      `CPU a request x${cpuRatio.toFixed(3)} (this ${median(f.cpu.map(c => c[0])).toFixed(1)} µs, the other ${median(f.cpu.map(c => c[1])).toFixed(1)})${f.errors === 0 ? '' : `; errors: ${f.errors}`}`)
  }
}

if (opts.against !== undefined) {
  try {
    await compareBuilds(opts.against)
  } finally {
    await cleanup()
  }
  process.exit(0)
}

let backends = BACKENDS ?? ['sqlite', 'postgres']
let setups = []
const began = Date.now()
try {
  if (backends.includes('postgres')) {
    const why = await beginCluster()
    if (why !== undefined) {
      // Asked for by name, PostgreSQL is required; by default, its absence only narrows the run.
      if (BACKENDS !== undefined) throw new Error(why)
      notes.push(`${why}: SQLite only (--backends sqlite,postgres needs PostgreSQL 15+ installed, or root to install it)`)
      process.stderr.write(`note: ${notes.at(-1)}\n`)
      backends = backends.filter(b => b !== 'postgres')
    }
  }
  setups = [
    ...(backends.includes('sqlite') ? [{ backend: 'sqlite', replicas: 1, label: '', file: '' }] : []),
    ...(backends.includes('postgres') ? REPLICAS.map(n => ({ backend: 'postgres', replicas: n, label: ` [pg×${n}]`, file: `-pg${n}` })) : [])
  ]
  for (let run = 1; run <= RUNS; run++) {
    for (const setup of setups) await runSetup(run, setup)
  }
} finally {
  await cleanup()
}

const postgresRun = setups.some(x => x.backend === 'postgres')
const rows = [['Scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'x baseline', 'CPU µs/req', 'peak RSS MB', ...(postgresRun ? ['DB CPU µs/req'] : [])]]
const blank = (first, value) => [first, value, '', '', '', '', '', '', ...(postgresRun ? [''] : [])]
// The peak RSS of a scenario: the largest over the runs (the sandbox's, or its largest replica's).
const peakOf = (rs) => rs[0].peakRss === undefined ? '' : fmt(Math.max(...rs.map(r => r.peakRss)), 0)
const row = (name, rs) => [name, fmt(median(rs.map(r => r.rps)), 0), fmt(median(rs.map(r => r.p50))), fmt(median(rs.map(r => r.p99))), String(rs.reduce((a, r) => a + r.errors, 0)),
  fmt(median(rs.map(r => r.ratio)), 2), fmt(median(rs.map(r => r.cpu)), 0), peakOf(rs), ...(postgresRun ? [rs[0].dbCpu === undefined ? '' : fmt(median(rs.map(r => r.dbCpu)), 0)] : [])]
if (results.has(BASELINE)) rows.push(row(BASELINE, results.get(BASELINE)))
for (const name of scenarioOrder) {
  for (const { label } of setups) if (results.has(name + label)) rows.push(row(name + label, results.get(name + label)))
}
for (const [name, n] of perIteration) {
  for (const { label } of setups) {
    if (results.has(name + label)) rows.push(blank(`${name}: iterations/s${label}`, fmt(median(results.get(name + label).map(r => r.rps)) / n, 0)))
  }
}
for (const { label, replicas } of setups) {
  if (startups.has(label)) rows.push(blank(`Start to first healthy answer${replicas === 1 ? '' : ', slowest replica'} (ms)${label}`, fmt(median(startups.get(label)), 0)))
}
if (floorStartups.length > 0) rows.push(blank('Start to first healthy answer: its floor (bench/start-floor.js) (ms)', fmt(median(floorStartups), 0)))
for (const { label, replicas } of setups) {
  if (restarts.has(label)) rows.push(blank(`Start again on the filled database${replicas === 1 ? '' : ', slowest replica'} (ms)${label}`, fmt(median(restarts.get(label)), 0)))
}
if (floorRestarts.length > 0) rows.push(blank('Start again: its floor (bench/start-floor.js) (ms)', fmt(median(floorRestarts), 0)))
for (const { label } of setups) {
  if (resets.has(label)) rows.push(blank(`Reset of another, empty organization after the scenarios (ms)${label}`, fmt(median(resets.get(label)), 1)))
}
for (const { label, replicas } of setups) {
  if (!idles.has(label)) continue
  const runs = idles.get(label)
  const db = runs[0].database === undefined ? '' : `, PostgreSQL ${fmt(median(runs.map(r => r.database)), 1)} %`
  rows.push(blank(`Idle with ${ORGANIZATION_CLOCKS} organization clocks: CPU % of one core${replicas === 1 ? '' : ', replicas summed'}${label}`, `${fmt(median(runs.map(r => r.sandbox)), 1)}${db}`))
}
for (const { label, replicas } of setups) {
  if (peaks.has(label)) rows.push(blank(`Peak RSS of the ${replicas === 1 ? 'sandbox' : 'largest replica'} since start, seeding included (MB)${label}`, fmt(peaks.get(label), 0)))
}
const widths = rows[0].map((_, i) => Math.max(...rows.map(r => r[i].length)))
const line = (r) => '| ' + r.map((c, i) => i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])).join(' | ') + ' |'
const cpu = cpus()
console.log(`\n${RUNS} run(s), ${DURATION} s per scenario after a ${WARMUP} s warm-up, ${CONNECTIONS} connections, ${USERS} users, LOG_LEVEL=${opts['log-level']}${opts['request-log-size'] === undefined ? '' : `, REQUEST_LOG_SIZE=${opts['request-log-size']}`}` +
  `${PROFILING ? ', profiling (slower)' : ''}${PERF_DIR === undefined ? '' : ', recorded by perf (--perf-basic-prof: slower starts)'}; medians over the runs, errors summed`)
console.log(`${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${((Date.now() - began) / 1000).toFixed(0)} s in all`)
if (postgresRun) {
  const n = REPLICAS.filter(r => r > 1)
  console.log(`Unlabelled rows: SQLite (file, WAL, synchronous=FULL). [pg×N]: N sandbox processes on PostgreSQL ${cluster?.version ?? ''} (scripts/pg-cluster.sh: loopback, ${PG_DURABILITY}), a fresh database per set-up and run` +
    `${n.length === 0 ? '' : `; with several replicas, one autocannon per replica sharing the ${CONNECTIONS} connections, requests/s summed and latencies merged, CPU µs/req summed over the replicas, start-up the slowest replica's, peak RSS the largest replica's`}` +
    '; DB CPU µs/req: PostgreSQL\'s own processes, on top of CPU µs/req')
}
for (const note of notes) console.log(`Note: ${note}`)
console.log()
console.log(line(rows[0]))
console.log('|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|')
for (const r of rows.slice(1)) console.log(line(r))

// The targets, from this run's medians (SQLite's rows). Nothing here fails the run: the benchmark is not a test.
const verdict = (ok) => ok ? 'met' : 'NOT met'
console.log('\nTargets (medians of this run):')
for (const [name, target] of targets) {
  const rs = results.get(name)
  const ratio = median(rs.map(r => r.ratio))
  let text = `- ${name}: x${fmt(ratio, 3)} of the baseline, target x${target.ratio}: ${verdict(ratio >= target.ratio)}`
  if (results.has(floorName(name))) text += ` (its floor, bench/floor.js: x${fmt(median(results.get(floorName(name)).map(r => r.ratio)), 3)})`
  if (target.p99 !== undefined) {
    const p99 = median(rs.map(r => r.p99))
    text += `; p99 ${fmt(p99, 0)} ms, target under ${target.p99} ms: ${verdict(p99 < target.p99)} (the bare route's own p99: ${fmt(median(results.get(BASELINE).map(r => r.p99)), 0)} ms)`
  }
  console.log(text)
}
const startFloorText = (ms) => ms.length === 0 ? '' : ` (its floor, bench/start-floor.js: ${fmt(median(ms), 0)} ms)`
if (startups.has('')) console.log(`- Start to first healthy answer: ${fmt(median(startups.get('')), 0)} ms, target under 800 ms on a new database: ${verdict(median(startups.get('')) < 800)}${startFloorText(floorStartups)}`)
if (restarts.has('')) console.log(`- Start again on the filled database: ${fmt(median(restarts.get('')), 0)} ms, target under 500 ms on an existing database: ${verdict(median(restarts.get('')) < 500)}${startFloorText(floorRestarts)}`)
// Issue 32's memory target: the peak within the mixed workload and within the quote and transaction.
for (const key of ['transactions', 'mixed']) {
  const name = scenarioNames.get(key)
  if (name === undefined || !results.has(name)) continue
  const peak = Math.max(...results.get(name).map(r => r.peakRss))
  console.log(`- Peak RSS in ${name}: ${fmt(peak, 0)} MB, target under 120 MB: ${verdict(peak < 120)}`)
}
if (peaks.has('')) console.log(`- (Peak RSS since start, seeding and every scenario included: ${fmt(peaks.get(''), 0)} MB.)`)
if (postgresRun) console.log('- The [pg×N] rows have no targets: they are measured beside SQLite\'s (BENCHMARKS.md).')
