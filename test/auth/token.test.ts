// POST /core/oauth2/token driven with raw requests: every row of the spec's error table, the
// bounds, client authentication edge cases, scope sets and the refresh token grant.
import t, { type Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { allScopes } from '../../src/auth/scopes.js'
import { build, basic, DEMO_ID, DEMO_ORG, DEMO_SECRET, makeClient, REQUEST_ID, tokenRequest, UUID_RE } from '../helpers.js'

const NO_CREDENTIALS = 'Client id and secret could not be extracted from Authorization header'
const BAD_CREDENTIALS = 'Client does not exist or secret is incorrect'
const CONTENT_TYPE = 'Content type must be application/x-www-form-urlencoded'
const MISSING_GRANT_TYPE = "Body must have required property 'grant_type'"
const WIDER = 'Requested scopes must be equal or narrower'
const ALL_SCOPES = Object.keys(allScopes('partner'))

const demo = basic(DEMO_ID, DEMO_SECRET)
const b64 = (text: string): string => 'Basic ' + Buffer.from(text).toString('base64')
const claimsOf = (jwt: string): Record<string, unknown> => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as Record<string, unknown>

function post (app: FastifyInstance, payload: string | undefined, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: '/core/oauth2/token', headers, ...(payload === undefined ? {} : { payload }) })
}

/** The OAuth 2.0 error as a client sees it: status, exact body, no caching, a request id. */
function isOAuthError (t: Test, res: LightMyRequestResponse, status: number, error: string, description: string): void {
  t.equal(res.statusCode, status, `status ${status} (${res.body})`)
  t.strictSame(res.json(), { error, error_description: description })
  t.match(res.headers['content-type'], /^application\/json/)
  t.match(res.headers[REQUEST_ID], UUID_RE, 'carries the request id')
  t.equal(res.headers['cache-control'], 'no-store')
  t.notOk(res.headers['x-service-organization-id'], 'no organization id on a failure')
  if (status === 401) t.equal(res.headers['www-authenticate'], 'Basic realm="token", charset="UTF-8"')
  else t.notOk(res.headers['www-authenticate'])
}

async function refreshTokenOf (app: FastifyInstance, authorization = demo, scope?: string): Promise<{ refresh: string, body: Record<string, unknown> }> {
  const res = await tokenRequest(app, { grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) }, authorization)
  t.equal(res.statusCode, 200, 'client credentials grant')
  const body = res.json() as Record<string, unknown>
  return { refresh: body.refresh_token as string, body }
}

t.test('client credentials: the token, its headers and its claims', async t => {
  const app = await build(t)
  const res = await tokenRequest(app, { grant_type: 'client_credentials' }, demo)
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers.pragma, 'no-cache')
  t.equal(res.headers['x-service-organization-id'], DEMO_ORG)
  t.match(res.headers[REQUEST_ID], UUID_RE)
  const body = res.json()
  t.strictSame(Object.keys(body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type'])
  t.equal(body.token_type, 'Bearer')
  t.equal(body.expires_in, 600, 'the default lifetime')
  t.strictSame(body.scope.split(' '), ALL_SCOPES, 'no scope requested: every allowed scope')
  t.match(body.refresh_token, /^[A-Za-z0-9_-]{43}$/, 'an opaque refresh token for the demo client')

  const [header, , signature] = body.access_token.split('.')
  t.strictSame(JSON.parse(Buffer.from(header, 'base64url').toString()), { alg: 'HS256', typ: 'JWT' })
  t.match(signature, /^[A-Za-z0-9_-]{43}$/, 'an HMAC-SHA256 signature: 32 bytes, base64url')
  const claims = claimsOf(body.access_token)
  t.match(claims, { sub: DEMO_ID, cid: DEMO_ID, org: DEMO_ORG, sty: 'client', scope: body.scope })
  t.equal(claims.iat, app.clock.nowSeconds())
  t.equal(claims.exp, app.clock.nowSeconds() + 600)
  t.match(claims.jti, UUID_RE)

  const stored = await app.storage.db.prepare<[], { hash: string }>('SELECT hash FROM refresh_tokens').all()
  t.equal(stored.length, 1)
  t.not(stored[0].hash, body.refresh_token, 'the refresh token is stored hashed')
  t.notMatch(JSON.stringify(stored), body.refresh_token)
})

t.test('expires_in and the exp claim follow the configured lifetime', async t => {
  const app = await build(t, { tokenTtlSeconds: 120 })
  const body = (await tokenRequest(app, { grant_type: 'client_credentials' }, demo)).json()
  t.equal(body.expires_in, 120)
  const claims = claimsOf(body.access_token)
  t.equal(Number(claims.exp) - Number(claims.iat), 120)
})

t.test('a client not configured for refresh tokens gets none', async t => {
  const app = await build(t)
  const c = await makeClient(app, { scopes: ['core.users:read'] })
  const res = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(c.clientId, c.secret))
  t.equal(res.statusCode, 200)
  t.strictSame(Object.keys(res.json()).sort(), ['access_token', 'expires_in', 'scope', 'token_type'])
  t.equal(res.headers['x-service-organization-id'], c.organizationId)
  t.equal(claimsOf(res.json().access_token).org, c.organizationId)
})

t.test('every row of the error table', async t => {
  const app = await build(t, { refreshTokenTtlSeconds: 60 })

  t.test('400 invalid_request: grant_type missing', async t => {
    isOAuthError(t, await tokenRequest(app, { scope: 'core.users:read' }, demo), 400, 'invalid_request', MISSING_GRANT_TYPE)
    isOAuthError(t, await post(app, undefined), 400, 'invalid_request', MISSING_GRANT_TYPE)
    isOAuthError(t, await post(app, '', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'invalid_request', MISSING_GRANT_TYPE)
  })

  t.test('400 unsupported_grant_type', async t => {
    for (const grant of ['password', 'authorization_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer', 'CLIENT_CREDENTIALS', '']) {
      isOAuthError(t, await tokenRequest(app, { grant_type: grant }, demo), 400, 'unsupported_grant_type', 'Grant type not supported')
    }
  })

  t.test('400 invalid_grant: an expired refresh token', async t => {
    const { refresh } = await refreshTokenOf(app)
    app.clock.advance(60)
    isOAuthError(t, await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refresh }), 400, 'invalid_grant', 'Token expired')
  })

  t.test('400 invalid_scope', async t => {
    isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials', scope: 'core.everything:write' }, demo), 400, 'invalid_scope', WIDER)
  })

  t.test('401 invalid_client: no credentials to extract', async t => {
    isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials' }), 401, 'invalid_client', NO_CREDENTIALS)
  })

  t.test('401 invalid_client: unknown client or wrong secret', async t => {
    isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, 'wrong')), 401, 'invalid_client', BAD_CREDENTIALS)
    isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials' }, basic('nobody', DEMO_SECRET)), 401, 'invalid_client', BAD_CREDENTIALS)
  })
})

t.test('Basic headers that cannot be read are invalid_client, whatever the grant', async t => {
  const app = await build(t)
  const unreadable = [
    'Basic',
    'Basic ',
    'Basic !!!',
    'Basic abc def',
    b64('no-colon-here'),
    b64(':secret-without-id'),
    b64('id:%zz'),
    b64('%E0%A4%A:secret'),
    'Bearer some-token'
  ]
  for (const header of unreadable) {
    isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials' }, header), 401, 'invalid_client', NO_CREDENTIALS)
  }
  isOAuthError(t, await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: 'x' }, b64('no-colon')), 401, 'invalid_client', NO_CREDENTIALS)
  // Scheme names are case-insensitive (RFC 9110 section 11.1).
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, demo.replace('Basic', 'bAsIc'))).statusCode, 200)
})

t.test('an empty secret is a wrong secret', async t => {
  const app = await build(t)
  isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials' }, b64(`${DEMO_ID}:`)), 401, 'invalid_client', BAD_CREDENTIALS)
  isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials', client_id: DEMO_ID, client_secret: '' }), 401, 'invalid_client', BAD_CREDENTIALS)
})

t.test('bounds: scope 4096 characters, refresh_token 8192', async t => {
  const app = await build(t)
  const wide = await makeClient(app, { scopes: ['core.*'] })
  const longest = 'core.' + 'x'.repeat(4091)
  t.equal(longest.length, 4096)
  const ok = await tokenRequest(app, { grant_type: 'client_credentials', scope: longest }, basic(wide.clientId, wide.secret))
  t.equal(ok.statusCode, 200, 'a 4096-character scope string is accepted')
  t.equal(ok.json().scope, longest)

  const tooLong = await tokenRequest(app, { grant_type: 'client_credentials', scope: longest + 'x' }, basic(wide.clientId, wide.secret))
  isOAuthError(t, tooLong, 400, 'invalid_request', 'Body/scope must NOT have more than 4096 characters')
  const tooLongRefresh = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: 'r', scope: longest + 'x' })
  isOAuthError(t, tooLongRefresh, 400, 'invalid_request', 'Body/scope must NOT have more than 4096 characters')

  const refresh8192 = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: 'r'.repeat(8192) })
  isOAuthError(t, refresh8192, 400, 'invalid_grant', 'Token is invalid')
  const refresh8193 = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: 'r'.repeat(8193) })
  isOAuthError(t, refresh8193, 400, 'invalid_request', 'Body/refresh_token must NOT have more than 8192 characters')
})

t.test('a repeated parameter is invalid_request (RFC 6749 section 3.2)', async t => {
  const app = await build(t)
  const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: demo }
  isOAuthError(t, await post(app, 'grant_type=client_credentials&grant_type=client_credentials', form), 400, 'invalid_request', 'Body/grant_type must not be repeated')
  isOAuthError(t, await post(app, 'grant_type=client_credentials&scope=core.users:read&scope=core.users:read', form), 400, 'invalid_request', 'Body/scope must not be repeated')
})

t.test('only a form body is accepted', async t => {
  const app = await build(t)
  const json = await app.inject({ method: 'POST', url: '/core/oauth2/token', headers: { authorization: demo }, payload: { grant_type: 'client_credentials' } })
  isOAuthError(t, json, 400, 'invalid_request', CONTENT_TYPE)
  const badJson = await post(app, '{"grant_type":', { 'content-type': 'application/json' })
  isOAuthError(t, badJson, 400, 'invalid_request', CONTENT_TYPE)
  const text = await post(app, 'grant_type=client_credentials', { 'content-type': 'text/plain', authorization: demo })
  isOAuthError(t, text, 400, 'invalid_request', CONTENT_TYPE)
  const multipart = await post(app, '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--', { 'content-type': 'multipart/form-data; boundary=x', authorization: demo })
  isOAuthError(t, multipart, 400, 'invalid_request', CONTENT_TYPE)
  const noType = await post(app, 'grant_type=client_credentials', { authorization: demo })
  isOAuthError(t, noType, 400, 'invalid_request', CONTENT_TYPE)
  const garbled = await post(app, 'grant_type=client_credentials', { 'content-type': '/;;', authorization: demo })
  isOAuthError(t, garbled, 400, 'invalid_request', CONTENT_TYPE)

  const charset = await post(app, 'grant_type=client_credentials', { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8', authorization: demo })
  t.equal(charset.statusCode, 200, 'a charset parameter is fine')
  const unknownParameter = await post(app, 'grant_type=client_credentials&audience=x', { 'content-type': 'application/x-www-form-urlencoded', authorization: demo })
  t.equal(unknownParameter.statusCode, 200, 'unknown parameters are ignored (RFC 6749 section 3.2)')
})

t.test('a body over the size limit is an OAuth invalid_request, not a 413', async t => {
  const app = await build(t, { bodyLimitBytes: 1024 })
  const big = await post(app, 'grant_type=client_credentials&scope=' + 'x'.repeat(2000), { 'content-type': 'application/x-www-form-urlencoded', authorization: demo })
  isOAuthError(t, big, 400, 'invalid_request', 'Body must not be larger than 1024 bytes')
  const bigJson = await post(app, JSON.stringify({ pad: 'x'.repeat(2000) }), { 'content-type': 'application/json' })
  isOAuthError(t, bigJson, 400, 'invalid_request', 'Body must not be larger than 1024 bytes')
})

t.test('HTTP Basic per RFC 6749 section 2.3.1: id and secret are form-url-encoded inside', async t => {
  const app = await build(t)
  const secret = 'a:b+c%d e f%20g'
  const c = await makeClient(app, { clientId: 'client:with spaces+plus', secret })
  const formEncode = (s: string): string => new URLSearchParams({ s }).toString().slice(2)
  t.equal(formEncode(secret), 'a%3Ab%2Bc%25d+e+f%2520g', 'the encoding a client sends')

  const encoded = b64(`${formEncode(c.clientId)}:${formEncode(secret)}`)
  const ok = await tokenRequest(app, { grant_type: 'client_credentials' }, encoded)
  t.equal(ok.statusCode, 200, 'form-url-encoded id and secret authenticate')
  t.equal(claimsOf(ok.json().access_token).cid, c.clientId)
  const percent = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(c.clientId, secret))
  t.equal(percent.statusCode, 200, '%20 for a space decodes the same as +')

  // Sent without encoding, `%d ` is no valid escape: nothing can be extracted.
  isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials' }, b64(`${formEncode(c.clientId)}:${secret}`)), 401, 'invalid_client', NO_CREDENTIALS)
  // Without encoding a `+` reads as a space, so the secret is a different one.
  const plus = await makeClient(app, { secret: 'p+q:r s' })
  isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials' }, b64(`${plus.clientId}:p+q:r s`)), 401, 'invalid_client', BAD_CREDENTIALS)
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, b64(`${plus.clientId}:p%2Bq%3Ar+s`))).statusCode, 200)
  // An id with a colon sent raw splits at its first colon: a client that does not exist.
  isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials' }, b64(`${c.clientId}:${formEncode(secret)}`)), 401, 'invalid_client', BAD_CREDENTIALS)
})

t.test('client_id and client_secret in the body; never both methods', async t => {
  const app = await build(t)
  const ok = await tokenRequest(app, { grant_type: 'client_credentials', client_id: DEMO_ID, client_secret: DEMO_SECRET })
  t.equal(ok.statusCode, 200)
  t.equal(ok.headers['x-service-organization-id'], DEMO_ORG)
  isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials', client_id: DEMO_ID }), 401, 'invalid_client', NO_CREDENTIALS)
  isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials', client_secret: DEMO_SECRET }), 401, 'invalid_client', NO_CREDENTIALS)
  isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials', client_id: DEMO_ID, client_secret: 'wrong' }), 401, 'invalid_client', BAD_CREDENTIALS)

  const both = 'Client credentials must be sent in one way only'
  isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials', client_id: DEMO_ID, client_secret: DEMO_SECRET }, demo), 400, 'invalid_request', both)
  isOAuthError(t, await tokenRequest(app, { grant_type: 'client_credentials', client_id: DEMO_ID }, demo), 400, 'invalid_request', both)
})

t.test('scope sets: default to the allowed set, narrow on request, refuse wider or malformed', async t => {
  const app = await build(t)
  const c = await makeClient(app, { scopes: ['core.users:read', 'core.users:create', 'core.kyc:read'] })
  const auth = basic(c.clientId, c.secret)
  const grant = async (scope?: string): Promise<LightMyRequestResponse> =>
    await tokenRequest(app, { grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) }, auth)

  t.equal((await grant()).json().scope, 'core.users:read core.users:create core.kyc:read')
  t.equal((await grant('core.kyc:read')).json().scope, 'core.kyc:read')
  t.equal((await grant('core.kyc:read core.users:read core.kyc:read')).json().scope, 'core.kyc:read core.users:read', 'duplicates collapse')
  t.equal((await grant('core.users:read core.users:create core.kyc:read')).statusCode, 200, 'equal is fine')

  for (const scope of [
    'core.users:delete',
    'core.users:read core.users:delete',
    'core.users:*',
    'core.users',
    'CORE.USERS:READ',
    '',
    ' ',
    'core.users:read  core.kyc:read',
    ' core.users:read',
    'core.users:read ',
    'core.users:read\tcore.kyc:read',
    'core.users:read,core.kyc:read',
    'core.users:"read"',
    'core.users:read\\'
  ]) {
    isOAuthError(t, await grant(scope), 400, 'invalid_scope', WIDER)
  }
})

t.test('a trailing * in an allowed scope matches by prefix', async t => {
  const app = await build(t)
  const c = await makeClient(app, { scopes: ['core.users.*', 'core.kyc:read'] })
  const grant = async (scope?: string): Promise<LightMyRequestResponse> =>
    await tokenRequest(app, { grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) }, basic(c.clientId, c.secret))

  t.equal((await grant()).json().scope, 'core.users.* core.kyc:read')
  t.equal((await grant('core.users.metadata:read core.users.metadata:write')).json().scope, 'core.users.metadata:read core.users.metadata:write')
  t.equal((await grant('core.users.metadata:*')).json().scope, 'core.users.metadata:*', 'a narrower wildcard')
  t.equal((await grant('core.users.*')).statusCode, 200, 'the same wildcard')
  isOAuthError(t, await grant('core.users:read'), 400, 'invalid_scope', WIDER)
  isOAuthError(t, await grant('core.*'), 400, 'invalid_scope', WIDER)
  isOAuthError(t, await grant('core.kyc.profile:update'), 400, 'invalid_scope', WIDER)
})

t.test('refresh token grant: rotation, reuse, ownership and scopes', async t => {
  const app = await build(t)
  const refresh = (form: Record<string, string>, authorization?: string): Promise<LightMyRequestResponse> =>
    tokenRequest(app, { grant_type: 'refresh_token', ...form }, authorization)

  t.test('rotates on use; a used token is refused and revokes its family', async t => {
    const { refresh: first, body: firstBody } = await refreshTokenOf(app, demo, 'core.users:read core.kyc:read')
    const res = await refresh({ refresh_token: first })
    t.equal(res.statusCode, 200, 'no client authentication needed')
    t.equal(res.headers['cache-control'], 'no-store')
    t.equal(res.headers['x-service-organization-id'], DEMO_ORG)
    const body = res.json()
    t.strictSame(Object.keys(body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type'])
    t.equal(body.scope, 'core.users:read core.kyc:read', 'the scopes of the grant')
    t.not(body.refresh_token, first, 'a new refresh token')
    t.not(body.access_token, firstBody.access_token)
    t.match(claimsOf(body.access_token), { cid: DEMO_ID, org: DEMO_ORG, sty: 'client' })

    isOAuthError(t, await refresh({ refresh_token: first }), 400, 'invalid_grant', 'Token has been revoked')
    isOAuthError(t, await refresh({ refresh_token: body.refresh_token }), 400, 'invalid_grant', 'Token has been revoked')
  })

  t.test('the chain goes on while each token is used once', async t => {
    let { refresh: current } = await refreshTokenOf(app)
    for (let i = 0; i < 3; i++) {
      const res = await refresh({ refresh_token: current }, demo)
      t.equal(res.statusCode, 200)
      current = res.json().refresh_token
    }
  })

  t.test('two uses at once: exactly one wins', async t => {
    const { refresh: token } = await refreshTokenOf(app)
    const results = await Promise.all([refresh({ refresh_token: token }), refresh({ refresh_token: token })])
    t.strictSame(results.map(r => r.statusCode).sort(), [200, 400])
    const winner = results.find(r => r.statusCode === 200)!
    isOAuthError(t, await refresh({ refresh_token: winner.json().refresh_token }), 400, 'invalid_grant', 'Token has been revoked')
  })

  t.test('with client authentication, the token must be that client\'s', async t => {
    const other = await makeClient(app, { refreshTokens: true })
    const { refresh: token } = await refreshTokenOf(app)
    isOAuthError(t, await refresh({ refresh_token: token }, basic(other.clientId, other.secret)), 400, 'invalid_grant', 'Token is invalid')
    isOAuthError(t, await refresh({ refresh_token: token }, basic(DEMO_ID, 'wrong')), 401, 'invalid_client', BAD_CREDENTIALS)
    const ok = await refresh({ refresh_token: token, client_id: DEMO_ID, client_secret: DEMO_SECRET })
    t.equal(ok.statusCode, 200, 'the refused attempts did not use the token up')
  })

  t.test('narrower scope on request, wider refused, the refresh token keeps its scopes', async t => {
    const { refresh: token } = await refreshTokenOf(app, demo, 'core.users:read core.kyc:read')
    isOAuthError(t, await refresh({ refresh_token: token, scope: 'core.users:read core.users:create' }), 400, 'invalid_scope', WIDER)
    isOAuthError(t, await refresh({ refresh_token: token, scope: '' }), 400, 'invalid_scope', WIDER)
    const narrow = await refresh({ refresh_token: token, scope: 'core.kyc:read' })
    t.equal(narrow.statusCode, 200, 'the refused attempts did not use the token up')
    t.equal(narrow.json().scope, 'core.kyc:read')
    t.equal(claimsOf(narrow.json().access_token).scope, 'core.kyc:read')
    const again = await refresh({ refresh_token: narrow.json().refresh_token })
    t.equal(again.json().scope, 'core.users:read core.kyc:read', 'RFC 6749 section 6: the new refresh token has the old one\'s scopes')
  })

  t.test('unknown or missing refresh tokens', async t => {
    isOAuthError(t, await refresh({ refresh_token: 'not-a-token' }), 400, 'invalid_grant', 'Token is invalid')
    isOAuthError(t, await refresh({ refresh_token: '' }), 400, 'invalid_grant', 'Token is invalid')
    isOAuthError(t, await refresh({}), 400, 'invalid_request', "Body must have required property 'refresh_token'")
    const access = (await tokenRequest(app, { grant_type: 'client_credentials' }, demo)).json().access_token
    isOAuthError(t, await refresh({ refresh_token: access }), 400, 'invalid_grant', 'Token is invalid')
  })
})

t.test('refresh tokens expire with the configured lifetime', async t => {
  const app = await build(t, { refreshTokenTtlSeconds: 3600 })
  const { refresh: early } = await refreshTokenOf(app)
  const { refresh: late } = await refreshTokenOf(app)
  app.clock.advance(3599)
  t.equal((await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: early })).statusCode, 200, 'one second before expiry')
  app.clock.advance(1)
  isOAuthError(t, await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: late }), 400, 'invalid_grant', 'Token expired')
})

t.test('a refresh token dies with its client', async t => {
  const app = await build(t)

  t.test('deleted client', async t => {
    const c = await makeClient(app, { refreshTokens: true })
    const { refresh } = await refreshTokenOf(app, basic(c.clientId, c.secret))
    t.equal(await app.clients.delete(c.clientId), true)
    isOAuthError(t, await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refresh }), 400, 'invalid_grant', 'Token is invalid')
  })

  t.test('rotated secret', async t => {
    const c = await makeClient(app, { refreshTokens: true })
    const { refresh } = await refreshTokenOf(app, basic(c.clientId, c.secret))
    await app.clients.rotateSecret(c.clientId, 'new-secret')
    isOAuthError(t, await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refresh }), 400, 'invalid_grant', 'Token is invalid')
  })

  t.test('organization wiped and the client created again under the same id', async t => {
    const c = await makeClient(app, { refreshTokens: true })
    const { refresh } = await refreshTokenOf(app, basic(c.clientId, c.secret))
    // What a sandbox reset of one organization does: the clients go with it (ON DELETE CASCADE).
    await app.storage.db.prepare('DELETE FROM organizations WHERE id = ?').run(c.organizationId)
    app.clients.forget()
    await makeClient(app, { clientId: c.clientId, secret: c.secret, organizationId: c.organizationId, refreshTokens: true })
    isOAuthError(t, await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refresh }), 400, 'invalid_grant', 'Token has been revoked')
  })
})
