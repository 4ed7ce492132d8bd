// Optional per-client rate limiting (RATE_LIMIT_PER_MINUTE, off by default), answering as the real
// service does: 429 `too_many_requests`, "Try again later", with Retry-After.
import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { tooManyRequests } from '../errors.js'

/**
 * The client a request speaks for, read without verifying anything (verification is the guard's
 * job): the `cid` claim of a Bearer JWT, the id in HTTP Basic, else the peer address.
 */
export function clientKey (request: FastifyRequest): string {
  const header = request.headers.authorization
  if (typeof header === 'string') {
    const [scheme, value] = header.split(' ', 2)
    try {
      if (scheme?.toLowerCase() === 'bearer' && value !== undefined) {
        const payload = JSON.parse(Buffer.from(value.split('.')[1] ?? '', 'base64url').toString('utf8')) as { cid?: unknown }
        if (typeof payload.cid === 'string') return `client:${payload.cid}`
      }
      if (scheme?.toLowerCase() === 'basic' && value !== undefined) {
        const id = Buffer.from(value, 'base64').toString('utf8').split(':')[0]
        if (id !== '') return `client:${decodeURIComponent(id)}`
      }
    } catch {}
  }
  return `ip:${request.ip}`
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
