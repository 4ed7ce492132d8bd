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

export type ControlDef<S extends RequestSchemas> = S & Described & {
  /** Open to anyone, even when SANDBOX_ADMIN_TOKEN is set (health, the dashboard page). */
  open?: boolean
}

/** The OpenAPI `security` entry of a route guarded with these scopes. */
export const oauthSecurity = (scopes: string[]): Array<Record<string, string[]>> => [{ OAuth2: scopes }]
export const adminSecurity: Array<Record<string, string[]>> = [{ SandboxAdmin: [] }]

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
const controlInvalid = errorResponse('The request has missing or invalid parameters (`request_invalid`, with `details.violations`).')

/**
 * Declares a route of the sandbox control API (`/_sandbox/...`, tag `Sandbox`): guarded by
 * SANDBOX_ADMIN_TOKEN when one is set, with its 401, and its 400 when it takes any input.
 */
export function control<S extends RequestSchemas> (app: FastifyInstance, def: ControlDef<S>, handler: Handler<S>): void {
  const shared: Record<number, unknown> = {}
  if (def.open !== true) shared[401] = adminUnauthorized
  if (hasRequestSchema(def)) shared[400] = controlInvalid
  app.route({
    method: def.method,
    url: def.url,
    config: def.open === true ? {} : { admin: true },
    schema: {
      tags: ['Sandbox'],
      ...routeSchema(def),
      security: def.open === true ? [] : adminSecurity,
      response: byStatus({ ...shared, ...answers(def.responses) })
    },
    ...(def.preValidation === undefined ? {} : { preValidation: def.preValidation }),
    ...(def.onSend === undefined ? {} : { onSend: def.onSend }),
    handler: handler as unknown as (request: FastifyRequest, reply: FastifyReply) => unknown
  })
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
