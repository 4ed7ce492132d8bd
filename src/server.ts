#!/usr/bin/env -S node --max-old-space-size=192
// Reads the configuration, builds the app, listens, prints a short banner and shuts down cleanly
// on SIGINT/SIGTERM (stop accepting, finish in-flight requests, close the database).
import { ConfigError, loadConfig, type Config } from './config.js'
import { buildApp } from './app.js'
import { batchedLogStream } from './log-stream.js'
import { openStorage, type Storage } from './storage/index.js'
import { LARGEST_ENTRY_CHARS } from './sandbox/request-log.js'
import { getHeapStatistics } from 'node:v8'

/**
 * Opens the configured database. Where it cannot be written (a read-only root filesystem with no
 * volume mounted, say) the sandbox still starts, on an in-memory database, and says so loudly.
 */
function openStorageOrMemory (config: Config): Storage {
  try {
    return openStorage(config.databasePath)
  } catch (err) {
    if (config.databasePath === ':memory:') throw err
    process.stderr.write(`Warning: the database ${config.databasePath} cannot be opened for writing (${(err as Error).message}); ` +
      'running on an in-memory database: state will not survive a restart. Mount a writable volume or set DATABASE_PATH.\n')
    config.databasePath = ':memory: (fallback)'
    return openStorage(':memory:')
  }
}

/**
 * The request log keeps entries over a slot's size on the heap; the start command bounds the heap
 * (README, "The process and its resources"). Says so when a full log of the largest entries
 * could take more than half of it.
 */
function warnIfRequestLogOutgrowsHeap (config: Config): void {
  const limitMb = getHeapStatistics().heap_size_limit / 2 ** 20
  const worstMb = config.requestLogSize * LARGEST_ENTRY_CHARS * 2 / 2 ** 20
  if (worstMb <= limitMb / 2) return
  process.stderr.write(`Warning: REQUEST_LOG_SIZE=${config.requestLogSize} can hold up to ${Math.round(worstMb)} MB of large entries, ` +
    `more than half of this process's heap limit (${Math.round(limitMb)} MB): start node with --max-old-space-size=<MB> to give it room.\n`)
}

function banner (config: Config, url: string): string {
  const { clientId, clientSecret, secretFromEnv } = config.demoClient
  const lines = [
    '',
    `  Core API sandbox listening on ${url}`,
    `  API docs     ${url}/docs   (OpenAPI: ${url}/openapi.json)`,
    `  Dashboard    ${url}/_sandbox/`,
    `  Database     ${config.databasePath}`,
    `  Demo client  id ${clientId}`,
    `               secret ${secretFromEnv ? '(as set in SANDBOX_CLIENT_SECRET)' : clientSecret}`,
    `  Get a token  curl -s -u '${clientId}:${secretFromEnv ? '<secret>' : clientSecret}' -d grant_type=client_credentials ${url}/core/oauth2/token`,
    ''
  ]
  return lines.join('\n')
}

async function main (): Promise<void> {
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
  const app = await buildApp({ config, storage: openStorageOrMemory(config), logStream })
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
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
