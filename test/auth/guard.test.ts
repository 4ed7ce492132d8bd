// The Bearer guard, through probe routes that declare `config.auth` the way every protected route
// of the API does: 401s, 403s, X-On-Behalf-Of, subjects, organizations, revocation and restarts.
import t, { type Test } from 'tap'
import { createHmac, randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyPluginAsync, LightMyRequestResponse } from 'fastify'
import { createVerifier } from 'fast-jwt'
import { Clock } from '../../src/clock.js'
import {
  accessToken, basic, bearer, build, DEMO_ID, DEMO_ORG, DEMO_SECRET, fileDatabasePath, makeClient, makeUser, onBehalfOf, REQUEST_ID, tokenRequest, UUID_RE
} from '../helpers.js'

const ACT = 'core.users:act-on-behalf-of'
const ENTITY_NOT_FOUND_USER = { code: 'entity_not_found', message: 'The user cannot be found', details: { entity: 'user' } }

const probes: FastifyPluginAsync = async probe => {
  const echo = async (request: { auth: unknown }): Promise<unknown> => request.auth
  probe.get('/probe/users', { config: { auth: { scopes: ['core.users:read'], subjects: ['client'] } } }, echo)
  probe.get('/probe/two', { config: { auth: { scopes: ['core.users:read', 'core.kyc:read'], subjects: ['client', 'user'] } } }, echo)
  probe.get('/probe/user-metadata', { config: { auth: { scopes: ['core.users.metadata:read'], subjects: ['user'] } } }, echo)
  probe.get('/probe/metadata-write', { config: { auth: { scopes: ['core.users.metadata:write'], subjects: ['client', 'user'] } } }, echo)
  probe.get('/probe/identify', { config: { auth: { scopes: ['partner.kyc-sharing:identify-user'], subjects: ['client'] } } }, echo)
  probe.get('/probe/any', { config: { auth: { scopes: [], subjects: ['client', 'user'] } } }, echo)
  probe.post('/probe/body', { config: { auth: { scopes: [], subjects: ['client'] } } }, async () => ({ ok: true }))
  probe.get('/probe/open', async () => ({ open: true }))
  probe.get('/probe/individuals', { config: { auth: { scopes: [], subjects: ['user:individual'] } } }, echo)
  probe.get('/probe/people', { config: { auth: { scopes: [], subjects: ['client', 'user:individual', 'user:business'] } } }, echo)
}

const buildWithProbes = async (t: Test, overrides = {}): Promise<FastifyInstance> => await build(t, overrides, { plugins: [probes] })
const get = (app: FastifyInstance, url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'GET', url, headers })

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
const partsOf = (jwt: string): { header: Record<string, unknown>, claims: Record<string, unknown>, signature: string } => {
  const [h, p, signature] = jwt.split('.')
  return { header: JSON.parse(Buffer.from(h, 'base64url').toString()), claims: JSON.parse(Buffer.from(p, 'base64url').toString()), signature }
}
const hs256 = (header: unknown, claims: unknown, key: Buffer): string => {
  const input = `${b64url(header)}.${b64url(claims)}`
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`
}

function isApiError (t: Test, res: LightMyRequestResponse, status: number, body: Record<string, unknown>): void {
  t.equal(res.statusCode, status, `status ${status} (${res.body})`)
  t.strictSame(res.json(), body)
  t.match(res.headers[REQUEST_ID], UUID_RE)
}

const TOKEN_INVALID = { code: 'token_invalid', message: 'The access token is invalid' }
const TOKEN_EXPIRED = { code: 'token_expired', message: 'The access token has expired' }
const TOKEN_REVOKED = { code: 'token_revoked', message: 'The access token has been revoked' }
const insufficient = (required: string[], held: string[]): Record<string, unknown> => ({
  code: 'token_insufficient_scopes',
  message: 'Authorization failed due to insufficient scopes',
  details: { security: [{ scheme: 'OAuth', schemeScopes: required, tokenScopes: held }] }
})
const subjectNotAllowed = (subjects: string[], tokenSubject: string): Record<string, unknown> => ({
  code: 'token_subject_not_allowed',
  message: 'The access token subject is not allowed for this operation' + (tokenSubject === 'client' ? ': act for a user with the X-On-Behalf-Of header' : ''),
  details: { subjects, tokenSubject }
})

function is401 (t: Test, res: LightMyRequestResponse, body: Record<string, unknown>): void {
  isApiError(t, res, 401, body)
  t.equal(res.headers['www-authenticate'], `Bearer realm="api", error="invalid_token", error_description="${String(body.message)}"`)
}

t.test('a valid token passes and leaves request.auth for the handler', async t => {
  const app = await buildWithProbes(t)
  const token = await accessToken(app, { scope: 'core.users:read core.kyc:read' })
  const res = await get(app, '/probe/users', bearer(token))
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), { clientId: DEMO_ID, organizationId: DEMO_ORG, subject: 'client', userId: null, scopes: ['core.users:read', 'core.kyc:read'] })
  t.equal((await get(app, '/probe/users', { authorization: `bearer  ${token} ` })).statusCode, 200, 'scheme case and spacing')
  t.equal((await get(app, '/probe/open')).statusCode, 200, 'a route without config.auth needs no token')
})

t.test('missing or malformed Authorization: 401 token_invalid with a Bearer challenge', async t => {
  const app = await buildWithProbes(t)
  for (const authorization of ['Bearer', 'Bearer   ', 'Bearer not-a-jwt', 'Bearer a.b.c']) {
    is401(t, await get(app, '/probe/users', { authorization }), TOKEN_INVALID)
  }
  // RFC 6750 section 3.1: without Bearer credentials at all, the challenge carries no error code.
  for (const headers of [{}, { authorization: '' }, { authorization: basic(DEMO_ID, DEMO_SECRET) }, { authorization: 'Token abc' }] as Array<Record<string, string>>) {
    const res = await get(app, '/probe/users', headers)
    isApiError(t, res, 401, TOKEN_INVALID)
    t.equal(res.headers['www-authenticate'], 'Bearer realm="api"')
  }
})

t.test('the guard answers before the body is read', async t => {
  const app = await buildWithProbes(t)
  const res = await app.inject({ method: 'POST', url: '/probe/body', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, payload: '{"broken' })
  is401(t, res, TOKEN_INVALID)
})

t.test('issued access tokens are standard HS256 JWTs: another implementation verifies them', async t => {
  const app = await buildWithProbes(t)
  const key = Buffer.from((await app.storage.settings.get('jwt.hs256.key'))!, 'base64')
  const verify = createVerifier({ key, algorithms: ['HS256'], complete: true, clockTimestamp: app.clock.now() })
  for (const scope of ['core.users:read', 'core.kyc:read core.users.metadata:read']) {
    const token = await accessToken(app, { scope })
    const { header, payload, signature } = verify(token) as { header: Record<string, unknown>, payload: Record<string, unknown>, signature: string }
    t.strictSame(header, { alg: 'HS256', typ: 'JWT' })
    t.match(payload, { cid: DEMO_ID, sty: 'client', scope, iat: app.clock.nowSeconds(), exp: app.clock.nowSeconds() + 600 })
    t.equal(signature, createHmac('sha256', key).update(token.slice(0, token.lastIndexOf('.'))).digest('base64url'))
  }
  // A wrong key: the other implementation refuses it too.
  const token = await accessToken(app, { scope: 'core.users:read' })
  t.throws(() => createVerifier({ key: Buffer.alloc(32, 1), algorithms: ['HS256'] })(token))
})

t.test('tampered, unsigned or foreign tokens are token_invalid', async t => {
  const app = await buildWithProbes(t)
  const token = await accessToken(app, { scope: 'core.kyc:read' })
  const { header, claims, signature } = partsOf(token)
  const key = Buffer.from((await app.storage.settings.get('jwt.hs256.key'))!, 'base64')
  t.equal(key.length, 32, 'a 256-bit key kept in the database')
  t.equal((await get(app, '/probe/any', bearer(hs256(header, claims, key)))).statusCode, 200, 'the crafting itself is right')

  const widened = `${b64url(header)}.${b64url({ ...claims, scope: 'core.users:read' })}.${signature}`
  is401(t, await get(app, '/probe/users', bearer(widened)), TOKEN_INVALID)
  const flipped = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA')
  is401(t, await get(app, '/probe/any', bearer(flipped)), TOKEN_INVALID)
  const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims, scope: 'core.users:read' })}.`
  is401(t, await get(app, '/probe/users', bearer(unsigned)), TOKEN_INVALID)
  const unsignedNoDot = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}`
  is401(t, await get(app, '/probe/any', bearer(unsignedNoDot)), TOKEN_INVALID)
  is401(t, await get(app, '/probe/any', bearer(hs256(header, claims, Buffer.alloc(32, 7)))), TOKEN_INVALID)
  const hs512 = `${b64url({ alg: 'HS512', typ: 'JWT' })}.${b64url(claims)}`
  is401(t, await get(app, '/probe/any', bearer(`${hs512}.${createHmac('sha512', key).update(hs512).digest('base64url')}`)), TOKEN_INVALID)
  // Signed with the right key but not a token this service issues.
  is401(t, await get(app, '/probe/any', bearer(hs256(header, { sub: DEMO_ID }, key))), TOKEN_INVALID)

  const refresh = (await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))).json().refresh_token
  is401(t, await get(app, '/probe/any', bearer(refresh)), TOKEN_INVALID)
})

t.test('an expired token is token_expired, by the sandbox clock', async t => {
  const app = await buildWithProbes(t, { tokenTtlSeconds: 300 })
  const token = await accessToken(app)
  app.clock.advance(299)
  t.equal((await get(app, '/probe/any', bearer(token))).statusCode, 200, 'one second before expires_in')
  app.clock.advance(1)
  is401(t, await get(app, '/probe/any', bearer(token)), TOKEN_EXPIRED)
  app.clock.advance(-10)
  t.equal((await get(app, '/probe/any', bearer(token))).statusCode, 200, 'turning the clock back revives it')
})

t.test('rotating a client secret or deleting the client revokes its tokens', async t => {
  const app = await buildWithProbes(t)
  const c = await makeClient(app)
  const before = await accessToken(app, { clientId: c.clientId, secret: c.secret })
  t.equal((await get(app, '/probe/any', bearer(before))).statusCode, 200)
  const demoToken = await accessToken(app)

  await app.clients.rotateSecret(c.clientId, 'rotated-secret')
  is401(t, await get(app, '/probe/any', bearer(before)), TOKEN_REVOKED)
  const after = await accessToken(app, { clientId: c.clientId, secret: 'rotated-secret' })
  t.equal((await get(app, '/probe/any', bearer(after))).statusCode, 200, 'a token of the new secret works')

  t.equal(await app.clients.delete(c.clientId), true)
  is401(t, await get(app, '/probe/any', bearer(after)), TOKEN_REVOKED)
  t.equal((await get(app, '/probe/any', bearer(demoToken))).statusCode, 200, 'other clients are untouched')

  await makeClient(app, { clientId: c.clientId, organizationId: c.organizationId, secret: 'rotated-secret' })
  is401(t, await get(app, '/probe/any', bearer(after)), TOKEN_REVOKED)
})

t.test('insufficient scopes: 403 listing the required and the held scopes exactly', async t => {
  const app = await buildWithProbes(t)
  const token = await accessToken(app, { scope: 'core.kyc:read core.files:read' })
  const res = await get(app, '/probe/two', bearer(token))
  isApiError(t, res, 403, insufficient(['core.users:read', 'core.kyc:read'], ['core.kyc:read', 'core.files:read']))
  t.match(res.headers['www-authenticate'], /^Bearer .*error="insufficient_scope"/)
  isApiError(t, await get(app, '/probe/users', bearer(await accessToken(app, { scope: 'core.users:create' }))), 403, insufficient(['core.users:read'], ['core.users:create']))
})

t.test('wildcard scopes match by prefix', async t => {
  const app = await buildWithProbes(t)

  t.test('a token holding core.*', async t => {
    const c = await makeClient(app, { scopes: ['core.*'] })
    const token = await accessToken(app, { clientId: c.clientId, secret: c.secret })
    t.equal((await get(app, '/probe/two', bearer(token))).statusCode, 200)
    t.equal((await get(app, '/probe/metadata-write', bearer(token))).statusCode, 200)
    isApiError(t, await get(app, '/probe/identify', bearer(token)), 403, insufficient(['partner.kyc-sharing:identify-user'], ['core.*']))
  })

  t.test('a client allowed core.users.*', async t => {
    const c = await makeClient(app, { scopes: ['core.users.*'] })
    const token = await accessToken(app, { clientId: c.clientId, secret: c.secret })
    t.strictSame((await get(app, '/probe/metadata-write', bearer(token))).json().scopes, ['core.users.*'])
    isApiError(t, await get(app, '/probe/users', bearer(token)), 403, insufficient(['core.users:read'], ['core.users.*']))
    const narrowed = await accessToken(app, { clientId: c.clientId, secret: c.secret, scope: 'core.users.metadata:*' })
    t.equal((await get(app, '/probe/metadata-write', bearer(narrowed))).statusCode, 200)
  })
})

t.test('X-On-Behalf-Of: user <uuid>', async t => {
  const app = await buildWithProbes(t)
  const user = await makeUser(app)
  const token = await accessToken(app, { scope: `${ACT} core.users.metadata:read core.users:read` })

  t.test('a valid header makes the user the subject', async t => {
    const res = await get(app, '/probe/user-metadata', { ...bearer(token), ...onBehalfOf(user.id) })
    t.equal(res.statusCode, 200)
    t.strictSame(res.json(), { clientId: DEMO_ID, organizationId: DEMO_ORG, subject: 'user', userId: user.id, scopes: [ACT, 'core.users.metadata:read', 'core.users:read'] })
    for (const value of [`USER ${user.id.toUpperCase()}`, `user ${user.id.toUpperCase()}`, `User\t${user.id}`]) {
      const res = await get(app, '/probe/user-metadata', { ...bearer(token), 'x-on-behalf-of': value })
      t.equal(res.json().userId, user.id, `${JSON.stringify(value)}: the same user, in lower case`)
    }
  })

  t.test('malformed: 400 request_invalid in the headers context', async t => {
    for (const value of ['', 'user', `user ${user.id.slice(0, -1)}`, user.id, `client ${user.id}`, `user:${user.id}`, `user  ${user.id}`, `user ${user.id} user ${user.id}`]) {
      const res = await get(app, '/probe/user-metadata', { ...bearer(token), 'x-on-behalf-of': value })
      isApiError(t, res, 400, {
        code: 'request_invalid',
        message: 'The request has missing or invalid parameters',
        details: { context: 'headers', violations: [{ property: 'x-on-behalf-of', rule: 'pattern', ruleParams: { pattern: '^user\\s<uuid>$' } }] }
      })
    }
  })

  t.test('without core.users:act-on-behalf-of: 403', async t => {
    const narrow = await accessToken(app, { scope: 'core.users.metadata:read' })
    isApiError(t, await get(app, '/probe/user-metadata', { ...bearer(narrow), ...onBehalfOf(user.id) }), 403, insufficient([ACT], ['core.users.metadata:read']))
  })

  t.test('a user of another organization, or none: 404 entity_not_found user', async t => {
    const other = await makeClient(app)
    const foreign = await makeUser(app, other.organizationId)
    const notFound = { code: 'entity_not_found', message: 'The user cannot be found', details: { entity: 'user' } }
    isApiError(t, await get(app, '/probe/user-metadata', { ...bearer(token), ...onBehalfOf(foreign.id) }), 404, notFound)
    isApiError(t, await get(app, '/probe/user-metadata', { ...bearer(token), ...onBehalfOf(randomUUID()) }), 404, notFound)
    const otherToken = await accessToken(app, { clientId: other.clientId, secret: other.secret })
    isApiError(t, await get(app, '/probe/user-metadata', { ...bearer(otherToken), ...onBehalfOf(user.id) }), 404, notFound)
    t.equal((await get(app, '/probe/user-metadata', { ...bearer(otherToken), ...onBehalfOf(foreign.id) })).json().userId, foreign.id, 'its own user works')
  })

  t.test('acting as a user where only clients are allowed: 403 token_subject_not_allowed', async t => {
    isApiError(t, await get(app, '/probe/users', { ...bearer(token), ...onBehalfOf(user.id) }), 403, subjectNotAllowed(['client'], 'user'))
  })
})

t.test('subjects: a client token on a user-only route, a user-bound client on a client route', async t => {
  const app = await buildWithProbes(t)
  const token = await accessToken(app, { scope: 'core.users.metadata:read core.users:read' })
  isApiError(t, await get(app, '/probe/user-metadata', bearer(token)), 403, subjectNotAllowed(['user'], 'client'))

  const user = await makeUser(app)
  const bound = await makeClient(app, { organizationId: DEMO_ORG, userId: user.id })
  const userToken = await accessToken(app, { clientId: bound.clientId, secret: bound.secret })
  const res = await get(app, '/probe/user-metadata', bearer(userToken))
  t.equal(res.statusCode, 200)
  t.match(res.json(), { clientId: bound.clientId, subject: 'user', userId: user.id })
  isApiError(t, await get(app, '/probe/users', bearer(userToken)), 403, subjectNotAllowed(['client'], 'user'))
  isApiError(t, await get(app, '/probe/any', { ...bearer(userToken), ...onBehalfOf(user.id) }), 403, subjectNotAllowed(['client'], 'user'))
})

/** A file database in a temporary directory, and a frozen clock, for tests that restart the sandbox. */
function fileDatabase (t: Test): { clock: Clock, overrides: { databasePath: string } } {
  const clock = new Clock()
  clock.freeze(true)
  return { clock, overrides: { databasePath: fileDatabasePath(t) } }
}

t.test('tokens survive a restart on a file database', async t => {
  const { clock, overrides } = fileDatabase(t)

  const first = await build(t, overrides, { clock, plugins: [probes] })
  const issued = (await tokenRequest(first, { grant_type: 'client_credentials', scope: 'core.users:read' }, basic(DEMO_ID, DEMO_SECRET))).json()
  await first.close()

  const second = await build(t, overrides, { clock, plugins: [probes] })
  const res = await get(second, '/probe/users', bearer(issued.access_token))
  t.equal(res.statusCode, 200, 'the access token verifies with the kept key')
  t.equal(res.json().clientId, DEMO_ID)
  const refreshed = await tokenRequest(second, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })
  t.equal(refreshed.statusCode, 200, 'the refresh token is still known')
  clock.advance(600)
  is401(t, await get(second, '/probe/users', bearer(issued.access_token)), TOKEN_EXPIRED)
})

t.test('after a restart nothing is in memory: the guard reads the client and the acting user, and answers as before', async t => {
  const { clock, overrides } = fileDatabase(t)
  const first = await build(t, overrides, { clock, plugins: [probes] })
  const user = await makeUser(first)
  const bound = await makeClient(first, { organizationId: DEMO_ORG, userId: user.id })
  const token = await accessToken(first, { scope: `${ACT} core.users.metadata:read core.users:read` })
  const userToken = await accessToken(first, { clientId: bound.clientId, secret: bound.secret })
  await first.close()

  // Each check on a fresh start: the first request of each kind reads, the second finds it in memory.
  for (let round = 0; round < 2; round++) {
    const second = await build(t, overrides, { clock, plugins: [probes] })
    for (const pass of ['read', 'in memory']) {
      const acting = await get(second, '/probe/user-metadata', { ...bearer(token), ...onBehalfOf(user.id) })
      t.equal(acting.statusCode, 200, `acting user (${pass})`)
      t.match(acting.json(), { clientId: DEMO_ID, subject: 'user', userId: user.id })
      const bound_ = await get(second, '/probe/user-metadata', bearer(userToken))
      t.match(bound_.json(), { clientId: bound.clientId, subject: 'user', userId: user.id }, `user-bound client (${pass})`)
      isApiError(t, await get(second, '/probe/user-metadata', { ...bearer(token), ...onBehalfOf(randomUUID()) }), 404, ENTITY_NOT_FOUND_USER)
      isApiError(t, await get(second, '/probe/users', { ...bearer(token), ...onBehalfOf(user.id) }), 403, subjectNotAllowed(['client'], 'user'))
    }
    await second.close()
  }

  // The client deleted while the sandbox was down: its tokens are revoked, read or not.
  const third = await build(t, overrides, { clock, plugins: [probes] })
  await third.storage.clients.delete(bound.clientId)
  is401(t, await get(third, '/probe/user-metadata', bearer(userToken)), TOKEN_REVOKED)
  is401(t, await get(third, '/probe/user-metadata', bearer(userToken)), TOKEN_REVOKED)
})

t.test('an operation for users of one type admits them and refuses the others with the type named', async t => {
  const app = await buildWithProbes(t)
  const token = await accessToken(app)
  const person = await makeUser(app)
  const company = await makeUser(app)
  await app.storage.db.prepare('UPDATE users SET record = ? WHERE id = ?').run(JSON.stringify({ ...company.record, type: 'business' }), company.id)

  const asPerson = await get(app, '/probe/individuals', { ...bearer(token), ...onBehalfOf(person.id) })
  t.equal(asPerson.statusCode, 200, asPerson.body)
  t.match(asPerson.json(), { subject: 'user', userId: person.id })
  isApiError(t, await get(app, '/probe/individuals', { ...bearer(token), ...onBehalfOf(company.id) }), 403,
    subjectNotAllowed(['user:individual'], 'user:business'))
  isApiError(t, await get(app, '/probe/individuals', bearer(token)), 403, subjectNotAllowed(['user:individual'], 'client'))
  isApiError(t, await get(app, '/probe/individuals', { ...bearer(token), ...onBehalfOf(randomUUID()) }), 404, ENTITY_NOT_FOUND_USER)

  for (const headers of [bearer(token), { ...bearer(token), ...onBehalfOf(person.id) }, { ...bearer(token), ...onBehalfOf(company.id) }]) {
    t.equal((await get(app, '/probe/people', headers)).statusCode, 200, 'every subject the operation names is admitted')
  }
  // A second request finds the type remembered: the same answer.
  isApiError(t, await get(app, '/probe/individuals', { ...bearer(token), ...onBehalfOf(company.id) }), 403,
    subjectNotAllowed(['user:individual'], 'user:business'))
})
