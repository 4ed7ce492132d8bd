// Per-request plumbing: the request-id header on every answer, and one JSON log line per request
// that names no secret (the URL's secret-bearing segments are masked, headers are not logged).
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'

// Segments of paths that carry a credential (the management link's token).
const SECRET_SEGMENT = /(\/webhooks\/portal\/)[^/?#]+/g

export function redactUrl (url: string): string {
  const q = url.indexOf('?')
  const path = q < 0 ? url : url.slice(0, q)
  return path.includes('/webhooks/portal/') ? path.replace(SECRET_SEGMENT, '$1[redacted]') : path
}

async function requests (app: FastifyInstance): Promise<void> {
  const header = `x-${app.config.serviceName}-request-id`
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(header, request.id)
    done()
  })
  // The request line holds only the fields built here, none of them secret (the path is masked),
  // so it skips the redaction pass, which costs several times the rest of the line.
  const lines = app.log.child({}, { redact: [] })
  app.addHook('onResponse', (request: FastifyRequest, reply, done) => {
    // A route may quieten its requests (the docs log at warn).
    if (!(request.log as Logger).isLevelEnabled('info')) return done()
    lines.info({
      requestId: request.id,
      method: request.method,
      path: redactUrl(request.url),
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
      clientId: request.auth?.clientId
    }, 'request')
    done()
  })
}

export default fp(requests, { name: 'requests' })
