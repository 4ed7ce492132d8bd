// POST /core/oauth2/token: client credentials and refresh token grants, refusing exactly what the
// real service refuses, with its status, `error` and `error_description`.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import { Type } from 'typebox'
import { OAuthError } from '../errors.js'
import { TokenRequest, TokenResponse } from '../../schemas/oauth.js'
import { anyCovers, parseScopeString } from './scopes.js'
import { hashRefreshToken } from './tokens.js'
import type { ClientRecord } from '../storage/index.js'

const invalidRequest = (description: string): OAuthError => new OAuthError(400, 'invalid_request', description)
const invalidClient = (description: string): OAuthError =>
  new OAuthError(401, 'invalid_client', description, { 'www-authenticate': 'Basic realm="token", charset="UTF-8"' })
const NO_CREDENTIALS = 'Client id and secret could not be extracted from Authorization header'
const BAD_CREDENTIALS = 'Client does not exist or secret is incorrect'
const invalidGrant = (description: string): OAuthError => new OAuthError(400, 'invalid_grant', description)
const invalidScope = (): OAuthError => new OAuthError(400, 'invalid_scope', 'Requested scopes must be equal or narrower')

const FORM = 'application/x-www-form-urlencoded'

interface Credentials { id: string, secret: string }

function formDecode (value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '))
  } catch {
    return undefined
  }
}

/**
 * Credentials from HTTP Basic, per RFC 6749 2.3.1: id and secret are form-url-encoded, then joined
 * by a colon and base64-encoded. undefined: no Basic header; null: a Basic header we cannot read.
 */
function basicCredentials (header: string | undefined): Credentials | null | undefined {
  if (header === undefined) return undefined
  const match = /^basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header)
  if (match === null) return /^basic(\s|$)/i.test(header) ? null : undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return null
  const id = formDecode(decoded.slice(0, colon))
  const secret = formDecode(decoded.slice(colon + 1))
  if (id === undefined || secret === undefined || id === '') return null
  return { id, secret }
}

type Form = Record<string, string | string[] | undefined>

export default async function authRoutes (app: FastifyInstance): Promise<void> {
  await app.register(formbody, { bodyLimit: app.config.bodyLimitBytes })

  app.post('/core/oauth2/token', {
    config: { oauth: true },
    schema: {
      tags: ['Authentication'],
      summary: 'Request an OAuth 2.0 token',
      description: 'Client credentials grant (HTTP Basic, or `client_id`/`client_secret` in the body, not both) and refresh token grant. ' +
        'Refresh tokens are opaque, single use (rotated on every use) and issued only to clients configured for them.',
      operationId: 'createOAuth2Token',
      security: [],
      headers: Type.Object({ authorization: Type.Optional(Type.String({ description: 'Basic <base64(urlencode(client_id):urlencode(client_secret))>' })) }),
      body: TokenRequest,
      consumes: [FORM],
      response: {
        200: { description: 'Token issued. Carries `Cache-Control: no-store` and the organization-id header.', ...TokenResponse },
        400: { description: '`invalid_request`, `unsupported_grant_type`, `invalid_grant` or `invalid_scope`.', ...Type.Ref('OAuthErrorBody') },
        401: { description: '`invalid_client`, with `WWW-Authenticate: Basic`.', ...Type.Ref('OAuthErrorBody') }
      }
    },
    // Before schema validation: a repeated parameter (RFC 6749 3.2) or a body of another type.
    preValidation: async (request: FastifyRequest) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
      if (request.body !== undefined && request.body !== null && type !== FORM) {
        throw invalidRequest(`Content type must be ${FORM}`)
      }
      const form = (request.body ?? {}) as Form
      if (typeof form !== 'object' || Array.isArray(form)) throw invalidRequest(`Content type must be ${FORM}`)
      for (const [key, value] of Object.entries(form)) {
        if (Array.isArray(value)) throw invalidRequest(`Body/${key} must not be repeated`)
      }
      if (request.body === undefined || request.body === null) request.body = {}
    }
  }, async (request, reply) => {
    const form = request.body as Record<string, string | undefined>
    const grantType = form.grant_type!
    if (grantType !== 'client_credentials' && grantType !== 'refresh_token') {
      throw new OAuthError(400, 'unsupported_grant_type', 'Grant type not supported')
    }

    const basic = basicCredentials(request.headers.authorization)
    const inBody = form.client_id !== undefined || form.client_secret !== undefined
    if (basic !== undefined && inBody) throw invalidRequest('Client credentials must be sent in one way only')
    if (basic === null) throw invalidClient(NO_CREDENTIALS)
    let credentials: Credentials | undefined = basic
    if (inBody) {
      if (form.client_id === undefined || form.client_id === '' || form.client_secret === undefined) throw invalidClient(NO_CREDENTIALS)
      credentials = { id: form.client_id, secret: form.client_secret }
    }

    let authenticated: ClientRecord | undefined
    if (credentials !== undefined) {
      authenticated = await app.clients.authenticate(credentials.id, credentials.secret)
      if (authenticated === undefined) throw invalidClient(BAD_CREDENTIALS)
    }

    let requested: string[] | undefined
    if (form.scope !== undefined) {
      requested = parseScopeString(form.scope)
      if (requested === undefined) throw invalidScope()
    }

    let issued
    let client: ClientRecord
    if (grantType === 'client_credentials') {
      if (authenticated === undefined) throw invalidClient(NO_CREDENTIALS)
      client = authenticated
      const scopes = requested ?? client.scopes
      if (!scopes.every(s => anyCovers(client.scopes, s))) throw invalidScope()
      issued = await app.tokens.issue(client, scopes)
    } else {
      if (form.refresh_token === undefined) throw invalidRequest("Body must have required property 'refresh_token'")
      const hash = hashRefreshToken(form.refresh_token)
      const stored = await app.storage.refreshTokens.get(hash)
      if (stored === undefined) throw invalidGrant('Token is invalid')
      if (authenticated !== undefined && stored.clientId !== authenticated.id) throw invalidGrant('Token is invalid')
      const now = app.clock.now()
      if (stored.usedAt !== null) {
        // A used refresh token coming back means it leaked: revoke what was issued from it too.
        await app.storage.refreshTokens.revokeFamily(stored.family, now)
        throw invalidGrant('Token has been revoked')
      }
      if (stored.expiresAt <= now) throw invalidGrant('Token expired')
      const owner = await app.clients.get(stored.clientId)
      if (owner === undefined || !owner.refreshTokens) throw invalidGrant('Token has been revoked')
      client = owner
      const scopes = requested ?? stored.scopes
      if (!scopes.every(s => anyCovers(stored.scopes, s))) throw invalidScope()
      const next = app.tokens.newRefreshToken(client, stored.scopes, stored.family)
      const rotated = await app.storage.refreshTokens.rotate(hash, now, next.record)
      if (!rotated.ok) throw invalidGrant(rotated.reason === 'used' ? 'Token has been revoked' : 'Token is invalid')
      issued = { ...(await app.tokens.issue(client, scopes, stored.family)), refresh_token: next.token }
    }

    reply
      .header('cache-control', 'no-store')
      .header('pragma', 'no-cache')
      .header(`x-${app.config.serviceName}-organization-id`, client.organizationId)
    request.log.debug({ clientId: client.id, grantType }, 'token issued')
    return issued
  })
}
