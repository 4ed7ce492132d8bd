// POST /core/oauth2/token: client credentials and refresh token grants, refusing exactly what the
// real service refuses, with its status, `error` and `error_description`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import basicAuth from '@fastify/basic-auth'
import { Type } from 'typebox'
import { OAuthError } from '../errors.js'
import { TokenRequest, TokenResponse } from '../../schemas/oauth.js'
import { openOperation } from '../kit/operation.js'
import { anyCovers, parseScopeString } from './scopes.js'
import { isFamilyOf } from './tokens.js'
import type { ClientRecord } from '../storage/index.js'
import { refreshTokenRetention } from './retention.js'
import { followRetention } from '../kit/retention.js'

const invalidRequest = (description: string): OAuthError => new OAuthError(400, 'invalid_request', description)
const invalidClient = (description: string): OAuthError =>
  new OAuthError(401, 'invalid_client', description, { 'www-authenticate': 'Basic realm="token", charset="UTF-8"' })
const NO_CREDENTIALS = 'Client id and secret could not be extracted from Authorization header'
const BAD_CREDENTIALS = 'Client does not exist or secret is incorrect'
const invalidGrant = (description: string): OAuthError => new OAuthError(400, 'invalid_grant', description)
const INVALID = 'Token is invalid'
const REVOKED = 'Token has been revoked'
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

/** RFC 6749 2.3.1: inside HTTP Basic, the id and the secret are each form-url-encoded. */
function basicCredentials (username: string, password: string): Credentials | undefined {
  const id = formDecode(username)
  const secret = formDecode(password)
  return id === undefined || secret === undefined || id === '' ? undefined : { id, secret }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Client credentials read from HTTP Basic by @fastify/basic-auth on the token route. */
    basicCredentials: Credentials | null
  }
}

const NOT_A_FORM = Symbol('not a form')

export default async function authRoutes (app: FastifyInstance): Promise<void> {
  followRetention(app, refreshTokenRetention(app))
  // This plugin's own parsers: a form, and anything else read (within the limit) only to be
  // refused as OAuth `invalid_request`, never parsed as JSON or text.
  app.removeAllContentTypeParsers()
  await app.register(formbody, { bodyLimit: app.config.bodyLimitBytes })
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: app.config.bodyLimitBytes }, (_request, _body, done) => { done(null, NOT_A_FORM) })

  // HTTP Basic parsing (RFC 7617: scheme, token68, control characters, first colon) by
  // @fastify/basic-auth; the form-url-decoding of RFC 6749 2.3.1 on top. Any failure to read the
  // header is the same `invalid_client`, with our own challenge.
  app.decorateRequest('basicCredentials', null)
  await app.register(basicAuth, {
    authenticate: false,
    strictCredentials: false,
    utf8: true,
    validate: async (username, password, request) => {
      const credentials = basicCredentials(username, password)
      if (credentials === undefined) throw invalidClient(NO_CREDENTIALS)
      request.basicCredentials = credentials
    }
  })
  const readBasic = (request: FastifyRequest, reply: FastifyReply): Promise<Credentials | null | undefined> => {
    const header = request.headers.authorization
    if (header === undefined || !/^[ \t]*basic([ \t]|$)/i.test(header)) return Promise.resolve(undefined)
    return new Promise(resolve => {
      app.basicAuth(request, reply, (err?: Error) => { resolve(err === undefined ? request.basicCredentials : null) })
    })
  }

  const requestId = `x-${app.config.serviceName}-request-id`
  const requestIdHeader = { type: 'string', format: 'uuid', description: 'Identifies the request for the service operator.' }

  openOperation(app, {
    id: 'createOAuth2Token',
    method: 'POST',
    url: '/core/oauth2/token',
    tag: 'Authentication',
    config: { oauth: true },
    summary: 'Request an OAuth 2.0 token',
    description: 'Client credentials grant and refresh token grant, `application/x-www-form-urlencoded` only. ' +
        'The client authenticates with HTTP Basic (RFC 6749 section 2.3.1: id and secret are form-url-encoded before base64) ' +
        'or with `client_id` and `client_secret` in the body; both at once is `invalid_request`. ' +
        'Without `scope` the token gets every scope the client is allowed; a requested scope must be allowed (an allowed scope ending in `*` covers by prefix), ' +
        'and an empty scope, or scopes not separated by single spaces, is `invalid_scope`. ' +
        'A repeated parameter, a body of another content type, or a body larger than the server accepts is `invalid_request`. ' +
        'Refresh tokens are opaque, issued only to clients configured for them, and single use: every refresh returns a new one with the same scopes, ' +
        'and a used one coming back is `invalid_grant` and revokes the refresh tokens issued from it. ' +
        'With client authentication, a refresh token must belong to that client. Rotating a client secret or deleting the client revokes its tokens. ' +
        'A refresh token expired longer than `REFRESH_TOKEN_RETENTION_SECONDS` ago (7 days by default, on its organization\'s sandbox clock) is deleted, and then answers as an unknown one.',
    headers: Type.Object({ authorization: Type.Optional(Type.String({ description: 'Basic <base64(urlencode(client_id):urlencode(client_secret))>' })) }),
    body: TokenRequest,
    consumes: [FORM],
    responses: {
      200: {
        description: 'Token issued.',
        ...TokenResponse,
        headers: {
          [requestId]: requestIdHeader,
          [`x-${app.config.serviceName}-organization-id`]: { type: 'string', format: 'uuid', description: 'The organization the token belongs to.' },
          'cache-control': { type: 'string', const: 'no-store' }
        }
      },
      400: { description: '`invalid_request`, `unsupported_grant_type`, `invalid_grant` or `invalid_scope`.', ...Type.Ref('OAuthErrorBody'), headers: { [requestId]: requestIdHeader } },
      401: {
        description: '`invalid_client`.',
        ...Type.Ref('OAuthErrorBody'),
        headers: { [requestId]: requestIdHeader, 'www-authenticate': { type: 'string', description: '`Basic realm="token", charset="UTF-8"`' } }
      },
      429: 'Too many requests (`too_many_requests`), only when a rate limit or fault is configured; see `Retry-After`. ' +
        'With RATE_LIMIT_PER_MINUTE, failed client authentication counts too: once the address, or the client id the credentials name, ' +
        'has had that many 401s within a minute, further requests are refused before the secret is checked.'
    },
    // Before schema validation: a body of another type, or a repeated parameter (RFC 6749 3.2).
    preValidation: async (request: FastifyRequest) => {
      if (request.body === NOT_A_FORM) throw invalidRequest(`Content type must be ${FORM}`)
      if (request.body === undefined || request.body === null) request.body = {}
      const body: unknown = request.body
      if (typeof body !== 'object' || body === null) return
      for (const [key, value] of Object.entries(body)) {
        if (Array.isArray(value)) throw invalidRequest(`Body/${key} must not be repeated`)
      }
    }
  }, async (request, reply) => {
    const form = request.body
    const grantType = form.grant_type!
    if (grantType !== 'client_credentials' && grantType !== 'refresh_token') {
      throw new OAuthError(400, 'unsupported_grant_type', 'Grant type not supported')
    }

    const basic = await readBasic(request, reply)
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
      // Only a requested list needs checking: the client's own scopes cover themselves (and checking
      // each of a client's scopes against all of them cost a tenth of a token request).
      if (requested !== undefined && !requested.every(s => anyCovers(client.scopes, s))) throw invalidScope()
      const scopes = requested ?? client.scopes
      issued = await app.tokens.issue(client, scopes)
    } else {
      if (form.refresh_token === undefined) throw invalidRequest("Body must have required property 'refresh_token'")
      const found = await app.tokens.findRefreshToken(form.refresh_token)
      if (found === undefined) throw invalidGrant(INVALID)
      const { key, record: stored } = found
      // RFC 6749 section 6: a client that authenticates may only refresh its own tokens.
      if (authenticated !== undefined && stored.clientId !== authenticated.id) throw invalidGrant(INVALID)
      const now = app.clock.nowFor(stored.organizationId)
      if (stored.usedAt !== null) {
        // A used refresh token coming back means it leaked: revoke what was issued from it too.
        await app.storage.refreshTokens.revokeFamily(stored.family, now)
        throw invalidGrant(REVOKED)
      }
      if (stored.expiresAt <= now) throw invalidGrant('Token expired')
      const owner = await app.clients.get(stored.clientId)
      if (owner === undefined || !owner.refreshTokens || !isFamilyOf(stored.family, owner)) throw invalidGrant(REVOKED)
      client = owner
      // Null: every scope of its client, whose generation (checked just above) is the one it was issued under.
      const granted = stored.scopes ?? owner.scopes
      if (requested !== undefined && !requested.every(s => anyCovers(granted, s))) throw invalidScope()
      const scopes = requested ?? granted
      // The new refresh token keeps the scopes of the old one (RFC 6749 section 6).
      const next = app.tokens.newRefreshToken(client, stored.scopes, stored.family)
      const rotated = await app.storage.refreshTokens.rotate(key, now, next.record)
      if (!rotated.ok) {
        // Lost a race with another use of the same token: a reuse like any other.
        if (rotated.reason === 'used') await app.storage.refreshTokens.revokeFamily(stored.family, now)
        throw invalidGrant(rotated.reason === 'used' ? REVOKED : INVALID)
      }
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
