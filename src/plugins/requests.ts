// Per-request plumbing: the request-id header on every answer, and one JSON log line per request
// that names no secret (the URL's secret-bearing segments are masked, headers are not logged).
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'

// Segments of paths that carry a credential (the management link's token).
const SECRET_SEGMENT = /(\/webhooks\/portal\/)[^/?#]+/g

export const redactUrl = (url: string): string => url.split('?')[0].replace(SECRET_SEGMENT, '$1[redacted]')

async function requests (app: FastifyInstance): Promise<void> {
  const header = `x-${app.config.serviceName}-request-id`
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(header, request.id)
    done()
  })
  app.addHook('onResponse', (request: FastifyRequest, reply, done) => {
    request.log.info({
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
