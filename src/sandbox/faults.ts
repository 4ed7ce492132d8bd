// Fault injection: rules that make matching API requests fail, slow down or lose their
// connection, so an integration's retry and error handling can be tested on purpose.
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import { ApiError, OAuthError, internalError, preconditionFailed, routeNotFound, serviceUnavailable, tokenInvalid, tooManyRequests } from '../errors.js'
import type { FaultCreate, FaultView } from '../../schemas/sandbox.js'
import { globMatcher } from './request-log.js'

interface Rule extends FaultView {
  matches: (path: string) => boolean
}

// Statuses with a code the API itself uses; any other 4xx/5xx gets a code made from its reason phrase.
const KNOWN: Record<number, () => ApiError> = {
  400: () => new ApiError(400, 'request_invalid', 'The request has missing or invalid parameters'),
  401: tokenInvalid,
  403: () => new ApiError(403, 'forbidden', 'Access to this resource is forbidden'),
  404: routeNotFound,
  408: () => new ApiError(408, 'request_timeout', 'The request was not received in time'),
  409: () => new ApiError(409, 'conflict', 'The request conflicts with the current state of the resource'),
  412: preconditionFailed,
  413: () => new ApiError(413, 'content_too_large', 'The request body is greater than maximum size limit'),
  500: internalError,
  502: () => new ApiError(502, 'bad_gateway', 'The server received an invalid response from an upstream server'),
  503: serviceUnavailable,
  504: () => new ApiError(504, 'gateway_timeout', 'The server did not receive a timely response from an upstream server')
}

function reasonError (status: number): ApiError {
  const reason = STATUS_CODES[status] ?? (status >= 500 ? 'Server error' : 'Client error')
  return new ApiError(status, reason.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, ''), reason)
}

/** The error a rule answers with: the API's own body, or an OAuth 2.0 body on the token endpoint. */
export function faultError (rule: FaultView, oauth: boolean): ApiError | OAuthError {
  const status = rule.status!
  if (status === 429) return tooManyRequests(rule.retryAfterSeconds ?? 1)
  if (oauth && status < 500) {
    return status === 401
      ? new OAuthError(401, 'invalid_client', 'Client does not exist or secret is incorrect', { 'www-authenticate': 'Basic realm="token", charset="UTF-8"' })
      : new OAuthError(status, 'invalid_request', STATUS_CODES[status] ?? 'The request is invalid')
  }
  const error = (KNOWN[status] ?? (() => reasonError(status)))()
  if (rule.retryAfterSeconds !== null) error.headers['retry-after'] = String(rule.retryAfterSeconds)
  return error
}

export class Faults {
  readonly #rules: Rule[] = []

  get size (): number { return this.#rules.length }

  add (input: FaultCreate, createdAt: string): FaultView {
    const rule: Rule = {
      id: randomUUID(),
      method: input.method?.toUpperCase() ?? null,
      path: input.path,
      status: input.status ?? null,
      delayMs: input.delayMs ?? 0,
      drop: input.drop ?? false,
      count: input.count ?? null,
      probability: input.probability ?? 1,
      retryAfterSeconds: input.retryAfterSeconds ?? null,
      remaining: input.count ?? null,
      applied: 0,
      createdAt,
      matches: globMatcher(input.path)
    }
    this.#rules.push(rule)
    return view(rule)
  }

  list (): FaultView[] {
    return this.#rules.map(view)
  }

  delete (id: string): boolean {
    const i = this.#rules.findIndex(r => r.id === id)
    if (i < 0) return false
    this.#rules.splice(i, 1)
    return true
  }

  clear (): void {
    this.#rules.length = 0
  }

  /** The first rule that applies to this request, counted as applied; a spent rule is removed. */
  take (method: string, path: string): FaultView | undefined {
    for (let i = 0; i < this.#rules.length; i++) {
      const rule = this.#rules[i]
      if (rule.method !== null && rule.method !== method) continue
      if (!rule.matches(path)) continue
      if (rule.probability < 1 && Math.random() >= rule.probability) continue
      rule.applied++
      if (rule.remaining !== null && --rule.remaining === 0) this.#rules.splice(i, 1)
      return view(rule)
    }
    return undefined
  }
}

function view (rule: Rule): FaultView {
  const { matches: _, ...rest } = rule
  return rest
}
