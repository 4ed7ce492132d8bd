// The one place that reads the environment. The core declares its own variables here; each area
// declares the variables it reads in its folder (`config` of its defineArea), and they are read
// here from the registry of src/areas.ts. Every variable has a default; a bad value stops the
// server at start with a message that names the variable and what it accepts.
import { parseArgs } from 'node:util'
import { ConfigError, integerVariable, nameVariable, readVariables, variable, type ConfigSource, type ConfigValues, type ConfigVariable } from './kit/config.js'
import { areas, type AreasConfig } from './areas.js'

export { ConfigError }

/** The core's configuration; the areas' is typed from their declarations (AreasConfig). */
export interface CoreConfig {
  port: number
  host: string
  databasePath: string
  /** PostgreSQL instead of the SQLite file: `postgres://user:password@host:port/database`. */
  databaseUrl: string | undefined
  databaseConnectTimeoutSeconds: number
  /** PostgreSQL connections of this process at most. */
  databasePoolSize: number
  /** Whom to believe about the client address (`X-Forwarded-For`): false, a hop count, or addresses/CIDRs. */
  trustProxy: boolean | number | string[]
  serviceName: string
  publicUrl: string
  tokenTtlSeconds: number
  refreshTokenTtlSeconds: number
  refreshTokenRetentionSeconds: number
  adminToken: string | undefined
  demoClient: { clientId: string, clientSecret: string, secretFromEnv: boolean, organizationId: string }
  logLevel: string
  bodyLimitBytes: number
  requestTimeoutMs: number
  maxConnections: number
  rateLimitPerMinute: number
}

/** Everything the server reads: `app.config`. */
export type Config = CoreConfig & AreasConfig

export const DEFAULT_DEMO_CLIENT_ID = 'sandbox-demo-client'
export const DEFAULT_DEMO_CLIENT_SECRET = 'sandbox-demo-secret'
export const DEFAULT_DEMO_ORGANIZATION_ID = '00000000-0000-4000-8000-000000000001'

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** DATABASE_URL, checked: a postgres:// URL with a database name. The message never holds the password. */
function databaseUrl (raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined
  let url: URL | undefined
  try { url = new URL(raw.trim()) } catch {}
  if (url === undefined || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || url.hostname === '' || url.pathname.replace(/^\//, '') === '') {
    throw new ConfigError('DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/database')
  }
  return raw.trim()
}

function trustProxy (value: string | undefined): boolean | number | string[] {
  const raw = (value ?? '').trim()
  if (raw === '' || raw === 'false') return false
  if (raw === 'true') return true
  if (/^\d+$/.test(raw)) return Number(raw)
  const entries = raw.split(',').map(s => s.trim())
  if (entries.some(e => !/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(e))) {
    throw new ConfigError(`TRUST_PROXY must be a hop count, or comma-separated addresses or CIDRs of the proxies; got "${raw}"`)
  }
  return entries
}

function publicUrl (raw: string | undefined): string {
  if (raw === undefined) return ''
  let url: URL
  try { url = new URL(raw) } catch { throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL; got "${raw}"`) }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL; got "${raw}"`)
  return raw.replace(/\/+$/, '')
}

/** The core's variables, in the order the documentation lists them. */
export const CORE_VARIABLES = [
  integerVariable({ key: 'port', name: 'PORT', flag: '--port', default: 8080, min: 0, max: 65535, description: 'TCP port to listen on (0 picks a free one).' }),
  variable({ key: 'host', name: 'HOST', flag: '--host', default: '127.0.0.1', description: 'Address to listen on. Beyond loopback, SANDBOX_ADMIN_TOKEN is required.', parse: raw => raw ?? '127.0.0.1' }),
  variable({ key: 'databasePath', name: 'DATABASE_PATH', flag: '--database', default: './data/sandbox.db', description: 'SQLite file (created with its folder on demand) or `:memory:`.', parse: raw => raw ?? './data/sandbox.db' }),
  variable({ key: 'databaseUrl', name: 'DATABASE_URL', description: 'PostgreSQL 15+ instead of the SQLite file (`postgres://user:password@host:port/database`): any number of replicas on it behave as one sandbox.', parse: databaseUrl }),
  integerVariable({ key: 'databasePoolSize', name: 'DATABASE_POOL_SIZE', default: 10, min: 2, max: 100, description: 'Connections each replica keeps to PostgreSQL at most: one carries the group commit, the others the reads (plus one each replica keeps apart to hear the others\' events). Ignored on SQLite.' }),
  integerVariable({ key: 'databaseConnectTimeoutSeconds', name: 'DATABASE_CONNECT_TIMEOUT_SECONDS', default: 30, min: 0, max: 3600, description: 'How long the server tries to reach PostgreSQL at start (one line per attempt) before it exits with code 2.' }),
  variable({ key: 'trustProxy', name: 'TRUST_PROXY', description: 'Whether the client address comes from `X-Forwarded-For` (request log, limits): unset trusts nobody; a hop count (`1`), or comma-separated addresses and CIDRs of the proxies.', parse: trustProxy }),
  nameVariable({ key: 'serviceName', name: 'SERVICE_NAME', default: 'service', description: 'Names the headers `x-<name>-request-id`, `x-<name>-organization-id` and the end user context headers (`X-<name>-User-Ip`, `-User-Agent`, ...: `X-Service-User-Ip` by default).' }),
  variable({ key: 'publicUrl', name: 'PUBLIC_URL', shownDefault: 'http://<host>:<port>', description: 'Base URL used in management links and the banner.', parse: publicUrl }),
  integerVariable({ key: 'tokenTtlSeconds', name: 'TOKEN_TTL_SECONDS', default: 600, min: 1, max: 31_536_000, description: 'Access token lifetime (`expires_in`).' }),
  integerVariable({ key: 'refreshTokenTtlSeconds', name: 'REFRESH_TOKEN_TTL_SECONDS', default: 2_592_000, min: 1, max: 315_360_000, description: 'Refresh token lifetime (30 days).' }),
  integerVariable({ key: 'refreshTokenRetentionSeconds', name: 'REFRESH_TOKEN_RETENTION_SECONDS', default: 604_800, min: 0, max: 315_360_000, description: 'Refresh tokens expired longer than this (on their organization\'s sandbox clock) are deleted, checked at start and periodically; until then an expired token answers `Token expired`, after it is unknown (`invalid_grant`). 0: kept forever.' }),
  variable({
    key: 'adminToken',
    name: 'SANDBOX_ADMIN_TOKEN',
    description: 'Bearer token guarding `/_sandbox/*`; required when HOST is not loopback.',
    parse: raw => {
      if (raw !== undefined && raw.length < 16) throw new ConfigError('SANDBOX_ADMIN_TOKEN must be at least 16 characters')
      return raw
    }
  }),
  variable({
    key: 'demoClientId',
    name: 'SANDBOX_CLIENT_ID',
    default: DEFAULT_DEMO_CLIENT_ID,
    description: 'Id of the demo client created at first start with every scope and refresh tokens on.',
    parse: raw => {
      const id = raw ?? DEFAULT_DEMO_CLIENT_ID
      if (!/^[\x21-\x7e]{1,128}$/.test(id)) throw new ConfigError('SANDBOX_CLIENT_ID must be 1 to 128 printable ASCII characters without spaces')
      return id
    }
  }),
  variable({ key: 'demoClientSecret', name: 'SANDBOX_CLIENT_SECRET', shownDefault: DEFAULT_DEMO_CLIENT_SECRET, parse: raw => raw, description: 'Secret of the demo client (never printed when set here).' }),
  variable({
    key: 'demoOrganizationId',
    name: 'SANDBOX_ORGANIZATION_ID',
    default: DEFAULT_DEMO_ORGANIZATION_ID,
    description: 'Organization of the demo client.',
    parse: raw => {
      const id = raw ?? DEFAULT_DEMO_ORGANIZATION_ID
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) throw new ConfigError(`SANDBOX_ORGANIZATION_ID must be a lowercase UUID; got "${id}"`)
      return id
    }
  }),
  variable({
    key: 'logLevel',
    name: 'LOG_LEVEL',
    flag: '--log-level',
    default: 'info',
    description: 'pino level: fatal, error, warn, info, debug, trace or silent.',
    parse: raw => {
      const level = raw ?? 'info'
      if (!LOG_LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${level}"`)
      return level
    }
  }),
  integerVariable({ key: 'bodyLimitBytes', name: 'BODY_LIMIT_BYTES', default: 1_048_576, min: 1024, max: 104_857_600, description: 'Largest request body accepted (413 beyond).' }),
  integerVariable({ key: 'requestTimeoutMs', name: 'REQUEST_TIMEOUT_MS', default: 30_000, min: 100, max: 600_000, description: 'How long a client may take to send a whole request, headers and body (408 and the connection closed beyond).' }),
  integerVariable({ key: 'maxConnections', name: 'MAX_CONNECTIONS', default: 1024, min: 1, max: 1_000_000, description: 'Open connections the server keeps at once; beyond, a new connection is closed as soon as it is accepted, without an answer, while the open ones are served.' }),
  integerVariable({ key: 'rateLimitPerMinute', name: 'RATE_LIMIT_PER_MINUTE', default: 0, min: 0, max: 10_000_000, description: 'Requests per minute per client before 429 `too_many_requests` (0: off). Failed authentications (401) count too: that many per minute per address, and per client id at the token endpoint.' })
] as const

type CoreValues = ConfigValues<typeof CORE_VARIABLES>

/** Every variable the server reads, the core's then each area's in area order: the source of `.env.example` and docs/configuration.md. */
export const VARIABLES: readonly ConfigVariable[] = [...CORE_VARIABLES, ...areas.flatMap(a => a.config ?? [])]

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)

/** Reads flags (`--port 9000`) over environment variables over defaults. Throws ConfigError. */
export function loadConfig (env: ConfigSource = {}, argv: string[] = []): Config {
  const names = new Set<string>()
  for (const v of VARIABLES) {
    if (names.has(v.name)) throw new Error(`Two declarations of the variable ${v.name}`)
    names.add(v.name)
  }
  const src: ConfigSource = { ...env }
  const flagged = VARIABLES.filter(v => v.flag !== undefined)
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(flagged.map(v => [v.flag!.slice(2), { type: 'string' as const }]))
    })
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}. Flags: ${flagged.map(v => v.flag).join(', ')}`)
  }
  for (const v of flagged) {
    const value = (parsed.values as Record<string, string | undefined>)[v.flag!.slice(2)]
    if (value !== undefined) src[v.name] = value
  }

  const { demoClientId, demoClientSecret, demoOrganizationId, ...core } = readVariables(CORE_VARIABLES, src) as CoreValues
  if (core.adminToken === undefined && !isLoopback(core.host)) {
    throw new ConfigError(`HOST is ${core.host}, beyond loopback: set SANDBOX_ADMIN_TOKEN so the sandbox control API is not open to the network`)
  }
  const demoClient = {
    clientId: demoClientId,
    clientSecret: demoClientSecret ?? DEFAULT_DEMO_CLIENT_SECRET,
    secretFromEnv: demoClientSecret !== undefined,
    organizationId: demoOrganizationId
  }
  const areasConfig = readVariables(areas.flatMap(a => a.config ?? []), src) as AreasConfig
  return { ...core, demoClient, ...areasConfig }
}

/** A config for tests and embedding: defaults with an in-memory database and silent logs. */
export function testConfig (overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ DATABASE_PATH: ':memory:', LOG_LEVEL: 'silent' }), ...overrides }
}
