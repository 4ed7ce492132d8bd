// One error path: route code throws these small typed errors; the error handler plugin renders
// them as the API's own bodies and adds nothing else.

export interface Violation {
  property: string
  rule: string
  ruleParams?: Record<string, unknown>
}

export class ApiError extends Error {
  readonly statusCode: number
  readonly code: string
  readonly details?: Record<string, unknown>
  readonly headers: Record<string, string>

  constructor (statusCode: number, code: string, message: string, details?: Record<string, unknown>, headers: Record<string, string> = {}) {
    super(message)
    this.name = 'ApiError'
    this.statusCode = statusCode
    this.code = code
    this.details = details
    this.headers = headers
  }

  toJSON (): { code: string, message: string, details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details }
  }
}

/** An OAuth 2.0 error (RFC 6749 section 5.2), used only by the token endpoint. */
export class OAuthError extends Error {
  readonly statusCode: number
  readonly error: string
  readonly headers: Record<string, string>

  constructor (statusCode: number, error: string, description: string, headers: Record<string, string> = {}) {
    super(description)
    this.name = 'OAuthError'
    this.statusCode = statusCode
    this.error = error
    this.headers = headers
  }

  toJSON (): { error: string, error_description: string } {
    return { error: this.error, error_description: this.message }
  }
}

export type RequestContext = 'body' | 'query' | 'params' | 'headers'

export const requestInvalid = (context: RequestContext, violations: Violation[]): ApiError =>
  new ApiError(400, 'request_invalid', 'The request has missing or invalid parameters', { context, violations })

export const routeNotFound = (): ApiError =>
  new ApiError(404, 'route_not_found', 'The route cannot be found')

/** 404 for an entity; `entity` is the API's own word for it (`user`, `account`, `metadata`, ...). */
export const entityNotFound = (entity: string, message = `The ${entity} cannot be found`): ApiError =>
  new ApiError(404, 'entity_not_found', message, { entity })

const bearer = (error: string, description: string): Record<string, string> =>
  ({ 'www-authenticate': `Bearer realm="api", error="${error}", error_description="${description}"` })

export const tokenInvalid = (): ApiError =>
  new ApiError(401, 'token_invalid', 'The access token is invalid', undefined, bearer('invalid_token', 'The access token is invalid'))
export const tokenExpired = (): ApiError =>
  new ApiError(401, 'token_expired', 'The access token has expired', undefined, bearer('invalid_token', 'The access token has expired'))
export const tokenRevoked = (): ApiError =>
  new ApiError(401, 'token_revoked', 'The access token has been revoked', undefined, bearer('invalid_token', 'The access token has been revoked'))

export const insufficientScopes = (required: string[], held: string[]): ApiError =>
  new ApiError(403, 'token_insufficient_scopes', 'Authorization failed due to insufficient scopes', {
    security: [{ scheme: 'OAuth', schemeScopes: required, tokenScopes: held }]
  }, bearer('insufficient_scope', 'Authorization failed due to insufficient scopes'))

/**
 * 403 `token_subject_not_allowed`. The message is the reference's; when a client token reaches an
 * operation for users, it goes on to name the header that acts for one.
 */
export const subjectNotAllowed = (subjects: string[], tokenSubject: string): ApiError =>
  new ApiError(403, 'token_subject_not_allowed', 'The access token subject is not allowed for this operation' +
    (tokenSubject === 'client' ? ': act for a user with the X-On-Behalf-Of header' : ''), { subjects, tokenSubject })

export const tooManyRequests = (retryAfterSeconds: number): ApiError =>
  new ApiError(429, 'too_many_requests', 'Try again later', undefined, { 'retry-after': String(retryAfterSeconds) })

export const preconditionFailed = (): ApiError =>
  new ApiError(412, 'precondition_failed', 'The If-Match header value does not match the current metadata')

export const conflict = (code: string, message: string, details?: Record<string, unknown>): ApiError =>
  new ApiError(409, code, message, details)

export const internalError = (): ApiError =>
  new ApiError(500, 'internal_server_error', 'The server encountered an unexpected condition')

export const serviceUnavailable = (): ApiError =>
  new ApiError(503, 'service_unavailable', 'The service is temporarily unavailable')

/** An organization's control token on a control that acts on every organization. */
export const globalControl = (): ApiError =>
  new ApiError(403, 'forbidden', 'This control acts on every organization: use the admin token')

export const unauthorizedAdmin = (): ApiError =>
  new ApiError(401, 'token_invalid', 'The sandbox admin token is missing or invalid', undefined, { 'www-authenticate': 'Bearer realm="sandbox"' })
