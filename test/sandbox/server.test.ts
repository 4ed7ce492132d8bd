// The real server process: refusing an open control API beyond loopback, and SEED_FILE at start.
import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { basic } from '../helpers.js'
import { ORG, goodFixture } from './fixture-data.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

interface Run { code: number | null, stdout: string, stderr: string }

/** Starts `node --import tsx src/server.ts`; resolves with its URL once it listens, or with its exit. */
function start (env: Record<string, string>): { listening: Promise<string | undefined>, exited: Promise<Run>, stop: () => void } {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SANDBOX_|SEED_FILE|HOST|PORT|DATABASE_PATH)/.test(k)))
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
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
