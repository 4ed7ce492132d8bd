// One way to declare an operation. An area writes its id, method, URL, scopes, subjects and
// schemas once; from that declaration come the route, its guard, its OpenAPI `security` and the
// answers every guarded route shares (400, 401, 403, 429). Handlers are typed by the TypeBox type
// provider from the request schemas, so no request part is ever cast.
import type {
  FastifyInstance, FastifyReply, FastifyRequest, RawRequestDefaultExpression, RawServerDefault,
  RouteGenericInterface, preValidationHookHandler, onSendHookHandler
} from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { TSchema } from 'typebox'
import { Type } from 'typebox'
import { entityNotFound } from '../errors.js'
import { commonErrorResponses, errorResponse } from '../../schemas/common.js'
import type { AuthContext, SubjectType } from '../auth/guard.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** The parts of a request an operation describes; each is validated before the handler runs. */
export interface RequestSchemas {
  params?: TSchema
  querystring?: TSchema
  headers?: TSchema
  body?: TSchema
}

/** A request whose params, query, headers and body have the static types of their schemas. */
export type OperationRequest<S extends RequestSchemas> =
  FastifyRequest<RouteGenericInterface, RawServerDefault, RawRequestDefaultExpression, S, TypeBoxTypeProvider>
export type OperationReply = FastifyReply

export type Handler<S extends RequestSchemas> = (request: OperationRequest<S>, reply: OperationReply) => unknown

/** What the guard admits for a user subject: the acting user, whose existence it checked. */
export type UserAuth = AuthContext & { subject: 'user', userId: string }
/** What the guard admits for a client subject: no user. */
export type ClientAuth = AuthContext & { subject: 'client', userId: null }
/** The `request.auth` of an operation allowing these subjects. */
export type AuthOf<J extends readonly SubjectType[]> =
  [Exclude<J[number], 'client'>] extends [never] ? ClientAuth : 'client' extends J[number] ? ClientAuth | UserAuth : UserAuth
/** The request of a guarded operation: `auth` is set, typed by the subjects it allows. */
export type GuardedRequest<S extends RequestSchemas, A extends AuthContext> = OperationRequest<S> & { auth: A }
export type GuardedHandler<S extends RequestSchemas, A extends AuthContext> = (request: GuardedRequest<S, A>, reply: OperationReply) => unknown

/** A documented answer: a description alone (an error body), or a full response object. */
export type Answer = string | object

interface Described {
  /** The operationId in the OpenAPI document. */
  id: string
  method: Method
  url: string
  summary: string
  description: string
  /** Success answers, and any error answer the operation documents beyond the shared ones. */
  responses: Record<number, Answer>
  consumes?: string[]
  produces?: string[]
  /** Marks the operation deprecated in the OpenAPI document, as the reference does. */
  deprecated?: boolean
  preValidation?: preValidationHookHandler
  onSend?: onSendHookHandler
}

export type OperationDef<S extends RequestSchemas> = S & Described & {
  /** The OpenAPI tag: the area's, as it declared it. */
  tag: string
  /** Every one of these scopes is needed; none means any valid token. */
  scopes: string[]
  /** The subjects the operation allows: they type the handler's `request.auth`. */
  subjects: readonly SubjectType[]
}

/**
 * Whom a control acts for, declared once per control route:
 * - `organization`: the admin token (naming `organizationId` where the control needs one) or an
 *   organization's control token (scope `sandbox:control`), which bounds it to that organization;
 * - `global`: it acts on every organization, so the admin token only (403 `forbidden` for an
 *   organization's token);
 * - `open`: anyone, even when SANDBOX_ADMIN_TOKEN is set (health, the dashboard page).
 */
export type ControlActs = 'organization' | 'global' | 'open'

export type ControlDef<S extends RequestSchemas> = S & Described & {
  acts: ControlActs
}

/** The OpenAPI `security` entry of a route guarded with these scopes. */
export const oauthSecurity = (scopes: string[]): Array<Record<string, string[]>> => [{ OAuth2: scopes }]
export const adminSecurity: Array<Record<string, string[]>> = [{ SandboxAdmin: [] }]
/** The admin token, or an organization's token with the scope `sandbox:control`. */
export const controlSecurity: Array<Record<string, string[]>> = [{ SandboxAdmin: [] }, { OAuth2: ['sandbox:control'] }]

const answer = (a: Answer): object => typeof a === 'string' ? errorResponse(a) : a

function answers (responses: Record<number, Answer>): Record<number, object> {
  const out: Record<number, object> = {}
  for (const [status, a] of Object.entries(responses)) out[Number(status)] = answer(a)
  return out
}

const hasRequestSchema = (s: RequestSchemas): boolean =>
  s.params !== undefined || s.querystring !== undefined || s.headers !== undefined || s.body !== undefined

function routeSchema (def: RequestSchemas & Described): Record<string, unknown> {
  const schema: Record<string, unknown> = { summary: def.summary, operationId: def.id, description: def.description }
  for (const part of ['params', 'querystring', 'headers', 'body', 'consumes', 'produces', 'deprecated'] as const) {
    if (def[part] !== undefined) schema[part] = def[part]
  }
  return schema
}

/** Sorts responses by status, so the document lists them in order whatever was shared or declared. */
const byStatus = (responses: Record<number, unknown>): Record<number, unknown> =>
  Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)))

/**
 * Declares an API operation guarded by a Bearer token. The guard (src/auth/guard.ts) reads
 * `config.auth`; the OpenAPI document gets the same scopes in `security` and the subjects in
 * `x-subjects`.
 */
export function operation<S extends RequestSchemas, const J extends readonly SubjectType[]> (app: FastifyInstance, def: OperationDef<S> & { subjects: J }, handler: GuardedHandler<S, AuthOf<J>>): void {
  const shared: Record<number, unknown> = {
    401: commonErrorResponses[401],
    403: commonErrorResponses[403],
    429: commonErrorResponses[429]
  }
  // Every guarded route can answer 400: a malformed X-On-Behalf-Of, a body that is not JSON.
  shared[400] = commonErrorResponses[400]
  app.route({
    method: def.method,
    url: def.url,
    config: { auth: { scopes: def.scopes, subjects: [...def.subjects] } },
    schema: {
      tags: [def.tag],
      ...routeSchema(def),
      security: oauthSecurity(def.scopes),
      'x-subjects': def.subjects,
      response: byStatus({ ...shared, ...answers(def.responses) })
    },
    ...(def.preValidation === undefined ? {} : { preValidation: def.preValidation }),
    ...(def.onSend === undefined ? {} : { onSend: def.onSend }),
    handler: handler as unknown as (request: FastifyRequest, reply: FastifyReply) => unknown
  })
}

export type OpenOperationDef<S extends RequestSchemas> = S & Described & {
  tag: string
  /** Route config read by the core's plugins (`oauth: true` renders errors as OAuth 2.0 bodies). */
  config?: Record<string, unknown>
}

/**
 * Declares an API operation that takes no Bearer token (the token endpoint): it authenticates
 * its caller itself, so it documents every answer it gives, none shared.
 */
export function openOperation<S extends RequestSchemas> (app: FastifyInstance, def: OpenOperationDef<S>, handler: Handler<S>): void {
  app.route({
    method: def.method,
    url: def.url,
    config: def.config ?? {},
    schema: { tags: [def.tag], ...routeSchema(def), security: [], response: byStatus(answers(def.responses)) },
    ...(def.preValidation === undefined ? {} : { preValidation: def.preValidation }),
    ...(def.onSend === undefined ? {} : { onSend: def.onSend }),
    handler: handler as unknown as (request: FastifyRequest, reply: FastifyReply) => unknown
  })
}

const adminUnauthorized = errorResponse('The sandbox admin token is missing or invalid (`token_invalid`); checked only when SANDBOX_ADMIN_TOKEN is set.')
const controlUnauthorized = errorResponse('Neither the sandbox admin token nor a valid access token with the scope `sandbox:control` (`token_invalid`, `token_expired`, `token_revoked`); ' +
  'without SANDBOX_ADMIN_TOKEN a request with no token acts as the admin.')
const organizationForbidden = errorResponse('An organization\'s access token without the scope `sandbox:control` (`token_insufficient_scopes`), or bound to a user (`subject_not_allowed`).')
const globalForbidden = errorResponse('An organization\'s control token (`forbidden`, "This control acts on every organization: use the admin token").')
const controlInvalid = errorResponse('The request has missing or invalid parameters (`request_invalid`, with `details.violations`).')

/**
 * Declares a route of the sandbox control API (`/_sandbox/...`, tag `Sandbox`): guarded by the
 * admin token and, per organization, by an organization's control token (`acts`, see ControlActs),
 * with their 401 and 403, and its 400 when it takes any input.
 */
export function control<S extends RequestSchemas> (app: FastifyInstance, def: ControlDef<S>, handler: Handler<S>): void {
  const shared: Record<number, unknown> = {}
  if (def.acts === 'organization') {
    shared[401] = controlUnauthorized
    shared[403] = organizationForbidden
  } else if (def.acts === 'global') {
    shared[401] = adminUnauthorized
    shared[403] = globalForbidden
  }
  if (hasRequestSchema(def)) shared[400] = controlInvalid
  const open = def.acts === 'open'
  app.route({
    method: def.method,
    url: def.url,
    config: def.acts === 'organization' || def.acts === 'global' ? { control: def.acts } : {},
    schema: {
      tags: ['Sandbox'],
      ...routeSchema(def),
      'x-sandbox-acts': def.acts,
      security: open ? [] : def.acts === 'organization' ? controlSecurity : adminSecurity,
      response: byStatus({ ...shared, ...answers(def.responses) })
    },
    ...(def.preValidation === undefined ? {} : { preValidation: def.preValidation }),
    ...(def.onSend === undefined ? {} : { onSend: def.onSend }),
    handler: handler as unknown as (request: FastifyRequest, reply: FastifyReply) => unknown
  })
}

/**
 * The organization a per-organization control acts on. An organization's control token acts on
 * its own (naming another is 404 `entity_not_found`: to it, the other does not exist); the admin
 * acts on the one it names, or undefined (every organization, or the control's default).
 */
export function callerOrganization (request: FastifyRequest, named?: string): string | undefined {
  const caller = request.control
  if (caller === null || caller.admin) return named
  if (named !== undefined && named !== caller.organizationId) throw entityNotFound('organization')
  return caller.organizationId
}

/** Whether the caller of a control may see a thing of this organization: the admin sees all. */
export function callerSees (request: FastifyRequest, organizationId: string | undefined): boolean {
  const caller = request.control
  return caller === null || caller.admin || caller.organizationId === organizationId
}

/**
 * Runs a control on a thing of an organization (found by id, whichever organization): 404
 * (`notFound`) when there is none or the caller may not see it, else `work` on that
 * organization's clock, whoever called (the admin too).
 */
export async function onOrganizationOf<T> (app: FastifyInstance, request: FastifyRequest, organizationId: string | undefined, notFound: () => Error, work: () => Promise<T>): Promise<T> {
  if (organizationId === undefined || !callerSees(request, organizationId)) throw notFound()
  return await app.clock.within(organizationId, work)
}

/** preValidation of routes whose body is optional: no body reads as `{}`. */
export const emptyBodyAsObject: preValidationHookHandler = (request, _reply, done) => {
  if (request.body === undefined || request.body === null) request.body = {}
  done()
}

/** A response given by `$id` with its own description. */
export const ref = (id: string, description: string): Record<string, unknown> => ({ description, ...Type.Ref(id) })

/** An answer with no body. */
export const noContent = (description: string): Record<string, unknown> => ({ description, type: 'null' })
