// The real server process: refusing an open control API beyond loopback, and SEED_FILE at start.
import t from 'tap'
import { spawn } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { basic } from '../helpers.js'
import { sourceServerArgs } from '../server-args.js'
import { ORG, goodFixture } from './fixture-data.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

interface Run { code: number | null, stdout: string, stderr: string }

/** Starts the server from its sources (test/server-args.ts); resolves with its URL once it listens, or with its exit. */
function start (env: Record<string, string>): { listening: Promise<string | undefined>, exited: Promise<Run>, stop: () => void } {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SANDBOX_|SEED_FILE|HOST|PORT|DATABASE_PATH)/.test(k)))
  const child = spawn(process.execPath, sourceServerArgs(), {
    cwd: ROOT,
    env: { ...base, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: ':memory:', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  let announce: (url: string | undefined) => void = () => {}
  const listening = new Promise<string | undefined>(resolve => { announce = resolve })
  child.stdout.on('data', chunk => {
    stdout += chunk
    const match = /listening on (http:\/\/\S+)/.exec(stdout)
    if (match !== null) announce(match[1])
  })
  child.stderr.on('data', chunk => { stderr += chunk })
  const exited = new Promise<Run>(resolve => child.on('exit', code => { announce(undefined); resolve({ code, stdout, stderr }) }))
  return { listening, exited, stop: () => { child.kill('SIGTERM') } }
}

t.test('beyond loopback without SANDBOX_ADMIN_TOKEN the server refuses to start: exit code 2 and a clear message', async t => {
  const server = start({ HOST: '0.0.0.0' })
  const run = await server.exited
  t.equal(run.code, 2)
  t.match(run.stderr, /Configuration error: HOST is 0\.0\.0\.0, beyond loopback: set SANDBOX_ADMIN_TOKEN/)
  t.notMatch(run.stdout, /listening/)
})

t.test('SEED_FILE loads the fixture at start', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'seed-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'seed.json')
  writeFileSync(file, JSON.stringify(goodFixture))
  const server = start({ SEED_FILE: file })
  t.teardown(server.stop)
  const url = await server.listening
  t.ok(url, 'the server listens')

  const client = await fetch(`${url}/_sandbox/clients/acme-ci`)
  t.equal(client.status, 200)
  t.match(await client.json(), { clientId: 'acme-ci', organizationId: ORG })
  const token = await fetch(`${url}/core/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic('acme-ci', 'acme-ci-secret'), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  t.equal(token.status, 200)
  t.equal(token.headers.get('x-service-organization-id'), ORG)
  server.stop()
  t.equal((await server.exited).code, 0)
})

t.test('a bad SEED_FILE stops the start with every bad path', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'seed-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'seed.json')
  writeFileSync(file, JSON.stringify({ users: [{ email: 'ok@example.com' }, { email: 'broken' }], entities: [{ type: 'accounts', userId: ORG }] }))
  const server = start({ SEED_FILE: file })
  const run = await server.exited
  t.equal(run.code, 1)
  t.match(run.stderr, /Failed to start: SEED_FILE .*seed\.json is not a valid fixture; nothing was loaded/)
  t.match(run.stderr, /users\.1\.email: format/)
  t.notMatch(run.stdout, /listening/)
})

t.test('a request log that could outgrow the heap is named at start; the default is not', async t => {
  const big = start({ REQUEST_LOG_SIZE: '1000000' })
  t.ok(await big.listening, 'it still starts')
  big.stop()
  t.match((await big.exited).stderr, /Warning: REQUEST_LOG_SIZE=1000000 can hold up to \d+ MB of large entries, more than half of this process's heap limit \(\d+ MB\): start node with --max-old-space-size=<MB>/)

  const usual = start({})
  t.ok(await usual.listening)
  usual.stop()
  t.notMatch((await usual.exited).stderr, /Warning/)
})

t.test('a malformed DATABASE_URL stops the server: exit code 2, a message naming DATABASE_URL, never its password', async t => {
  for (const url of ['postgres://sandbox:hunter2-secret@/', 'mysql://sandbox:hunter2-secret@db:3306/sandbox', 'not a url hunter2-secret']) {
    const run = await start({ DATABASE_URL: url }).exited
    t.equal(run.code, 2, url)
    t.match(run.stderr, /DATABASE_URL must be a PostgreSQL URL such as postgres:\/\/user:password@host:5432\/database/)
    t.notMatch(run.stdout + run.stderr, /hunter2-secret/, 'the password is never printed')
  }
})

t.test('an unreachable PostgreSQL at start: one line per attempt for DATABASE_CONNECT_TIMEOUT_SECONDS, then exit code 2', async t => {
  // A port nothing listens on: connections are refused at once.
  const free = await new Promise<number>(resolve => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
  const run = await start({ DATABASE_URL: `postgres://sandbox:hunter2-secret@127.0.0.1:${free}/sandbox`, DATABASE_CONNECT_TIMEOUT_SECONDS: '2' }).exited
  t.equal(run.code, 2)
  const attempts = run.stderr.split('\n').filter(line => /^PostgreSQL \(DATABASE_URL\) cannot be reached, attempt \d+: ECONNREFUSED$/.test(line))
  t.ok(attempts.length >= 2 && attempts.length <= 4, `a line per attempt, about one a second (${attempts.length})`)
  t.match(run.stderr, /Giving up after DATABASE_CONNECT_TIMEOUT_SECONDS=2\./)
  t.notMatch(run.stdout + run.stderr, /hunter2-secret/, 'the password is never printed')
})

// SQLite's file, the two ways a start can fail to own it. One that cannot be written (here, a path
// under a regular file, which no one can create: the suite may run as root, who can write anywhere
// else) leaves the sandbox on an in-memory database, said on stderr and in the banner. One held by
// a sandbox already running on it stops the second start, once the busy timeout has passed, rather
// than run it on an empty database that looks like the first one's state lost.
t.test('a database path that cannot be written: the sandbox starts in memory and says so', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'database-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'a-file'), '')
  const path = join(dir, 'a-file', 'sandbox.db')
  const server = start({ DATABASE_PATH: path })
  t.teardown(server.stop)
  const url = await server.listening
  t.ok(url, 'the server listens')
  t.equal((await fetch(`${url}/_sandbox/health`)).status, 200)
  server.stop()
  const run = await server.exited
  t.match(run.stderr, `Warning: the database ${path} cannot be opened for writing`)
  t.match(run.stderr, 'running on an in-memory database: state will not survive a restart')
  t.match(run.stdout, /Database\s+:memory: \(fallback\)/)
})

t.test('a database another sandbox is running on: the second start stops with exit code 2 and says why', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'database-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'sandbox.db')
  const first = start({ DATABASE_PATH: path })
  t.teardown(first.stop)
  const url = await first.listening
  t.ok(url, 'the first sandbox listens')
  const second = await start({ DATABASE_PATH: path }).exited
  t.equal(second.code, 2)
  t.equal(second.stderr, `The database ${path} is in use by another process (another sandbox started on the same file?): stop that one, or set DATABASE_PATH to another file.\n`)
  t.notMatch(second.stdout, /listening/)
  t.equal((await fetch(`${url}/_sandbox/health`)).status, 200, 'the first one still answers')
})
