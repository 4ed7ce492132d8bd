// Failed client authentication counts toward the optional rate limit (RATE_LIMIT_PER_MINUTE), per
// client id and per sender address, as the OAuth 2.0 Security BCP (RFC 9700) advises against
// credential stuffing and brute force: once either has had that many 401s within a minute, the
// token endpoint (by client and address) and the Bearer routes (by address) answer 429
// `too_many_requests` with Retry-After until the minute is over, before any secret is checked.
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyRequest, onErrorHookHandler, onRequestHookHandler, preHandlerHookHandler } from 'fastify'
import { tooManyRequests } from '../errors.js'
import { refusedTokenClient, tokenEndpointClient } from '../auth/named-client.js'

interface Window { count: number, resetAt: number }

/**
 * Fixed one-window counters of failures per key, in memory (each replica counts its own: a
 * limit per process, as @fastify/rate-limit's default store). Bounded: at `capacity` keys, spent
 * windows go first, then the oldest.
 */
export class FailureWindows {
  readonly #windows = new Map<string, Window>()

  constructor (
    readonly max: number,
    readonly windowMs: number,
    // Real time, as the request limit's windows and fault delays: the sandbox clock is for the API's
    // own rules and may be frozen.
    readonly now: () => number = Date.now,
    readonly capacity = 100_000
  ) {}

  /** Whole seconds until every spent key among `keys` has room again; 0 when none is spent. */
  retryAfterSeconds (keys: readonly string[]): number {
    const now = this.now()
    let until = 0
    for (const key of keys) {
      const w = this.#windows.get(key)
      if (w !== undefined && w.resetAt > now && w.count >= this.max) until = Math.max(until, w.resetAt)
    }
    return until === 0 ? 0 : Math.max(1, Math.ceil((until - now) / 1000))
  }

  record (keys: readonly string[]): void {
    const now = this.now()
    for (const key of keys) {
      const w = this.#windows.get(key)
      if (w !== undefined && w.resetAt > now) {
        w.count++
        continue
      }
      this.#windows.delete(key)
      if (this.#windows.size >= this.capacity) this.#evict(now)
      this.#windows.set(key, { count: 1, resetAt: now + this.windowMs })
    }
  }

  get size (): number {
    return this.#windows.size
  }

  #evict (now: number): void {
    for (const [key, w] of this.#windows) if (w.resetAt <= now) this.#windows.delete(key)
    for (const key of this.#windows.keys()) {
      if (this.#windows.size < this.capacity) break
      this.#windows.delete(key)
    }
  }
}

const addressKey = (request: FastifyRequest): string => `ip:${request.ip}`
const clientKey = (clientId: string | null): string[] => clientId === null ? [] : [`client:${clientId}`]

/** The keys a token endpoint request is counted and checked under: its address and the client its credentials name. */
const tokenEndpointKeys = (request: FastifyRequest): string[] =>
  [addressKey(request), ...clientKey(tokenEndpointClient(request.body, request.headers.authorization, request.basicCredentials))]

const VERIFIED_BUT_REFUSED = new Set(['token_expired', 'token_revoked'])

async function authFailures (app: FastifyInstance): Promise<void> {
  const max = app.config.rateLimitPerMinute
  if (max === 0) return
  const failures = new FailureWindows(max, 60_000)

  const refuseIfSpent = (keys: string[]): void => {
    const retryAfter = failures.retryAfterSeconds(keys)
    if (retryAfter > 0) throw tooManyRequests(retryAfter)
  }

  // Token endpoint: checked once the form is read (credentials may come in the body), before the
  // secret is; a 401 counts for the address and the client id the credentials name.
  const tokenCheck: preHandlerHookHandler = (request, _reply, done) => {
    try { refuseIfSpent(tokenEndpointKeys(request)) } catch (error) { done(error as Error); return }
    done()
  }
  const tokenFailure: onErrorHookHandler = (request, _reply, error: FastifyError, done) => {
    if (error.statusCode === 401) failures.record(tokenEndpointKeys(request))
    done()
  }

  // Bearer routes: checked before the token is; a 401 counts for the address, and for the token's
  // client when its signature held (expired or revoked): a forged token names no one.
  const bearerCheck: onRequestHookHandler = (request, _reply, done) => {
    try { refuseIfSpent([addressKey(request)]) } catch (error) { done(error as Error); return }
    done()
  }
  const bearerFailure: onErrorHookHandler = (request, _reply, error: FastifyError, done) => {
    if (error.statusCode !== 401) { done(); return }
    const verified = VERIFIED_BUT_REFUSED.has(error.code)
    failures.record([addressKey(request), ...clientKey(verified ? refusedTokenClient(request.headers.authorization) : null)])
    done()
  }

  const asList = <T>(hooks: T | T[] | undefined): T[] => hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]
  // Registered after the Bearer guard: its check goes before the guard's.
  app.addHook('onRoute', (route) => {
    const config = route.config as { oauth?: boolean, auth?: unknown } | undefined
    if (config?.oauth === true) {
      route.preHandler = [tokenCheck, ...asList(route.preHandler)]
      route.onError = [...asList(route.onError), tokenFailure]
    } else if (config?.auth !== undefined) {
      route.onRequest = [bearerCheck, ...asList(route.onRequest)]
      route.onError = [...asList(route.onError), bearerFailure]
    }
  })
}

export default fp(authFailures, { name: 'auth-failures', dependencies: ['auth-guard'] })
