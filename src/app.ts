// buildApp(options) returns a ready Fastify instance and never listens: the server, the tests and
// the benchmark all build the same app.
import './tick-shape.js'
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync, type FastifyReply } from 'fastify'
import pino, { type DestinationStream, type Logger } from 'pino'
import { randomBytes, randomUUID } from 'node:crypto'
import type { Config } from './config.js'
import { Clock } from './clock.js'
import { openStorage, type Storage } from './storage/index.js'
import { ClientRegistry } from './auth/clients.js'
import { TokenService } from './auth/tokens.js'
import { EventBus } from './events.js'
import { ErrorBody, OAuthErrorBody } from '../schemas/common.js'
import { installValidation, requestValidators, responseSerializers } from './plugins/validation.js'
import requests from './plugins/requests.js'
import { withLazyChildren } from './plugins/logging.js'
import { maskLogLine } from './plugins/card-numbers.js'
import { clientErrorHandler } from './plugins/client-errors.js'
import rateLimits from './plugins/rate-limit.js'
import authFailures from './plugins/auth-failures.js'
import errors, { toApiError } from './plugins/errors.js'
import openapi from './plugins/openapi.js'
import sharedState from './plugins/shared-state.js'
import authGuard from './auth/guard.js'
import sandboxInfrastructure from './sandbox/infrastructure.js'
import { areas } from './areas.js'
import { AreaRegistry } from './kit/area.js'
import { ensureDemoClient } from './auth/demo-client.js'
import type { RegisteredRoute } from './types.js'
import { answersAtTurnEnd } from './http/answers-at-turn-end.js'

export interface BuildOptions {
  config: Config
  /** The sandbox clock; a test passes its own to control time. */
  clock?: Clock
  /** An already open storage (tests of restarts pass none and reopen the same file). */
  storage?: Storage
  /** Where log lines go (default stdout). */
  logStream?: DestinationStream
  /** Extra plugins registered after the areas: embedding and tests (probe routes). */
  plugins?: FastifyPluginAsync[]
}

// Log redaction is a safety net: nothing logs headers or bodies, but if anything ever does,
// credentials are masked.
const REDACT = [
  'req.headers.authorization', 'headers.authorization', '*.headers.authorization',
  '*.clientSecret', '*.client_secret', '*.access_token', '*.refresh_token', '*.secret', '*.signingSecret', '*.password'
]

export async function buildApp (options: BuildOptions): Promise<FastifyInstance> {
  const { config } = options
  const storage = options.storage ?? await openStorage({ databasePath: config.databasePath, databaseUrl: config.databaseUrl, poolSize: config.databasePoolSize })
  try {
    return await buildOn(options, storage)
  } catch (error) {
    // A start that fails (a bad seed file, say) leaves no connection open behind it.
    if (options.storage === undefined) await storage.close().catch(() => {})
    throw error
  }
}

async function buildOn (options: BuildOptions, storage: Storage): Promise<FastifyInstance> {
  const { config } = options
  const clock = options.clock ?? new Clock()
  const logger = pino({
    level: config.logLevel,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: undefined,
    // The last net under the redaction: no line leaves with a card number in its text (an error's
    // message, a path), whatever logged it. The request line is written apart and masks its path.
    hooks: { streamWrite: maskLogLine }
  }, options.logStream)

  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    schemaController: { compilersFactory: { buildSerializer: responseSerializers, buildValidator: requestValidators } },
    genReqId: () => randomUUID(),
    // TRUST_PROXY: a hop count is accepted at run time (proxy-addr), though the types leave it out.
    trustProxy: config.trustProxy as boolean | string[],
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: true,
    routerOptions: { maxParamLength: 512 },
    // No `connectionTimeout` (a socket timer Node refreshes at every read and write, 0.4 µs a
    // request): a connection that sends nothing is answered 408 after the request timeout below,
    // and an idle kept-alive one is closed after Fastify's keep-alive timeout (72 s).
    requestTimeout: config.requestTimeoutMs,
    // Node checks for late requests every connectionsCheckingInterval: often enough that a slow
    // client is cut off within a quarter of the limit after it.
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.max(25, Math.floor(config.requestTimeoutMs / 4)))
    },
    clientErrorHandler: clientErrorHandler(config.serviceName),
    frameworkErrors: (error, request, reply) => {
      const e = toApiError(error, config.bodyLimitBytes)
      const r = reply as FastifyReply
      r.header(`x-${config.serviceName}-request-id`, request.id).code(e.statusCode).send(e.toJSON())
    }
  }) as unknown as FastifyInstance
  limitConnections(app, config.maxConnections)
  // SQLite only: on PostgreSQL a turn's reads are one statement already, and holding the answers
  // cost CPU there (src/http/answers-at-turn-end.ts).
  if (storage.db.dialect === 'sqlite') answersAtTurnEnd(app.server)
  // Fastify's own logger is a real child of ours; the children it makes for each request are lazy.
  withLazyChildren(app.log as Logger)

  // Every route, as registered: what the OpenAPI test compares the document with.
  const registeredRoutes: RegisteredRoute[] = []
  app.decorate('registeredRoutes', registeredRoutes)
  app.addHook('onRoute', route => {
    for (const method of [route.method].flat()) registeredRoutes.push({ method, url: route.url, config: route.config as RegisteredRoute['config'], schema: route.schema as RegisteredRoute['schema'] })
  })

  installValidation(app)
  app.addSchema(ErrorBody)
  app.addSchema(OAuthErrorBody)

  const clients = new ClientRegistry(storage, clock)
  const key = await storage.settings.getOrCreate('jwt.hs256.key', randomBytes(32).toString('base64'))
  const tokens = new TokenService({
    key,
    clock,
    storage,
    clients,
    issuer: config.publicUrl !== '' ? config.publicUrl : `urn:${config.serviceName}:sandbox`,
    ttlSeconds: config.tokenTtlSeconds,
    refreshTtlSeconds: config.refreshTokenTtlSeconds
  })
  app.decorate('config', config)
  app.decorate('clock', clock)
  app.decorate('storage', storage)
  app.decorate('clients', clients)
  app.decorate('tokens', tokens)
  const events = new EventBus(clock)
  app.decorate('events', events)
  storage.onEventsCommitted(() => { events.recorded() })
  // The areas' own tables, after the core's (applied when the database opened).
  const registry = new AreaRegistry(areas)
  await storage.migrate(registry.migrations())
  app.decorate('areas', registry)
  app.addHook('onClose', async () => { await storage.close() })

  // The demo client is made (on a new database) while the plugins that need no data register; the
  // areas come after it exists. Its default secret is stored derived ahead of time
  // (src/auth/demo-client.ts); one set in SANDBOX_CLIENT_SECRET is derived here, off the event loop.
  const demoClient = ensureDemoClient(app)
  demoClient.catch(() => {})

  await app.register(requests)
  await app.register(errors)
  await app.register(sharedState)
  await app.register(sandboxInfrastructure)
  await app.register(rateLimits)
  await app.register(authGuard)
  await app.register(authFailures)
  await app.register(openapi)
  await demoClient
  for (const area of registry.areas) await app.register(area.plugin)
  for (const plugin of options.plugins ?? []) await app.register(plugin)

  await app.ready()
  return app
}

/**
 * A cap on open connections (MAX_CONNECTIONS), so a flood of idle sockets cannot use up the
 * process's file descriptors and memory: Node closes a connection beyond it as soon as it is
 * accepted, and serves the open ones. Refusals are logged at most once a minute, with their count.
 */
function limitConnections (app: FastifyInstance, max: number): void {
  app.server.maxConnections = max
  let refused = 0
  let loggedAt = -Infinity
  app.server.on('drop', () => {
    refused++
    const now = performance.now()
    if (now - loggedAt < 60_000) return
    app.log.warn({ refused, maxConnections: max }, 'connections refused: MAX_CONNECTIONS are open')
    loggedAt = now
    refused = 0
  })
}
