// Shared test helpers: build the app on an in-memory database with a controllable clock, get
// tokens the way an integrator does, and make clients and users directly in storage.
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp, type BuildOptions } from '../src/app.js'
import { testConfig, type Config } from '../src/config.js'
import { Clock } from '../src/clock.js'
import { allScopes } from '../src/auth/scopes.js'
import { openStorage, type Storage, type UserRecord } from '../src/storage/index.js'
import { openPostgres, openSqlite, type Db } from '../src/storage/db.js'
import { testDatabase } from './pg.js'
import { Writable } from 'node:stream'

export const DEMO_ID = 'sandbox-demo-client'
export const DEMO_SECRET = 'sandbox-demo-secret'
export const DEMO_ORG = '00000000-0000-4000-8000-000000000001'

interface Teardown { teardown: (fn: () => unknown) => void }

/**
 * The storage backend the suite runs on: SQLite by default; PostgreSQL when SANDBOX_TEST_BACKEND
 * is `postgres`, on the server at TEST_DATABASE_URL (see test/pg.ts).
 */
export const backend: 'sqlite' | 'postgres' = process.env.SANDBOX_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite'

/**
 * A fresh app with a frozen clock at a fixed instant, closed when the test ends: on `:memory:`, or
 * on PostgreSQL a database of its own, copied from the migrated template.
 */
export async function build (t: Teardown, overrides: Partial<Config> = {}, options: Partial<BuildOptions> = {}): Promise<FastifyInstance> {
  const clock = options.clock ?? new Clock()
  if (options.clock === undefined) clock.freeze(true)
  const config = testConfig(overrides)
  const watch = overrides.logLevel === undefined && options.logStream === undefined ? answeredTwiceWatch() : undefined
  if (watch !== undefined) {
    config.logLevel = 'warn'
    options = { ...options, logStream: watch.stream }
  }
  if (backend === 'postgres' && options.storage === undefined && config.databaseUrl === undefined) {
    await pendingDatabases.get(config.databasePath)
    config.databaseUrl = databaseUrls.get(config.databasePath) ?? await testDatabase(t)
  }
  const app = await buildApp({ config, clock, ...options })
  // Registered once the app is built: a teardown on tap's root test makes it end when idle, and a
  // test file that builds its app at the top level awaits the build between its subtests.
  t.teardown(async () => {
    await app.close()
    watch?.check()
  })
  if (backend === 'postgres' && options.clock === undefined) {
    // Stored for the replicas, as a freeze through the API is: a refresh that reads the stored
    // clocks again (after an organization's clock moved) then finds it frozen, not running.
    clock.freeze(true)
    await clock.settle()
  }
  return app
}

// What Fastify and Node log when a request is answered twice (a handler that sends and then
// returns something else, a hook that sends after the handler did): the client got one answer and
// the second is lost, so no test sees it in a status or a body.
const ANSWERED_TWICE = /FST_ERR_REP_ALREADY_SENT|Reply was already sent|ERR_HTTP_HEADERS_SENT/

/**
 * The log sink of an app a test builds without a log of its own: warnings and errors are read and
 * dropped; `check` (at the test's end) throws if any said a request was answered twice.
 */
function answeredTwiceWatch (): { stream: Writable, check: () => void } {
  const seen: string[] = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      const line = chunk.toString('utf8')
      if (ANSWERED_TWICE.test(line)) seen.push(line)
      done()
    }
  })
  return {
    stream,
    check: () => { if (seen.length > 0) throw new Error(`a request was answered twice:\n${seen.join('\n')}`) }
  }
}

/** The PostgreSQL database behind each path `fileDatabasePath` answered, and those being made. */
const databaseUrls = new Map<string, string>()
const pendingDatabases = new Map<string, Promise<void>>()

/**
 * A database with nothing in it, not even the migrations, on the suite's backend (`:memory:`, or
 * on PostgreSQL a database of its own, emptied), closed when the test ends: for tests that apply
 * migrations themselves.
 */
export async function emptyDatabase (t: Teardown): Promise<Db> {
  let db: Db
  if (backend === 'postgres') {
    db = await openPostgres({ url: await testDatabase(t) })
    // The test databases are copies of a migrated template: emptied here.
    await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public')
  } else {
    db = openSqlite(':memory:')
  }
  t.teardown(() => db.close())
  return db
}

/**
 * A database that outlives one app, for tests that restart the sandbox: a file in a temporary
 * directory, removed when the test ends; on PostgreSQL, a database of its own standing for it
 * (`build` and `databaseEnv` use it).
 */
export function fileDatabasePath (t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'sandbox.db')
  if (backend === 'postgres') pendingDatabases.set(path, testDatabase(t).then(url => { databaseUrls.set(path, url) }))
  return path
}

/** The environment that points a sandbox process at the database of `path` (`fileDatabasePath`). */
export async function databaseEnv (path: string): Promise<Record<string, string>> {
  await pendingDatabases.get(path)
  const url = databaseUrls.get(path)
  return url === undefined ? { DATABASE_PATH: path } : { DATABASE_PATH: path, DATABASE_URL: url }
}

/** Opens the storage of `path` (`fileDatabasePath`, or `:memory:`) on the suite's backend. */
export async function openTestStorage (t: Teardown, path = ':memory:'): Promise<Storage> {
  let databaseUrl: string | undefined
  if (backend === 'postgres') {
    await pendingDatabases.get(path)
    databaseUrl = databaseUrls.get(path) ?? await testDatabase(t)
  }
  return await openStorage({ databasePath: path, databaseUrl })
}

/**
 * Keeps the write that follows from committing until `release`: on PostgreSQL another replica's
 * write holds the one write lock, so the storage's next write waits for it while reads go on. On
 * SQLite the process owns its database: a write starts at once, and only the memo, answered before
 * it runs, can show what a read sees meanwhile.
 */
export async function writeLockHeldElsewhere (t: Teardown, path: string): Promise<() => void> {
  if (backend === 'sqlite') return () => {}
  const other = await openTestStorage(t, path)
  t.teardown(() => other.close())
  let release = (): void => {}
  const released = new Promise<void>(resolve => { release = resolve })
  let holding = (): void => {}
  const held = new Promise<void>(resolve => { holding = resolve })
  other.db.write(async () => { holding(); await released }).catch(() => {})
  await held
  return release
}

export const basic = (id: string, secret: string): string =>
  'Basic ' + Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')

/** POST /core/oauth2/token with a form body, as a client would. */
export function tokenRequest (app: FastifyInstance, form: Record<string, string>, authorization?: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/core/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization === undefined ? {} : { authorization }) },
    payload: new URLSearchParams(form).toString()
  })
}

/** An access token of a client (the demo client by default). */
export async function accessToken (app: FastifyInstance, opts: { clientId?: string, secret?: string, scope?: string } = {}): Promise<string> {
  const form: Record<string, string> = { grant_type: 'client_credentials' }
  if (opts.scope !== undefined) form.scope = opts.scope
  const res = await tokenRequest(app, form, basic(opts.clientId ?? DEMO_ID, opts.secret ?? DEMO_SECRET))
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`)
  return res.json().access_token as string
}

/** Creates an organization and a client in it, directly in storage. */
export async function makeClient (app: FastifyInstance, opts: { organizationId?: string, scopes?: string[], refreshTokens?: boolean, userId?: string | null, clientId?: string, secret?: string } = {}): Promise<{ clientId: string, secret: string, organizationId: string }> {
  const organizationId = opts.organizationId ?? randomUUID()
  await app.storage.organizations.ensure(organizationId, `Org ${organizationId.slice(0, 8)}`, app.clock.iso())
  const clientId = opts.clientId ?? `client-${randomUUID()}`
  const secret = opts.secret ?? `secret-${randomUUID()}`
  await app.clients.create({
    clientId,
    clientSecret: secret,
    organizationId,
    scopes: opts.scopes ?? Object.keys(allScopes(app.config.partnerArea)),
    refreshTokens: opts.refreshTokens ?? false,
    userId: opts.userId ?? null
  })
  return { clientId, secret, organizationId }
}

/** Creates a user directly in storage (no event). */
export async function makeUser (app: FastifyInstance, organizationId: string = DEMO_ORG, email = `user-${randomUUID()}@example.com`): Promise<UserRecord> {
  await app.storage.organizations.ensure(organizationId, 'Org', app.clock.iso())
  const id = randomUUID()
  const now = app.clock.iso()
  const user: UserRecord = {
    id,
    organizationId,
    email,
    createdAt: now,
    record: { id, type: 'individual', email, primaryCitizenship: 'GB', address: { country: 'GB' }, createdAt: now, updatedAt: now }
  }
  const created = await app.storage.users.create(user, [])
  if (created === undefined) throw new Error('duplicate email')
  return created
}

// The EEA countries whose users accept general-lt-fcs (PT has terms of its own).
const EEA = ['AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'RO', 'SK', 'SI', 'ES', 'SE', 'IS', 'LI', 'NO']

/** The general terms of service a user residing in `country` accepts at creation (POST /core/users checks them). */
export const generalTerms = (country: string): string =>
  ({ US: 'general-us-hq', GB: 'general-gb-fca', PT: 'general-pt-bop' } as Record<string, string>)[country] ?? (EEA.includes(country) ? 'general-lt-fcs' : 'general-bs-scb')

/** The end user's IP header POST /core/users needs, under a service name. */
export const userIp = (serviceName = 'service'): Record<string, string> => ({ [`x-${serviceName}-user-ip`]: '47.174.97.164' })

export const bearer = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` })
export const onBehalfOf = (userId: string): { 'x-on-behalf-of': string } => ({ 'x-on-behalf-of': `user ${userId}` })
export const REQUEST_ID = 'x-service-request-id'
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/**
 * Polls `condition` until it holds, for what happens in the background (a batch written at the end
 * of a turn or on a timer, a child process's output); throws after `timeoutMs` naming `what`.
 */
export async function waitFor (condition: () => boolean | Promise<boolean>, { timeoutMs = 5000, intervalMs = 5, what = 'the condition' }: { timeoutMs?: number, intervalMs?: number, what?: string } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, intervalMs))
  }
}

/** A loopback port nothing listens on (a connection to it is refused). */
export async function closedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise(resolve => server.close(resolve))
  return port
}
