// Shared pieces of the contract: the error envelopes, identifiers and country codes that every
// API area references. Each schema has an `$id` so the OpenAPI document names it once.
import { Type, type Static } from 'typebox'

export const ErrorBody = Type.Object({
  code: Type.String({ description: 'Machine-readable error code.' }),
  message: Type.String({ description: 'Human-readable text.' }),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Error-specific data.' }))
}, { $id: 'ErrorBody', description: 'The standard API error body.' })
export type ErrorBody = Static<typeof ErrorBody>

export const OAuthErrorBody = Type.Object({
  error: Type.String({ description: 'A single error code.' }),
  error_description: Type.Optional(Type.String({ description: 'Human-readable description.' })),
  error_uri: Type.Optional(Type.String({ description: 'URI of a page with more information.' }))
}, { $id: 'OAuthErrorBody', description: 'OAuth 2.0 error (RFC 6749 section 5.2).' })

export const Uuid = Type.String({ format: 'uuid', description: 'A UUID.' })
export const CountryCode = Type.String({ pattern: '^[A-Z]{2}$', format: 'country-code', description: 'ISO 3166-1 alpha-2 country code.' })
/**
 * An ISO 3166-2 subdivision code, checked by its form only (the reference's pattern): one that fits
 * it but no country has (`US-ZZ`) is the operation's 409 `subdivision_not_supported`, as for a
 * subdivision of another country, never a 400.
 */
export const SubdivisionCode = Type.String({ pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$', description: 'ISO 3166-2 subdivision code.' })
/** A subdivision that exists (the `iso-3166` package): fixtures refuse another with 400 naming its path. */
export const KnownSubdivisionCode = Type.String({ pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$', format: 'subdivision-code', description: 'ISO 3166-2 subdivision code.' })
export const Email = Type.String({ format: 'email', maxLength: 255, description: 'An e-mail address.' })
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 timestamp (UTC).' })

/** Response descriptions shared by every Bearer-protected route, referenced by status code. */
export const errorResponse = (description: string) => ({ description, ...Type.Ref('ErrorBody') })

export const commonErrorResponses = {
  400: errorResponse('The request has missing or invalid parameters (`request_invalid`).'),
  401: errorResponse('The access token is missing, invalid, expired or revoked (`token_invalid`, `token_expired`, `token_revoked`).'),
  403: errorResponse('The token lacks a required scope (`token_insufficient_scopes`) or is for a subject the operation does not allow (`token_subject_not_allowed`).'),
  429: errorResponse('Too many requests (`too_many_requests`), only when a rate limit or fault is configured; see `Retry-After`. ' +
    'With RATE_LIMIT_PER_MINUTE, an address that has had that many 401s within a minute gets it too, before its token is checked.')
}
