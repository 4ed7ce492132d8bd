// Global hooks of the sandbox (request log, fault injection): registered before every area so
// they see every request, and fault rules act before authentication.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { bindContext } from '../async-context.js'
import { openRequestLog, type RequestLogging } from './request-log.js'
import { Faults, faultError } from './faults.js'
import { faultsStore } from './store.js'
import { tokenOrganization } from '../auth/named-client.js'
import { SANDBOX_SCHEMAS, type FaultView } from '../../schemas/sandbox.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The bounded log of recent requests (`/_sandbox/requests`): in memory on SQLite, shared by replicas on PostgreSQL. */
    requestLog: RequestLogging
    /** Active fault injection rules (`/_sandbox/faults`), shared by replicas through the database. */
    faults: Faults
  }
  interface FastifyRequest {
    /** The answer's payload, kept by onSend for the request log. */
    sandboxPayload: unknown
    /** The client of a request a fault rule answered before the guard (its token's signature checked), for the request log. */
    faultedClient: string | null
  }
}

const isControl = (url: string): boolean => url.startsWith('/_sandbox')

// Reads of the control API (the dashboard polls them) and the log's own routes are not logged, so
// a bounded log keeps the API traffic it is there to show.
const unlogged = (request: FastifyRequest): boolean =>
  isControl(request.url) && (request.method === 'GET' || request.method === 'HEAD' || request.url.startsWith('/_sandbox/requests'))

const pathOf = (url: string): string => {
  const q = url.indexOf('?')
  return q < 0 ? url : url.slice(0, q)
}

async function sandboxInfrastructure (app: FastifyInstance): Promise<void> {
  const log = openRequestLog(app.storage.db, app.config.requestLogSize, app.clock, (err) => { app.log.error({ err }, 'a request could not be written to the request log') })
  const faults = new Faults(app.storage.store(faultsStore))
  app.decorate('requestLog', log)
  app.decorate('faults', faults)
  // Another replica added, deleted or used up a rule: read the list again.
  app.sharedState.onStale(() => { faults.forget() })
  // Entries answered just before closing are written while the database is still open.
  app.addHook('onClose', async () => { await log.settle() })
  app.decorateRequest('sandboxPayload', null)
  app.decorateRequest('faultedClient', null)
  // Response shapes of the control API, named once in the OpenAPI document.
  for (const schema of SANDBOX_SCHEMAS) app.addSchema(schema)

  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (isControl(request.url)) return done()
    // Undefined at once when no cached rule can match (no database call); else the rule, spent.
    const taking = faults.take(request.method, pathOf(request.url), () => tokenOrganization(request.headers.authorization))
    if (taking === undefined) return done()
    const act = (rule: FaultView): void => {
      const token = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1]
      if (token !== undefined) request.faultedClient = app.tokens.signedClient(token) ?? null
      if (rule.drop) {
        // No answer at all: the client sees the connection close.
        reply.hijack()
        log.record(request, reply, null, 0)
        reply.raw.destroy()
        const socket = request.raw.socket as { destroy?: () => void } | null
        if (typeof socket?.destroy === 'function') socket.destroy()
        return
      }
      if (rule.status === null) return done()
      done(faultError(rule, request.routeOptions.config?.oauth === true))
    }
    taking.then(rule => {
      if (rule === undefined) done()
      else if (rule.delayMs > 0) setTimeout(bindContext(() => { act(rule) }), rule.delayMs)
      else act(rule)
    }, (err: unknown) => { done(err as Error) })
  })

  // The request log's recording hooks; with REQUEST_LOG_SIZE=0 there is no log, and nothing to
  // keep of an answer.
  if (log.capacity > 0) {
    app.addHook('onSend', (request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
      request.sandboxPayload = payload
      done(null, payload)
    })

    app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      if (!unlogged(request)) log.record(request, reply, request.sandboxPayload)
      done()
    })
  }
}

export default fp(sandboxInfrastructure, { name: 'sandbox-infrastructure' })
