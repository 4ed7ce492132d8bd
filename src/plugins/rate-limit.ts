// Optional per-client rate limiting (RATE_LIMIT_PER_MINUTE, off by default), answering as the real
// service does: 429 `too_many_requests`, "Try again later", with Retry-After.
import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { tooManyRequests } from '../errors.js'

/**
 * The budget a request spends. The limit's hook runs after the Bearer guard's, so a request with
 * a token has a verified client: a forged token naming another client is refused before it spends
 * anything. At the token endpoint, the client id of HTTP Basic with the peer address: the secret is
 * checked later, so a wrong one sent from elsewhere spends only its sender's budget. Else the peer
 * address.
 */
export function clientKey (request: FastifyRequest): string {
  const ip = `ip:${request.ip}`
  if (request.auth !== null && request.auth !== undefined) return `client:${request.auth.clientId}`
  const header = request.headers.authorization
  if (typeof header === 'string') {
    const [scheme, value] = header.split(' ', 2)
    if (scheme?.toLowerCase() === 'basic' && value !== undefined) {
      const id = Buffer.from(value, 'base64').toString('utf8').split(':')[0]
      try {
        if (id !== '') return `client:${decodeURIComponent(id)}|${ip}`
      } catch {}
    }
  }
  return ip
}

async function limits (app: FastifyInstance): Promise<void> {
  const max = app.config.rateLimitPerMinute
  if (max === 0) return
  await app.register(rateLimit, {
    global: true,
    max,
    timeWindow: 60_000,
    keyGenerator: clientKey,
    // The sandbox control API and the docs are never limited.
    allowList: (request) => request.url.startsWith('/_sandbox') || request.url.startsWith('/docs') || request.url === '/openapi.json',
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    errorResponseBuilder: (_request, context) => tooManyRequests(Math.max(1, Math.ceil(context.ttl / 1000)))
  })
}

export default fp(limits, { name: 'rate-limit' })
