// The one place that reads the environment. Every field has a default; a bad value stops the
// server at start with a message that names the variable and what it accepts.
import { parseArgs } from 'node:util'

export interface Config {
  port: number
  host: string
  databasePath: string
  /** PostgreSQL instead of the SQLite file: `postgres://user:password@host:port/database`. */
  databaseUrl: string | undefined
  databaseConnectTimeoutSeconds: number
  /** Whom to believe about the client address (`X-Forwarded-For`): false, a hop count, or addresses/CIDRs. */
  trustProxy: boolean | number | string[]
  serviceName: string
  partnerArea: string
  publicUrl: string
  tokenTtlSeconds: number
  refreshTokenTtlSeconds: number
  managementLinkTtlSeconds: number
  adminToken: string | undefined
  demoClient: { clientId: string, clientSecret: string, secretFromEnv: boolean, organizationId: string }
  logLevel: string
  seedFile: string | undefined
  webhookRetrySchedule: number[]
  webhookTimeoutMs: number
  webhookSecretGraceSeconds: number
  webhookRetentionSeconds: number
  requestLogSize: number
  bodyLimitBytes: number
  requestTimeoutMs: number
  maxConnections: number
  rateLimitPerMinute: number
  unsupportedCountries: string[]
  kycReviewDelaySeconds: number
  cardCheckDelaySeconds: number
  transactionSettlementSeconds: number
  achSettlementSeconds: number
  rfiExpirySeconds: number
}

export class ConfigError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

export const DEFAULT_DEMO_CLIENT_ID = 'sandbox-demo-client'
export const DEFAULT_DEMO_CLIENT_SECRET = 'sandbox-demo-secret'
export const DEFAULT_DEMO_ORGANIZATION_ID = '00000000-0000-4000-8000-000000000001'

/** Every variable the server reads, with its default and meaning: the source of `.env.example` and the README table. */
export const VARIABLES: Array<{ name: string, flag?: string, default: string, description: string }> = [
  { name: 'PORT', flag: '--port', default: '8080', description: 'TCP port to listen on (0 picks a free one).' },
  { name: 'HOST', flag: '--host', default: '127.0.0.1', description: 'Address to listen on. Beyond loopback, SANDBOX_ADMIN_TOKEN is required.' },
  { name: 'DATABASE_PATH', flag: '--database', default: './data/sandbox.db', description: 'SQLite file (created with its folder on demand) or `:memory:`.' },
  { name: 'DATABASE_URL', default: '(unset)', description: 'PostgreSQL 15+ instead of the SQLite file (`postgres://user:password@host:port/database`): any number of replicas on it behave as one sandbox.' },
  { name: 'DATABASE_CONNECT_TIMEOUT_SECONDS', default: '30', description: 'How long the server tries to reach PostgreSQL at start (one line per attempt) before it exits with code 2.' },
  { name: 'TRUST_PROXY', default: '(unset)', description: 'Whether the client address comes from `X-Forwarded-For` (request log, limits): unset trusts nobody; a hop count (`1`), or comma-separated addresses and CIDRs of the proxies.' },
  { name: 'SERVICE_NAME', default: 'service', description: 'Names the headers `x-<name>-request-id`, `x-<name>-organization-id` and the end user context headers (`X-<name>-User-Ip`, `-User-Agent`, ...: `X-Service-User-Ip` by default).' },
  { name: 'PARTNER_AREA', default: 'partner', description: 'First path segment of `/<partner>/kyc-sharing/...` and of its scope.' },
  { name: 'PUBLIC_URL', default: 'http://<host>:<port>', description: 'Base URL used in management links and the banner.' },
  { name: 'TOKEN_TTL_SECONDS', default: '600', description: 'Access token lifetime (`expires_in`).' },
  { name: 'REFRESH_TOKEN_TTL_SECONDS', default: '2592000', description: 'Refresh token lifetime (30 days).' },
  { name: 'MANAGEMENT_LINK_TTL_SECONDS', default: '3600', description: 'Lifetime of a webhook management link.' },
  { name: 'SANDBOX_ADMIN_TOKEN', default: '(unset)', description: 'Bearer token guarding `/_sandbox/*`; required when HOST is not loopback.' },
  { name: 'SANDBOX_CLIENT_ID', default: DEFAULT_DEMO_CLIENT_ID, description: 'Id of the demo client created at first start with every scope and refresh tokens on.' },
  { name: 'SANDBOX_CLIENT_SECRET', default: DEFAULT_DEMO_CLIENT_SECRET, description: 'Secret of the demo client (never printed when set here).' },
  { name: 'SANDBOX_ORGANIZATION_ID', default: DEFAULT_DEMO_ORGANIZATION_ID, description: 'Organization of the demo client.' },
  { name: 'LOG_LEVEL', flag: '--log-level', default: 'info', description: 'pino level: fatal, error, warn, info, debug, trace or silent.' },
  { name: 'SEED_FILE', flag: '--seed', default: '(unset)', description: 'Fixture file (JSON) loaded at start, as `POST /_sandbox/fixtures` would.' },
  { name: 'WEBHOOK_RETRY_SCHEDULE', default: '5,30,120,600,1800', description: 'Seconds between delivery attempts after a failure (comma-separated).' },
  { name: 'WEBHOOK_TIMEOUT_MS', default: '5000', description: 'How long a webhook receiver may take before the attempt counts as failed.' },
  { name: 'WEBHOOK_SECRET_GRACE_SECONDS', default: '86400', description: 'After a signing-secret rotation, how long the replaced secret keeps signing deliveries beside the new one (sandbox clock; 0: it stops at once).' },
  { name: 'WEBHOOK_RETENTION_SECONDS', default: '604800', description: 'Delivered and finally failed webhook messages, with their attempts, and management links expired longer than this are deleted (sandbox clock; checked at start and periodically; 0: kept forever).' },
  { name: 'REQUEST_LOG_SIZE', default: '1000', description: 'How many requests the request log keeps (oldest dropped).' },
  { name: 'BODY_LIMIT_BYTES', default: '1048576', description: 'Largest request body accepted (413 beyond).' },
  { name: 'REQUEST_TIMEOUT_MS', default: '30000', description: 'How long a client may take to send a whole request, headers and body (408 and the connection closed beyond).' },
  { name: 'MAX_CONNECTIONS', default: '1024', description: 'Open connections the server keeps at once; beyond, a new connection is closed as soon as it is accepted, without an answer, while the open ones are served.' },
  { name: 'RATE_LIMIT_PER_MINUTE', default: '0', description: 'Requests per minute per client before 429 `too_many_requests` (0: off). Failed authentications (401) count too: that many per minute per address, and per client id at the token endpoint.' },
  { name: 'KYC_REVIEW_DELAY_SECONDS', default: '5', description: 'How long (sandbox clock) the service takes to review KYC data it verifies itself (uphold-verified submissions, screening, risk) before the outcome; `POST /_sandbox/users/{userId}/kyc/{process}` forces one at once.' },
  { name: 'TRANSACTION_SETTLEMENT_SECONDS', default: '5', description: 'How long (sandbox clock) a processing transaction takes to complete by itself; `POST /_sandbox/transactions/{transactionId}/status` moves it at once.' },
  { name: 'ACH_SETTLEMENT_SECONDS', default: '60', description: 'How long (sandbox clock) the funds of a simulated ACH deposit stay unsettled: counted in `total` but not in `available`.' },
  { name: 'RFI_EXPIRY_SECONDS', default: '604800', description: 'How long (sandbox clock) a request for information stays pending before it expires, failing its transaction on hold (`travel-rule-verification-failed`).' },
  { name: 'CARD_CHECK_DELAY_SECONDS', default: '5', description: 'How long (sandbox clock) the service takes to check a new card before it turns `ok`; `POST /_sandbox/external-accounts/{externalAccountId}/status` sets its status at once.' },
  { name: 'UNSUPPORTED_COUNTRIES', default: 'CU,IR,KP,SY', description: 'ISO 3166-1 codes that carry every restriction scope in the catalogue: answered 409 `country_not_supported`.' }
]

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

type Source = Record<string, string | undefined>

function integer (src: Source, name: string, fallback: number, min: number, max: number): number {
  const raw = src[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}; got "${raw}"`)
  const value = Number(raw.trim())
  if (value < min || value > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}; got "${raw}"`)
  return value
}

function name (src: Source, key: string, fallback: string): string {
  const raw = src[key]
  if (raw === undefined || raw === '') return fallback
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(raw)) throw new ConfigError(`${key} must be lowercase letters, digits and dashes, starting with a letter; got "${raw}"`)
  return raw
}

/** DATABASE_URL, checked: a postgres:// URL with a database name. The message never holds the password. */
function databaseUrl (src: Source): string | undefined {
  const raw = src.DATABASE_URL
  if (raw === undefined || raw.trim() === '') return undefined
  let url: URL | undefined
  try { url = new URL(raw.trim()) } catch {}
  if (url === undefined || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || url.hostname === '' || url.pathname.replace(/^\//, '') === '') {
    throw new ConfigError('DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/database')
  }
  return raw.trim()
}

function trustProxy (src: Source): boolean | number | string[] {
  const raw = (src.TRUST_PROXY ?? '').trim()
  if (raw === '' || raw === 'false') return false
  if (raw === 'true') return true
  if (/^\d+$/.test(raw)) return Number(raw)
  const entries = raw.split(',').map(s => s.trim())
  if (entries.some(e => !/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(e))) {
    throw new ConfigError(`TRUST_PROXY must be a hop count, or comma-separated addresses or CIDRs of the proxies; got "${raw}"`)
  }
  return entries
}

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)

/** Reads flags (`--port 9000`) over environment variables over defaults. Throws ConfigError. */
export function loadConfig (env: Source = {}, argv: string[] = []): Config {
  const src: Source = { ...env }
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(VARIABLES.filter(v => v.flag !== undefined).map(v => [v.flag!.slice(2), { type: 'string' as const }]))
    })
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}. Flags: ${VARIABLES.filter(v => v.flag).map(v => v.flag).join(', ')}`)
  }
  for (const v of VARIABLES) {
    const value = v.flag === undefined ? undefined : (parsed.values as Record<string, string | undefined>)[v.flag.slice(2)]
    if (value !== undefined) src[v.name] = value
  }

  const port = integer(src, 'PORT', 8080, 0, 65535)
  const host = src.HOST !== undefined && src.HOST !== '' ? src.HOST : '127.0.0.1'
  const adminToken = src.SANDBOX_ADMIN_TOKEN !== undefined && src.SANDBOX_ADMIN_TOKEN !== '' ? src.SANDBOX_ADMIN_TOKEN : undefined
  if (adminToken === undefined && !isLoopback(host)) {
    throw new ConfigError(`HOST is ${host}, beyond loopback: set SANDBOX_ADMIN_TOKEN so the sandbox control API is not open to the network`)
  }
  if (adminToken !== undefined && adminToken.length < 16) throw new ConfigError('SANDBOX_ADMIN_TOKEN must be at least 16 characters')

  const logLevel = src.LOG_LEVEL !== undefined && src.LOG_LEVEL !== '' ? src.LOG_LEVEL : 'info'
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}"`)

  let publicUrl = src.PUBLIC_URL !== undefined && src.PUBLIC_URL !== '' ? src.PUBLIC_URL : ''
  if (publicUrl !== '') {
    let url: URL
    try { url = new URL(publicUrl) } catch { throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL; got "${publicUrl}"`) }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL; got "${publicUrl}"`)
    publicUrl = publicUrl.replace(/\/+$/, '')
  }

  const schedule = (src.WEBHOOK_RETRY_SCHEDULE ?? '5,30,120,600,1800').trim()
  if (!/^\d+(\s*,\s*\d+)*$/.test(schedule)) throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds, such as "5,30,120"; got "${schedule}"`)

  const countries = (src.UNSUPPORTED_COUNTRIES ?? 'CU,IR,KP,SY').trim()
  if (countries !== '' && !/^[A-Z]{2}(\s*,\s*[A-Z]{2})*$/.test(countries)) throw new ConfigError(`UNSUPPORTED_COUNTRIES must be comma-separated two-letter codes; got "${countries}"`)

  const clientId = src.SANDBOX_CLIENT_ID !== undefined && src.SANDBOX_CLIENT_ID !== '' ? src.SANDBOX_CLIENT_ID : DEFAULT_DEMO_CLIENT_ID
  if (!/^[\x21-\x7e]{1,128}$/.test(clientId)) throw new ConfigError('SANDBOX_CLIENT_ID must be 1 to 128 printable ASCII characters without spaces')
  const secretFromEnv = src.SANDBOX_CLIENT_SECRET !== undefined && src.SANDBOX_CLIENT_SECRET !== ''
  const clientSecret = secretFromEnv ? src.SANDBOX_CLIENT_SECRET! : DEFAULT_DEMO_CLIENT_SECRET
  const organizationId = src.SANDBOX_ORGANIZATION_ID !== undefined && src.SANDBOX_ORGANIZATION_ID !== '' ? src.SANDBOX_ORGANIZATION_ID : DEFAULT_DEMO_ORGANIZATION_ID
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(organizationId)) throw new ConfigError(`SANDBOX_ORGANIZATION_ID must be a lowercase UUID; got "${organizationId}"`)

  return {
    port,
    host,
    databaseUrl: databaseUrl(src),
    databaseConnectTimeoutSeconds: integer(src, 'DATABASE_CONNECT_TIMEOUT_SECONDS', 30, 0, 3600),
    trustProxy: trustProxy(src),
    databasePath: src.DATABASE_PATH !== undefined && src.DATABASE_PATH !== '' ? src.DATABASE_PATH : './data/sandbox.db',
    serviceName: name(src, 'SERVICE_NAME', 'service'),
    partnerArea: name(src, 'PARTNER_AREA', 'partner'),
    publicUrl,
    tokenTtlSeconds: integer(src, 'TOKEN_TTL_SECONDS', 600, 1, 31_536_000),
    refreshTokenTtlSeconds: integer(src, 'REFRESH_TOKEN_TTL_SECONDS', 2_592_000, 1, 315_360_000),
    managementLinkTtlSeconds: integer(src, 'MANAGEMENT_LINK_TTL_SECONDS', 3600, 1, 31_536_000),
    adminToken,
    demoClient: { clientId, clientSecret, secretFromEnv, organizationId },
    logLevel,
    seedFile: src.SEED_FILE !== undefined && src.SEED_FILE !== '' ? src.SEED_FILE : undefined,
    webhookRetrySchedule: schedule.split(',').map(s => Number(s.trim())),
    webhookTimeoutMs: integer(src, 'WEBHOOK_TIMEOUT_MS', 5000, 10, 120_000),
    webhookSecretGraceSeconds: integer(src, 'WEBHOOK_SECRET_GRACE_SECONDS', 86_400, 0, 31_536_000),
    webhookRetentionSeconds: integer(src, 'WEBHOOK_RETENTION_SECONDS', 604_800, 0, 315_360_000),
    requestLogSize: integer(src, 'REQUEST_LOG_SIZE', 1000, 1, 1_000_000),
    bodyLimitBytes: integer(src, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 104_857_600),
    requestTimeoutMs: integer(src, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    maxConnections: integer(src, 'MAX_CONNECTIONS', 1024, 1, 1_000_000),
    rateLimitPerMinute: integer(src, 'RATE_LIMIT_PER_MINUTE', 0, 0, 10_000_000),
    unsupportedCountries: countries === '' ? [] : countries.split(',').map(s => s.trim()),
    kycReviewDelaySeconds: integer(src, 'KYC_REVIEW_DELAY_SECONDS', 5, 0, 31_536_000),
    cardCheckDelaySeconds: integer(src, 'CARD_CHECK_DELAY_SECONDS', 5, 0, 31_536_000),
    transactionSettlementSeconds: integer(src, 'TRANSACTION_SETTLEMENT_SECONDS', 5, 0, 31_536_000),
    achSettlementSeconds: integer(src, 'ACH_SETTLEMENT_SECONDS', 60, 0, 31_536_000),
    rfiExpirySeconds: integer(src, 'RFI_EXPIRY_SECONDS', 604_800, 1, 31_536_000)
  }
}

/** A config for tests and embedding: defaults with an in-memory database and silent logs. */
export function testConfig (overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ DATABASE_PATH: ':memory:', LOG_LEVEL: 'silent' }), ...overrides }
}
