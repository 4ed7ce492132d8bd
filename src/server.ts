#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50
// Reads the configuration, builds the app, listens, prints a short banner and shuts down cleanly
// on SIGINT/SIGTERM (stop accepting, finish in-flight requests, close the database).
import { ConfigError, loadConfig, type Config } from './config.js'
import { buildApp } from './app.js'
import { batchedLogStream } from './log-stream.js'
import { openStorage, type Storage } from './storage/index.js'

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
