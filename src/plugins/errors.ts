// The one error handler: renders ApiError as `{ code, message, details? }`, OAuthError as the
// OAuth 2.0 body on the token route, schema violations as 400 `request_invalid`, a database that
// cannot be reached (StoreUnavailable: PostgreSQL away) as 503 `service_unavailable`, and anything
// unexpected as a bare 500 whose cause goes to the log only.
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, OAuthError, internalError, requestInvalid, routeNotFound, serviceUnavailable } from '../errors.js'
import { StoreUnavailable } from '../storage/db.js'
import { toContext, toViolations } from './validation.js'

function send (reply: FastifyReply, status: number, body: unknown, headers: Record<string, string> = {}): FastifyReply {
  for (const [k, v] of Object.entries(headers)) reply.header(k, v)
  return reply.code(status).type('application/json; charset=utf-8').send(body)
}

/** Turns any thrown value into the API's error for a normal route. */
export function toApiError (err: FastifyError | Error, bodyLimit: number): ApiError {
  if (err instanceof ApiError) return err
  // The request may well succeed once the database is back: the same 503 a fault rule answers.
  if (err instanceof StoreUnavailable) return serviceUnavailable()
  const e = err as FastifyError
  if (e.validation !== undefined) return requestInvalid(toContext(e.validationContext), toViolations(e.validation as never))
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'content_too_large', 'The request body is greater than maximum size limit', { threshold: { unit: 'bytes', limit: String(bodyLimit) } })
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'media_type_unsupported', 'The request content type is not supported', { contentType: 'application/json' })
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return requestInvalid('body', [{ property: '', rule: 'required' }])
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return requestInvalid('body', [{ property: '', rule: 'format', ruleParams: { format: 'json' } }])
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return requestInvalid('headers', [{ property: 'content-length', rule: 'format' }])
    case 'FST_ERR_BAD_URL':
      return requestInvalid('params', [{ property: '', rule: 'format', ruleParams: { format: 'uri' } }])
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(414, 'uri_too_long', 'A path parameter is longer than the server accepts')
  }
  if (err instanceof SyntaxError && e.statusCode === 400) return requestInvalid('body', [{ property: '', rule: 'format', ruleParams: { format: 'json' } }])
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError(e.statusCode, 'request_invalid', 'The request has missing or invalid parameters')
  }
  return internalError()
}

/** The same for the token endpoint, in OAuth 2.0 terms. */
function toOAuthError (err: FastifyError | Error, api: ApiError, bodyLimit: number): OAuthError | ApiError {
  if (err instanceof OAuthError) return err
  const e = err as FastifyError
  if (e.validation !== undefined && e.validation.length > 0) {
    const first = e.validation[0]
    const description = first.keyword === 'required'
      ? `Body must have required property '${String((first.params as Record<string, unknown>).missingProperty)}'`
      : `Body${first.instancePath} ${first.message ?? 'is invalid'}`
    return new OAuthError(400, 'invalid_request', description)
  }
  if (api.statusCode === 415 || api.code === 'request_invalid') {
    return new OAuthError(400, 'invalid_request', api.statusCode === 415 ? 'Content type must be application/x-www-form-urlencoded' : 'The request is malformed')
  }
  // The token endpoint documents 400 and 401 only: an oversized body is a malformed request too.
  if (api.statusCode === 413) return new OAuthError(400, 'invalid_request', `Body must not be larger than ${String(bodyLimit)} bytes`)
  // 429 and 5xx keep the API's own body, as the real token endpoint does for 429.
  return api
}

async function errorHandler (app: FastifyInstance): Promise<void> {
  const bodyLimit = app.config.bodyLimitBytes
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    let rendered: ApiError | OAuthError = toApiError(err, bodyLimit)
    if (request.routeOptions.config?.oauth === true) rendered = toOAuthError(err, rendered as ApiError, bodyLimit)
    if (rendered.statusCode >= 500) request.log.error({ err }, 'request failed')
    if (rendered instanceof OAuthError) reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
    return send(reply, rendered.statusCode, rendered.toJSON(), rendered.headers)
  })
  app.setNotFoundHandler((request, reply) => {
    const e = routeNotFound()
    return send(reply, e.statusCode, e.toJSON())
  })
}

export default fp(errorHandler, { name: 'error-handler' })
