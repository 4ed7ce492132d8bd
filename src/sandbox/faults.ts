// Fault injection: rules that make matching API requests fail, slow down or lose their
// connection, so an integration's retry and error handling can be tested on purpose.
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import { ApiError, OAuthError, internalError, preconditionFailed, routeNotFound, serviceUnavailable, tokenInvalid, tooManyRequests } from '../errors.js'
import type { FaultCreate, FaultView } from '../../schemas/sandbox.js'
import { globMatcher } from './request-log.js'
import type { FaultsStore } from './store.js'

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

/**
 * The fault rules, kept in the database (`sandbox_faults`) so every replica of one database tries
 * the same rules and a rule's `count` is spent once across them. Matching stays cheap: each process
 * caches the rule list and reads the database only when a cached rule matches a request (to spend
 * one use of it, in a write). The cache is dropped after this process changes the list and, on
 * PostgreSQL, whenever another replica did (the shared version, src/plugins/shared-state.ts).
 */
export class Faults {
  readonly #store: FaultsStore
  /** The rule list as last read; undefined until read again. */
  #rules: Rule[] | undefined
  #loading: Promise<Rule[]> | undefined
  /** Changes with every `forget`, so a read that started before it is not kept. */
  #generation = 0

  constructor (store: FaultsStore) {
    this.#store = store
  }

  async add (input: FaultCreate, createdAt: string, organizationId: string | null = null): Promise<FaultView> {
    const rule: FaultView = {
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
      organizationId,
      createdAt
    }
    await this.#store.add(rule)
    this.forget()
    return rule
  }

  /** Every active rule, or one organization's, as stored (every replica's uses counted). */
  async list (organizationId?: string): Promise<FaultView[]> {
    const rules = await this.#store.list()
    return organizationId === undefined ? rules : rules.filter(r => r.organizationId === organizationId)
  }

  /** Deletes a rule (of this organization, when one is named); false when there is none. */
  async delete (id: string, organizationId?: string): Promise<boolean> {
    const deleted = await this.#store.delete(id, organizationId)
    if (deleted) this.forget()
    return deleted
  }

  async clear (organizationId?: string): Promise<void> {
    await this.#store.clear(organizationId)
    this.forget()
  }

  /** Drops the cached rule list: the list changed (here, on another replica, or by a reset). */
  forget (): void {
    this.#generation++
    this.#rules = undefined
    this.#loading = undefined
  }

  /**
   * The first rule that applies to this request, counted as applied (a spent rule is deleted).
   * Answers undefined at once, without a promise, when the cached list has no rule this request
   * could match: the common case costs no database call.
   */
  take (method: string, path: string, organization: () => string | undefined): Promise<FaultView | undefined> | undefined {
    const rules = this.#rules
    const request = { method, path, organization: once(organization) }
    if (rules === undefined) return this.#load().then(async loaded => await this.#spendFirst(loaded, firstApplying(loaded, 0, request), request))
    const first = firstApplying(rules, 0, request)
    return first < 0 ? undefined : this.#spendFirst(rules, first, request)
  }

  /**
   * Spends the rule at `first` (one that applies, or -1 for none) in a write; one with nothing left
   * to spend (used up or deleted by another replica since the list was read) lets the next rule
   * that applies try.
   */
  async #spendFirst (rules: Rule[], first: number, request: Matched): Promise<FaultView | undefined> {
    for (let i = first; i >= 0; i = firstApplying(rules, i + 1, request)) {
      const { applied, usedUp } = await this.#store.spend(rules[i].id)
      if (!applied || usedUp) this.forget()
      if (applied) return view(rules[i])
    }
    return undefined
  }

  async #load (): Promise<Rule[]> {
    if (this.#loading !== undefined) return await this.#loading
    const generation = this.#generation
    const loading = this.#store.list().then(rows => {
      const rules = rows.map(row => ({ ...row, matches: globMatcher(row.path) }))
      if (generation === this.#generation) this.#rules = rules
      return rules
    })
    this.#loading = loading
    try {
      return await loading
    } finally {
      if (this.#loading === loading) this.#loading = undefined
    }
  }
}

/** What a rule matches of a request: its method, path and (read only when a rule asks) the organization of its token. */
interface Matched { method: string, path: string, organization: () => string | undefined }

const once = <T>(read: () => T): () => T => {
  let known = false
  let value: T
  return () => {
    if (!known) { value = read(); known = true }
    return value
  }
}

/** The index of the first rule from `from` on that applies to the request (its probability drawn), or -1. */
function firstApplying (rules: readonly Rule[], from: number, { method, path, organization }: Matched): number {
  for (let i = from; i < rules.length; i++) {
    const rule = rules[i]
    if (rule.method !== null && rule.method !== method) continue
    if (!rule.matches(path)) continue
    if (rule.organizationId !== null && rule.organizationId !== organization()) continue
    if (rule.probability < 1 && Math.random() >= rule.probability) continue
    return i
  }
  return -1
}

function view (rule: Rule): FaultView {
  const { matches: _, ...rest } = rule
  return rest
}
