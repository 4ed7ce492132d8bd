// The one Bearer guard. A protected route declares `config.auth = { scopes, subjects }`; this hook
// answers 401/403/404 before the body is parsed, and leaves `request.auth` for the handler.
import fp from 'fastify-plugin'
import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { VerifiedToken } from './tokens.js'
import {
  ApiError, entityNotFound, globalControl, insufficientScopes, requestInvalid, subjectNotAllowed, tokenInvalid, unauthorizedAdmin
} from '../errors.js'
import { keptListCovers } from './scopes.js'
import { sha256 as digest } from '../sha256.js'

/**
 * Who a token acts as: `client` (the integrator itself) or `user` (acting for a user). An
 * operation allows `client`, `user` (any user), or users of one type, in the reference's words:
 * `user:individual`, `user:business`.
 */
export type TokenSubject = 'client' | 'user'
export type SubjectType = TokenSubject | 'user:individual' | 'user:business'

export interface AuthRequirement {
  /** Every one of these scopes is needed (a held scope ending in `*` covers by prefix). */
  scopes: string[]
  /** Subjects the operation allows. */
  subjects: SubjectType[]
}

export interface AuthContext {
  clientId: string
  organizationId: string
  subject: TokenSubject
  /** The acting user when the subject is `user`: the guard has checked that it exists. */
  userId: string | null
  scopes: string[]
}

/**
 * Who called a control route: the admin (every organization), or an organization through its
 * control token (scope `sandbox:control`), which bounds the control to that organization.
 */
export type ControlCaller = { admin: true, organizationId?: undefined } | { admin: false, organizationId: string }

/** The scope that lets an organization's client-credentials token drive its own sandbox. */
export const SANDBOX_CONTROL = 'sandbox:control'

export const ACT_ON_BEHALF_OF = 'core.users:act-on-behalf-of'
const ON_BEHALF_OF = /^user\s([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i
// The form clients send: checked without trimming, case folding or a match to take apart.
const ON_BEHALF_OF_USUAL = /^user [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The user id of an `X-On-Behalf-Of` value, lower case; undefined when the value is malformed. */
function onBehalfOfUser (value: string | string[]): string | undefined {
  if (typeof value !== 'string') return undefined
  if (ON_BEHALF_OF_USUAL.test(value)) return value.slice(5)
  return ON_BEHALF_OF.exec(value.trim())?.[1].toLowerCase()
}

function bearerToken (request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (typeof header !== 'string') return undefined
  const space = header.indexOf(' ')
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') return undefined
  const token = header.slice(space + 1).trim()
  return token === '' ? undefined : token
}

const isBearer = (request: FastifyRequest): boolean => /^bearer(\s|$)/i.test(request.headers.authorization ?? '')

// RFC 6750 section 3.1: a request with no Bearer credentials at all gets the bare challenge.
function noBearerToken (): ApiError {
  const e = tokenInvalid()
  return new ApiError(e.statusCode, e.code, e.message, undefined, { 'www-authenticate': 'Bearer realm="api"' })
}

// Each guarded route gets its own guard, made when the route is added, with what it requires held
// in the closure: a global hook had to read the route's config on every request, and Fastify builds
// `request.routeOptions` anew on each read. Routes without `auth` or `admin` pay for no guard at all.
// The guard goes first among the route's own hooks: the rate limit's, added before it, counts a
// request against the verified client.
async function authGuard (app: FastifyInstance): Promise<void> {
  app.decorateRequest('auth', null)
  app.decorateRequest('control', null)
  app.decorateRequest('clockScope', null)
  // A request's body arrives in the socket's callbacks, outside the context its guard entered
  // (src/async-context.ts carries a context through awaits, not through I/O callbacks): the
  // organization's clock is entered again once the body is read, for validation and the handler.
  // A GET or HEAD has no body to read: it is still in the guard's context here.
  app.addHook('preValidation', (request, _reply, done) => {
    const scope = request.clockScope
    if (scope === null || request.method === 'GET' || request.method === 'HEAD') done()
    else app.clock.within(scope, () => { done() })
  })
  const adminDigest = app.config.adminToken === undefined ? undefined : digest(app.config.adminToken)
  const ADMIN: ControlCaller = { admin: true }

  /**
   * The control routes' guard. The admin token (or, when SANDBOX_ADMIN_TOKEN is not set, no token
   * at all) acts as the admin; an organization's client-credentials token with `sandbox:control`
   * acts for its organization, on the per-organization controls only, and the handler runs on that
   * organization's clock.
   */
  const controlGuard = (acts: 'organization' | 'global'): onRequestHookHandler => (request, _reply, done) => {
    const token = bearerToken(request)
    if (token === undefined && !isBearer(request) && adminDigest === undefined) {
      request.control = ADMIN
      done()
      return
    }
    if (token !== undefined && adminDigest !== undefined && timingSafeEqual(digest(token), adminDigest)) {
      request.control = ADMIN
      done()
      return
    }
    const organizationToken = (verified: VerifiedToken): void => {
      const { client, claims, scopes } = verified
      if (claims.sty !== 'client') throw subjectNotAllowed(['client'], 'user')
      if (!keptListCovers(scopes, SANDBOX_CONTROL)) throw insufficientScopes([SANDBOX_CONTROL], scopes)
      if (acts === 'global') throw globalControl()
      request.auth = { clientId: client.id, organizationId: client.organizationId, subject: 'client', userId: null, scopes }
      request.control = { admin: false, organizationId: client.organizationId }
    }
    // What answers a token that is neither: the admin's 401 where only the admin may act.
    const refuse = (error: unknown): Error => acts === 'global' && adminDigest !== undefined && error instanceof ApiError && error.statusCode === 401 ? unauthorizedAdmin() : error as Error
    if (token === undefined) {
      done(acts === 'global' || adminDigest !== undefined ? unauthorizedAdmin() : tokenInvalid())
      return
    }
    let verified: VerifiedToken | undefined
    try {
      verified = app.tokens.verifyCached(token)
      if (verified !== undefined) organizationToken(verified)
    } catch (error) {
      done(refuse(error))
      return
    }
    const proceed = (): void => { onOrganizationClock(app, request, request.control!.organizationId!, done) }
    if (verified !== undefined) {
      proceed()
      return
    }
    app.tokens.verify(token).then(v => { organizationToken(v); proceed() }, (error: unknown) => { done(refuse(error)) })
      .catch((error: unknown) => { done(refuse(error)) })
  }

  // The Bearer guard finishes synchronously when what it checks is in memory (a verified token, its
  // client, the acting user: every request but a client's or a user's first), and only reads, and
  // waits, otherwise: a promise and a turn of the event loop less for nearly every request.
  // `check` returns undefined when it is done, a promise when it had to read; it throws a refusal.
  const check = (request: FastifyRequest, requirement: AuthRequirement): Promise<void> | undefined => {
    const token = bearerToken(request)
    if (token === undefined) throw isBearer(request) ? tokenInvalid() : noBearerToken()
    const verified = app.tokens.verifyCached(token)
    if (verified === undefined) return app.tokens.verify(token).then(v => checkSubject(request, requirement, v))
    return checkSubject(request, requirement, verified)
  }

  const checkSubject = (request: FastifyRequest, requirement: AuthRequirement, { client, claims, scopes }: VerifiedToken): Promise<void> | undefined => {
    const auth: AuthContext = {
      clientId: client.id,
      organizationId: client.organizationId,
      subject: claims.sty,
      userId: claims.sty === 'user' ? claims.sub : null,
      scopes
    }
    const onBehalfOf = request.headers['x-on-behalf-of']
    if (onBehalfOf === undefined) return checkScopes(request, requirement, auth, false)
    const userId = onBehalfOfUser(onBehalfOf)
    if (userId === undefined) {
      throw requestInvalid('headers', [{ property: 'x-on-behalf-of', rule: 'pattern', ruleParams: { pattern: '^user\\s<uuid>$' } }])
    }
    if (auth.subject !== 'client') throw subjectNotAllowed(['client'], auth.subject)
    if (!keptListCovers(scopes, ACT_ON_BEHALF_OF)) throw insufficientScopes([ACT_ON_BEHALF_OF], scopes)
    auth.subject = 'user'
    auth.userId = userId
    return whenUserExists(auth, () => checkScopes(request, requirement, auth, true))
  }

  const checkScopes = (request: FastifyRequest, requirement: AuthRequirement, auth: AuthContext, userChecked: boolean): Promise<void> | undefined => {
    for (const scope of requirement.scopes) {
      if (!keptListCovers(auth.scopes, scope)) throw insufficientScopes(requirement.scopes, auth.scopes)
    }
    const { subjects } = requirement
    const admit = (): undefined => { request.auth = auth; return undefined }
    if (auth.subject === 'client') {
      if (!subjects.includes('client')) throw subjectNotAllowed(subjects, 'client')
      return admit()
    }
    if (subjects.includes('user')) {
      // A token bound to a user acts for it only while the user exists (X-On-Behalf-Of's was checked above).
      return userChecked ? admit() : whenUserExists(auth, admit)
    }
    if (!subjects.includes('user:individual') && !subjects.includes('user:business')) throw subjectNotAllowed(subjects, 'user')
    // Users of one type only: the acting user's type decides (its existence with it).
    return whenUserType(auth, type => {
      if (!subjects.includes(`user:${type}` as SubjectType)) throw subjectNotAllowed(subjects, `user:${type}`)
      return admit()
    })
  }

  /** Runs `next` with the acting user's type; 404 `entity_not_found` when the user does not exist. */
  const whenUserType = (auth: AuthContext, next: (type: string) => Promise<void> | undefined): Promise<void> | undefined => {
    const { organizationId, userId } = auth
    const known = app.storage.users.knownType(organizationId, userId!)
    if (known !== undefined) return next(known)
    return app.storage.users.type(organizationId, userId!).then(type => {
      if (type === undefined) throw entityNotFound('user')
      return next(type)
    })
  }

  /** Runs `next` once the acting user is known to exist; 404 `entity_not_found` when it does not. */
  const whenUserExists = (auth: AuthContext, next: () => Promise<void> | undefined): Promise<void> | undefined => {
    const { organizationId, userId } = auth
    if (app.storage.users.knownToExist(organizationId, userId!)) return next()
    return app.storage.users.exists(organizationId, userId!).then(found => {
      if (!found) throw entityNotFound('user')
      return next()
    })
  }

  const bearerGuard = (requirement: AuthRequirement): onRequestHookHandler => (request, _reply, done) => {
    let pending: Promise<void> | undefined
    try {
      pending = check(request, requirement)
    } catch (error) {
      done(error as Error)
      return
    }
    // The handler runs on the organization's clock (each organization has its own).
    const proceed = (): void => { onOrganizationClock(app, request, request.auth!.organizationId, done) }
    if (pending === undefined) proceed()
    else pending.then(proceed, done)
  }

  app.addHook('onRoute', (route) => {
    const config = route.config as { control?: 'organization' | 'global', auth?: AuthRequirement } | undefined
    let guard: onRequestHookHandler | undefined
    if (config?.control !== undefined) guard = controlGuard(config.control)
    else if (config?.auth !== undefined) guard = bearerGuard(config.auth)
    if (guard === undefined) return
    const own = route.onRequest
    route.onRequest = own === undefined ? [guard] : [guard, ...(Array.isArray(own) ? own : [own])]
  })
}

/** Goes on with the request (`done`) on an organization's clock, to its handler (the guard's preValidation hook enters it again). */
export function onOrganizationClock (app: FastifyInstance, request: FastifyRequest, organizationId: string, done: () => void): void {
  request.clockScope = organizationId
  app.clock.within(organizationId, done)
}

export default fp(authGuard, { name: 'auth-guard' })
