// The shipped way to start: `npm ci` (its `prepare` script) or `npm run build` makes the bundle
// (dist/server.bundle.cjs: the server and its pure JavaScript packages in one file), V8's code
// cache for it, and dist/server.cjs, which runs the bundle with that cache; `npm start` checks that
// the build is current and runs it, and the image's CMD and the bin's first line run it with the
// same flags.
import t, { type Test } from 'tap'
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { iso31661, iso31662 } from 'iso-3166'
import { Webhook } from 'standardwebhooks'
import { basic, waitFor } from '../helpers.js'
import { buildProblem } from '../../scripts/build-check.cjs'
import { imageMallocEnv } from '../../scripts/image-env.js'
import { SCRYPT } from '../../src/auth/clients.js'
import { startReceiver } from '../webhooks/support.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8')

const startScript = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start.split(' ')
const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(read('Dockerfile'))![1]) as string[]
const shebang = read('src/launch.ts').split('\n')[0]

t.test('npm start, the image and the bin run node with the same flags', async t => {
  t.same(startScript, ['node', '--max-old-space-size=192', '--max-semi-space-size=4', '--no-allocation-site-pretenuring', '--v8-pool-size=1', '--no-sparkplug', 'scripts/start.cjs'])
  t.match(read('scripts/start.cjs'), /require\('\.\.\/dist\/server\.cjs'\)/, 'npm start runs the build')
  t.same(cmd, [...startScript.slice(0, -1), 'dist/server.cjs'], 'the Dockerfile CMD')
  t.equal(shebang, `#!/usr/bin/env -S ${startScript.slice(0, -1).join(' ')}`, 'the bin, through its first line')
})

// V8 rounds a semi-space's size up to a power of two: `--max-semi-space-size=5` gave semi-spaces of
// 8 MB, a young generation of 16 MB (what an earlier start command had, believing it 10). The
// start's flags, run on an allocation-heavy script, must give the 8 MB young generation that
// docs/behaviour.md ("Memory") states.
t.test('the start\'s heap flags give a young generation of 8 MB at most', async t => {
  const flags = startScript.slice(1, -1)
  const probe = 'const v8 = require("node:v8"); let kept = []; let most = 0;' +
    'for (let round = 0; round < 60; round++) { for (let i = 0; i < 50000; i++) { kept.push({ i, s: "x" + i }); if (kept.length > 200000) kept = [] }' +
    ' most = Math.max(most, v8.getHeapSpaceStatistics().find(s => s.space_name === "new_space").space_size) }' +
    'process.stdout.write(String(most))'
  const youngest = Number(execFileSync(process.execPath, [...flags, '-e', probe], { encoding: 'utf8', env: { PATH: process.env.PATH } }))
  t.ok(youngest > 4 * 1024 * 1024, `the young generation grew under allocation (${youngest} bytes)`)
  t.ok(youngest <= 8 * 1024 * 1024, `the young generation stays at 8 MB or less (${youngest} bytes)`)
})

// The image's MALLOC_MMAP_THRESHOLD_ (docs/behaviour.md, "A client secret's derivation"): twelve
// derivations of client secrets, four at a time as libuv's pool runs them, leave glibc's arenas
// holding their 16 MiB blocks without it, and nothing with it. glibc only (Linux): elsewhere the
// variable means nothing and the test says so.
t.test('the image\'s malloc threshold gives the memory of secret derivations back', async t => {
  const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime
  if (glibc === undefined) {
    t.comment('not glibc: MALLOC_MMAP_THRESHOLD_ does not apply')
    return
  }
  const image = imageMallocEnv(ROOT)
  t.match(image.MALLOC_MMAP_THRESHOLD_, /^\d+$/, 'the image sets MALLOC_MMAP_THRESHOLD_')
  // The derivation of src/auth/clients.ts (its parameters: 16 MiB each), run as the server runs it.
  const probe = 'const { scrypt } = require("node:crypto"); const rss = () => process.memoryUsage().rss / 2 ** 20;' +
    `const derive = (i) => new Promise(r => scrypt("secret-" + i, "salt", 32, ${JSON.stringify(SCRYPT)}, r));` +
    '(async () => { await derive(-1); const before = rss();' +
    ' for (let round = 0; round < 3; round++) await Promise.all([0, 1, 2, 3].map(i => derive(4 * round + i)));' +
    ' process.stdout.write(String(Math.round(rss() - before))) })()'
  const grown = (env: Record<string, string>): number => Number(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } }))
  const without = grown({})
  const withIt = grown(image)
  t.ok(without >= 32, `without it, the derivations' memory stays (${without} MiB more)`)
  t.ok(withIt < 16, `with it, it goes back (${withIt} MiB more)`)
})

t.test('npm ci builds once; npm start only starts', async t => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts
  t.equal(scripts.prepare, 'npm run build', 'npm ci runs the build (prepare)')
  t.equal(scripts.prestart, undefined, 'no build at each start')
  t.match(scripts.dev, /^node scripts\/node-check\.cjs && tsx watch .*src\/server\.ts$/, 'npm run dev restarts on change, after the Node check')
})

/** Builds when the build is missing or older than the sources, as `npm start` would ask. */
let built = false
function ensureBuilt (): void {
  if (built) return
  if (buildProblem(ROOT) !== undefined) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })
  built = true
}

/** The URL the started server's banner names, once it listens (rejects if it exits first); its standard output so far. */
async function listening (child: ReturnType<typeof spawn>): Promise<{ url: string, stdout: () => string }> {
  let stdout = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', chunk => {
      stdout += chunk
      const match = /listening on (http:\/\/\S+)/.exec(stdout)
      if (match !== null) resolve(match[1])
    })
    child.on('exit', code => reject(new Error(`exited with ${code}`)))
  })
  return { url, stdout: () => stdout }
}

/** `npm start` in its own process group, all of which (npm, its shell, the sandbox) is stopped when the test ends. */
function npmStart (t: Test, env: Record<string, string>): ReturnType<typeof spawn> {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true
  })
  t.teardown(() => {
    try { process.kill(-child.pid!, 'SIGTERM') } catch {}
  })
  return child
}

t.test('npm start reports a bad PORT at once, naming it, and exits non-zero', async t => {
  ensureBuilt()
  const started = Date.now()
  const child = npmStart(t, { PORT: 'not-a-port', DATABASE_PATH: ':memory:' })
  let stderr = ''
  child.stderr!.on('data', chunk => { stderr += chunk })
  const code = await new Promise<number | null>(resolve => child.on('exit', resolve))
  const elapsed = Date.now() - started
  t.not(code, 0, 'a non-zero exit')
  t.match(stderr, /Configuration error: PORT must be a whole number from 0 to 65535; got "not-a-port"/)
  t.comment(`reported after ${elapsed} ms`)
  // Under a second on an idle machine (npm's own start included); the bound leaves room for a busy one.
  t.ok(elapsed < 5000, `within seconds (${elapsed} ms), not after a build`)
})

t.test('npm start answers health without building', async t => {
  ensureBuilt()
  const dir = mkdtempSync(join(tmpdir(), 'start-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const started = Date.now()
  const child = npmStart(t, { PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'sandbox.db'), LOG_LEVEL: 'warn' })
  const { url } = await listening(child)
  t.equal((await fetch(`${url}/_sandbox/health`)).status, 200)
  const elapsed = Date.now() - started
  t.comment(`healthy after ${elapsed} ms`)
  t.ok(elapsed < 5000, `healthy within seconds (${elapsed} ms), not after a build`)
})

// How a CI job or a test harness stops what it started: a SIGTERM to the `npm start` process alone,
// not to its group. npm passes it to the shell it runs the script in, not to the sandbox under that
// shell (scripts/start.cjs): the sandbox must stop all the same, and let go of its port and its
// database, rather than run on, orphaned.
t.test('npm start stopped by a SIGTERM to npm alone stops the sandbox and frees its database', async t => {
  ensureBuilt()
  const dir = mkdtempSync(join(tmpdir(), 'start-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const database = join(dir, 'sandbox.db')
  const child = npmStart(t, { PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: database, LOG_LEVEL: 'warn' })
  const { url } = await listening(child)
  t.equal((await fetch(`${url}/_sandbox/health`)).status, 200)
  child.kill('SIGTERM')
  await waitFor(async () => await fetch(`${url}/_sandbox/health`).then(() => false, () => true), { what: 'the sandbox to stop listening', timeoutMs: 10_000 })
  t.pass('the sandbox no longer answers')
  // The sandbox held the file with an exclusive lock while it ran: a write now goes through at once.
  const db = new Database(database, { timeout: 0 })
  t.teardown(() => db.close())
  await waitFor(() => { try { db.exec('BEGIN IMMEDIATE; COMMIT'); return true } catch { return false } }, { what: 'the database to be free', timeoutMs: 10_000 })
  t.pass('its database is free for the next start')
})

// The build keeps V8's code cache for the bundle (src/code-cache.ts), made under the V8 flags of
// `npm start`: V8 takes it under those flags, and a start under others compiles without it.
t.test('the build\'s code cache is taken under the flags of npm start, and a start without them works', async t => {
  ensureBuilt()
  const probe = "import { compileBundle } from './dist/src/code-cache.js'; process.stdout.write(String(compileBundle('dist/server.bundle.cjs', 'dist/server.bundle.cache').cacheUsed))"
  const taken = (flags: string[]): string => execFileSync(process.execPath, [...flags, '--input-type=module', '-e', probe], { cwd: ROOT, env: { PATH: process.env.PATH }, encoding: 'utf8' })
  t.equal(taken(startScript.slice(1, -1)), 'true', 'V8 takes the cache under the flags of npm start')
  t.equal(taken([]), 'false', 'and rejects it under other flags')

  const { url } = await startBuilt(t, { LOG_LEVEL: 'warn' }, ['dist/server.cjs'])
  t.equal((await fetch(`${url}/_sandbox/health`)).status, 200, 'node dist/server.cjs without the flags answers health')
})

/**
 * Starts the build as `npm start` does (scripts/start.cjs, same flags), or node with `args`;
 * resolves once it listens.
 */
async function startBuilt (t: Test, env: Record<string, string>, args = startScript.slice(1)): Promise<{ url: string, stdout: () => string }> {
  ensureBuilt()
  const dir = mkdtempSync(join(tmpdir(), 'start-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'sandbox.db'), ...env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => { child.kill('SIGTERM') })
  return await listening(child)
}

const tokenFor = async (url: string, scope: string): Promise<Response> => await fetch(`${url}/core/oauth2/token`, {
  method: 'POST',
  headers: { authorization: basic('sandbox-demo-client', 'sandbox-demo-secret'), 'content-type': 'application/x-www-form-urlencoded' },
  body: `grant_type=client_credentials&scope=${encodeURIComponent(scope)}`
})

t.test('the built bundle starts, answers health, serves the API description and issues a token', async t => {
  const { url } = await startBuilt(t, { LOG_LEVEL: 'warn' })
  const health = await fetch(`${url}/_sandbox/health`)
  t.equal(health.status, 200)
  const openapi = await fetch(`${url}/openapi.json`)
  t.equal(openapi.status, 200)
  t.match(await openapi.json(), { openapi: '3.1.0', paths: { '/core/users/{userId}/metadata': {} } })
  const token = await tokenFor(url, 'core.users.metadata:read')
  t.equal(token.status, 200)
  const issued = await token.json()
  t.match(issued, { token_type: 'Bearer', scope: 'core.users.metadata:read' })

  // The bundle carries the country data as JSON text (scripts/bundle.js): every country and
  // subdivision the package lists, names outside ASCII included, as the package has them.
  const listed = await fetch(`${url}/core/countries`, { headers: { authorization: `Bearer ${issued.access_token as string}` } })
  t.equal(listed.status, 200)
  const countries = (await listed.json()).countries as Array<{ code: string, name: string, subdivisions: Array<{ code: string, name: string }> }>
  t.same(countries.map(c => [c.code, c.name]).sort(), iso31661.map(c => [c.alpha2, c.name]).sort())
  t.same(countries.flatMap(c => c.subdivisions.map(s => [s.code, s.name])).sort(), iso31662.map(s => [s.code, s.name]).sort())
  t.equal(countries.find(c => c.code === 'AX')?.name, 'Åland Islands')
  t.match(read('dist/server.bundle.cjs'), /\biso31662 = JSON\.parse\(/, 'the subdivisions are JSON text in the bundle')
})

// The bundle carries Fastify, Ajv and its formats, the country list, JSON Patch, the JWT verifier,
// pino and the docs' packages (which find their own files in node_modules at run time): each is
// used here once, as the built server runs it.
t.test('the built bundle validates, stores, patches, serves the docs and the dashboard, and logs', async t => {
  const { url, stdout } = await startBuilt(t, { LOG_LEVEL: 'info' })
  const issued = await tokenFor(url, 'core.users:create core.users.metadata:read core.users.metadata:write core.users:act-on-behalf-of')
  t.equal(issued.status, 200)
  const token = (await issued.json()).access_token as string
  const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-service-user-ip': '47.174.97.164' }
  const user = { email: 'bundle@example.com', termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' }, metadata: { tier: 'gold' } }

  const invalid = await fetch(`${url}/core/users`, { method: 'POST', headers: json, body: JSON.stringify({ ...user, email: 'not-an-email', primaryCitizenship: 'XX' }) })
  t.equal(invalid.status, 400)
  t.match(await invalid.json(), {
    code: 'request_invalid',
    details: { context: 'body', violations: [{ property: 'email', rule: 'format' }, { property: 'primaryCitizenship', rule: 'format', ruleParams: { format: 'country-code' } }] }
  })

  const created = await fetch(`${url}/core/users`, { method: 'POST', headers: json, body: JSON.stringify(user) })
  t.equal(created.status, 201)
  const acting = { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${(await created.json()).user.id as string}` }
  const read = await fetch(`${url}/core/users/me/metadata`, { headers: acting })
  t.equal(read.status, 200)
  t.same(await read.json(), { metadata: { tier: 'gold' } })
  const etag = read.headers.get('etag')!
  t.equal((await fetch(`${url}/core/users/me/metadata`, { headers: { ...acting, 'if-none-match': etag } })).status, 304)
  const patched = await fetch(`${url}/core/users/me/metadata`, {
    method: 'PATCH',
    headers: { ...acting, 'content-type': 'application/json-patch+json', 'if-match': etag },
    body: JSON.stringify([{ op: 'replace', path: '/tier', value: 'silver' }, { op: 'add', path: '/seen', value: true }])
  })
  t.equal(patched.status, 200)
  t.same(await patched.json(), { metadata: { tier: 'silver', seen: true } })
  t.not(patched.headers.get('etag'), etag)

  const docs = await fetch(`${url}/docs`)
  t.equal(docs.status, 200)
  t.match(await docs.text(), /swagger-ui/)
  const css = await fetch(`${url}/docs/static/swagger-ui.css`)
  t.equal(css.status, 200)
  t.match(css.headers.get('content-type'), /^text\/css/)
  // The docs page's own files, read from its package's folder (scripts/bundle.js, PACKAGE_DIRS).
  const logo = await fetch(`${url}/docs/static/logo.svg`)
  t.equal(logo.status, 200)
  t.match(await logo.text(), /<svg /)
  const yaml = await fetch(`${url}/docs/yaml`)
  t.equal(yaml.status, 200)
  t.match(await yaml.text(), /^openapi: 3\.1\.0/m)
  const dashboard = await fetch(`${url}/_sandbox/`)
  t.equal(dashboard.status, 200)
  t.match(dashboard.headers.get('content-type'), /^text\/html/)

  // Log lines are written in batches, at least every 100 ms: wait for the PATCH's line to come out.
  const lines = (): Array<Record<string, unknown>> => stdout().split('\n').filter(line => line.startsWith('{') && line.endsWith('}')).map(line => JSON.parse(line) as Record<string, unknown>)
  await waitFor(() => lines().some(line => line.method === 'PATCH'), { what: 'the PATCH request line on standard output' })
  t.match(lines().find(line => line.method === 'PATCH'), { level: 30, path: '/core/users/me/metadata', status: 200, clientId: 'sandbox-demo-client', msg: 'request' })
})

/** A self-signed certificate for localhost and 127.0.0.1, made with openssl in `dir`; its PEM files. */
function selfSigned (dir: string, name: string): { key: string, cert: string, certFile: string } {
  const keyFile = join(dir, `${name}.key`)
  const certFile = join(dir, `${name}.crt`)
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' })
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile }
}

// The dispatcher loads node:https at the first https delivery (src/webhooks/dispatcher.ts), which
// the bundle resolves as it was built to: only the built server shows that it works.
t.test('the built server delivers a signed webhook over https, and records a certificate it does not trust as a failed attempt', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'https-hooks-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const trustedTls = selfSigned(dir, 'trusted')
  const trusted = await startReceiver(t, undefined, [0], trustedTls)
  const untrusted = await startReceiver(t, undefined, [0], selfSigned(dir, 'untrusted'))
  // Node's way to trust a certificate authority more, as an operator would for an internal receiver.
  const { url } = await startBuilt(t, { LOG_LEVEL: 'warn', NODE_EXTRA_CA_CERTS: trustedTls.certFile })

  const endpoint = async (target: string): Promise<{ id: string, secret: string }> => {
    const res = await fetch(`${url}/_sandbox/webhooks/endpoints`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: target, eventTypes: ['core.user.created'] }) })
    t.equal(res.status, 201)
    return (await res.json() as { endpoint: { id: string, secret: string } }).endpoint
  }
  const good = await endpoint(trusted.url)
  const bad = await endpoint(untrusted.url)

  const token = (await (await tokenFor(url, 'core.users:create')).json() as { access_token: string }).access_token
  const created = await fetch(`${url}/core/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-service-user-ip': '47.174.97.164' },
    body: JSON.stringify({ email: 'https-hooks@example.com', termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } })
  })
  t.equal(created.status, 201)
  const userId = (await created.json() as { user: { id: string } }).user.id

  const [delivery] = await trusted.waitFor(1)
  const event = new Webhook(good.secret).verify(delivery.body, delivery.headers as Record<string, string>) as { type: string, data: { user: { id: string } } }
  t.match(event, { type: 'core.user.created', data: { user: { id: userId } } }, 'signed with the endpoint\'s secret')

  type Listed = { endpointId: string, status: string, attempts: Array<{ statusCode: number | null, error: string | null }> }
  const messages = async (): Promise<Listed[]> => (await (await fetch(`${url}/_sandbox/webhooks/messages`)).json() as { messages: Listed[] }).messages
  await waitFor(async () => (await messages()).some(m => m.endpointId === bad.id && m.attempts.length > 0), { what: 'the attempt at the untrusted receiver' })
  const refused = (await messages()).find(m => m.endpointId === bad.id)!
  t.equal(untrusted.received.length, 0, 'nothing reached the receiver whose certificate is not trusted')
  t.match(refused, { status: 'pending', attempts: [{ statusCode: null, error: /self[- ]signed certificate/i }] }, 'a failed attempt, to be retried')
  t.match((await messages()).find(m => m.endpointId === good.id), { status: 'delivered', attempts: [{ statusCode: 200 }] })
})
