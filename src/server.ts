// Reads the configuration, builds the app, listens, prints a short banner and shuts down cleanly
// on SIGINT/SIGTERM (stop accepting, finish in-flight requests, close the database).
import './tick-shape.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { buildApp } from './app.js'
import { batchedLogStream } from './log-stream.js'
import { openStorage, type Storage } from './storage/index.js'
import { isUnavailable } from './storage/db.js'
import { LARGEST_ENTRY_CHARS } from './sandbox/request-log.js'
import { getHeapStatistics } from 'node:v8'
import type { FastifyInstance } from 'fastify'

/**
 * Opens the configured database. PostgreSQL (DATABASE_URL) that cannot be reached is tried again,
 * a line per attempt, for up to DATABASE_CONNECT_TIMEOUT_SECONDS; then the process exits with
 * code 2. An SQLite file that cannot be written (a read-only root filesystem with no volume
 * mounted, say) leaves the sandbox on an in-memory database, which it says loudly; one that another
 * process holds locked (a sandbox running on it) stops the start with exit code 2.
 */
async function openConfiguredStorage (config: Config): Promise<Storage> {
  if (config.databaseUrl !== undefined) {
    const deadline = Date.now() + config.databaseConnectTimeoutSeconds * 1000
    for (let attempt = 1; ; attempt++) {
      try {
        return await openStorage({ databasePath: config.databasePath, databaseUrl: config.databaseUrl, poolSize: config.databasePoolSize, connectTimeoutSeconds: Math.max(1, Math.min(10, config.databaseConnectTimeoutSeconds)) })
      } catch (err) {
        if (!isUnavailable(err) && !isUnavailable((err as { cause?: unknown }).cause)) throw err
        const left = deadline - Date.now()
        const cause = (err as { cause?: { code?: string } }).cause
        process.stderr.write(`PostgreSQL (DATABASE_URL) cannot be reached, attempt ${attempt}: ${cause?.code ?? (err as { code?: string }).code ?? 'no answer'}\n`)
        if (left <= 0) {
          process.stderr.write(`Giving up after DATABASE_CONNECT_TIMEOUT_SECONDS=${config.databaseConnectTimeoutSeconds}.\n`)
          process.exit(2)
        }
        await new Promise(resolve => setTimeout(resolve, Math.min(1000, left)))
      }
    }
  }
  try {
    return await openStorage(config.databasePath)
  } catch (err) {
    if (config.databasePath === ':memory:') throw err
    // Another process holds the file (a sandbox already running on it keeps it locked while it
    // runs): a second one on an in-memory database would look like the first one's state lost, so
    // it stops instead, after the busy timeout has let a sandbox that is stopping finish.
    if (isLocked(err)) {
      process.stderr.write(`The database ${config.databasePath} is in use by another process (another sandbox started on the same file?): ` +
        'stop that one, or set DATABASE_PATH to another file.\n')
      process.exit(2)
    }
    process.stderr.write(`Warning: the database ${config.databasePath} cannot be opened for writing (${(err as Error).message}); ` +
      'running on an in-memory database: state will not survive a restart. Mount a writable volume or set DATABASE_PATH.\n')
    config.databasePath = ':memory: (fallback)'
    return await openStorage(':memory:')
  }
}

/** SQLite's answer when another connection holds the lock: SQLITE_BUSY, or one of its extended codes. */
function isLocked (err: unknown): boolean {
  const code = (err as { code?: unknown }).code ?? (err as { cause?: { code?: unknown } }).cause?.code
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY')
}

/**
 * The request log keeps entries over 16 KiB on the heap (packed-texts.ts); the start command
 * bounds the heap (docs/behaviour.md, "The process and its resources"). Says so when a full log of the
 * largest entries could take more than half of it.
 */
function warnIfRequestLogOutgrowsHeap (config: Config): void {
  const limitMb = getHeapStatistics().heap_size_limit / 2 ** 20
  const worstMb = config.requestLogSize * LARGEST_ENTRY_CHARS * 2 / 2 ** 20
  if (worstMb <= limitMb / 2) return
  process.stderr.write(`Warning: REQUEST_LOG_SIZE=${config.requestLogSize} can hold up to ${Math.round(worstMb)} MB of large entries, ` +
    `more than half of this process's heap limit (${Math.round(limitMb)} MB): start node with --max-old-space-size=<MB> to give it room.\n`)
}

/** The URL without its password, for the banner. */
function redactUrl (url: string): string {
  try {
    const u = new URL(url)
    if (u.password !== '') u.password = '***'
    return u.toString()
  } catch {
    return 'PostgreSQL'
  }
}

function banner (config: Config, url: string): string {
  const { clientId, clientSecret, secretFromEnv } = config.demoClient
  const lines = [
    '',
    `  Core API sandbox listening on ${url}`,
    `  API docs     ${url}/docs   (OpenAPI: ${url}/openapi.json)`,
    `  Dashboard    ${url}/_sandbox/`,
    `  Database     ${config.databaseUrl !== undefined ? redactUrl(config.databaseUrl) : config.databasePath}`,
    `  Demo client  id ${clientId}`,
    `               secret ${secretFromEnv ? '(as set in SANDBOX_CLIENT_SECRET)' : clientSecret}`,
    `  Get a token  curl -s -u '${clientId}:${secretFromEnv ? '<secret>' : clientSecret}' -d grant_type=client_credentials ${url}/core/oauth2/token`,
    ''
  ]
  return lines.join('\n')
}

async function main (): Promise<FastifyInstance> {
  let config: Config
  try {
    config = loadConfig(process.env, process.argv.slice(2))
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${err.message}\n`)
      process.exit(2)
    }
    throw err
  }

  warnIfRequestLogOutgrowsHeap(config)
  const logStream = batchedLogStream()
  process.on('exit', () => { logStream.flushSync() })
  const app = await buildApp({ config, storage: await openConfiguredStorage(config), logStream })
  const address = await app.listen({ port: config.port, host: config.host })
  const port = (app.server.address() as { port: number }).port
  const url = config.publicUrl !== '' ? config.publicUrl : address.replace(/:\d+$/, `:${port}`)
  if (config.publicUrl === '') app.config.publicUrl = url
  logStream.flushSync()
  process.stdout.write(banner(config, url) + '\n')

  let closing = false
  const shutdown = (signal: string): void => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down')
    const force = setTimeout(() => process.exit(1), 10_000)
    force.unref()
    app.close().then(() => process.exit(0), (err: unknown) => {
      app.log.error({ err }, 'shutdown failed')
      process.exit(1)
    })
  }
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  return app
}

/** The app once it listens (the build's code cache starts the server once: code-cache.ts). */
export const started: Promise<FastifyInstance | undefined> = main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
