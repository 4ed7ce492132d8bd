import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { accessToken, basic, bearer, build, DEMO_ID, DEMO_ORG, makeUser, tokenRequest } from '../helpers.js'

const withProbe = {
  plugins: [async (p: FastifyInstance) => {
    p.get('/probe/protected', { config: { auth: { scopes: [], subjects: ['client', 'user'] } } }, async request => ({ auth: request.auth }))
  }]
}
const probe = (app: FastifyInstance, token: string) => app.inject({ method: 'GET', url: '/probe/protected', headers: bearer(token) })
const create = (app: FastifyInstance, payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/_sandbox/clients', payload })

t.test('create with generated id and secret: demo organization by default; the client gets tokens', async t => {
  const app = await build(t)
  const res = await create(app, { scopes: ['core.users:read'] })
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.match(body, { organizationId: DEMO_ORG, scopes: ['core.users:read'], refreshTokens: false, userId: null, createdAt: app.clock.iso(), name: '' })
  t.match(body.clientId, /^client-/)
  t.ok(body.clientSecret.length >= 24, 'a random secret is shown once')

  const token = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(body.clientId, body.clientSecret))
  t.equal(token.statusCode, 200)
  t.equal(token.json().scope, 'core.users:read')
  t.notOk(token.json().refresh_token)

  const read = await app.inject({ method: 'GET', url: `/_sandbox/clients/${body.clientId}` })
  t.equal(read.statusCode, 200)
  t.notOk('clientSecret' in read.json(), 'the secret is never shown again')
  const { clientSecret: _, ...shown } = body
  t.same(read.json(), shown)
})

t.test('create with given id, secret, new organization, refresh tokens and a bound user', async t => {
  const app = await build(t, {}, withProbe)
  const organizationId = randomUUID()
  const res = await create(app, { clientId: 'my-client', clientSecret: 'my-secret-123', name: 'CI', scopes: ['core.users*'], refreshTokens: true, organizationId })
  t.equal(res.statusCode, 201)
  t.match(res.json(), { clientId: 'my-client', clientSecret: 'my-secret-123', name: 'CI', organizationId, refreshTokens: true })
  t.ok(await app.storage.organizations.get(organizationId), 'the organization is created')

  const token = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'core.users:read' }, basic('my-client', 'my-secret-123'))
  t.equal(token.statusCode, 200)
  t.ok(token.json().refresh_token)

  const user = await makeUser(app, organizationId)
  const bound = await create(app, { clientId: 'bound', clientSecret: 'bound-secret', scopes: ['core.users.metadata:read'], organizationId, userId: user.id })
  t.equal(bound.statusCode, 201)
  t.equal(bound.json().userId, user.id)
  const boundToken = await accessToken(app, { clientId: 'bound', secret: 'bound-secret' })
  const seen = await probe(app, boundToken)
  t.match(seen.json().auth, { subject: 'user', userId: user.id, organizationId })
})

t.test('create refuses bad input with 400, a foreign or unknown user with 404 and a taken id with 409', async t => {
  const app = await build(t)
  const bad = await create(app, { clientId: 'has space', clientSecret: 'short', scopes: ['core.users:read', 'no.such:scope', 'zzz*'], extra: true })
  t.equal(bad.statusCode, 400)
  const properties = bad.json().details.violations.map((v: { property: string }) => v.property).sort()
  t.same(properties, ['clientId', 'clientSecret', 'extra'])
  const scopes = await create(app, { scopes: ['core.users:read', 'no.such:scope', 'zzz*'] })
  t.same(scopes.json().details.violations, [
    { property: 'scopes.1', rule: 'scope', ruleParams: { scope: 'no.such:scope' } },
    { property: 'scopes.2', rule: 'scope', ruleParams: { scope: 'zzz*' } }
  ])
  t.equal((await create(app, {})).json().details.violations[0].property, 'scopes')

  const other = await makeUser(app, randomUUID())
  const foreign = await create(app, { scopes: [], userId: other.id })
  t.equal(foreign.statusCode, 404)
  t.same(foreign.json(), { code: 'entity_not_found', message: 'The user cannot be found', details: { entity: 'user' } })

  const taken = await create(app, { clientId: DEMO_ID, scopes: [] })
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().code, 'client_already_exists')
  t.equal((await app.storage.clients.list()).length, 1, 'nothing was created')
})

t.test('list, filter by organization, and 404 for unknown ids', async t => {
  const app = await build(t)
  const org = randomUUID()
  await create(app, { clientId: 'a-client', scopes: [], organizationId: org })
  const all = await app.inject({ method: 'GET', url: '/_sandbox/clients' })
  t.same(all.json().clients.map((c: { clientId: string }) => c.clientId).sort(), ['a-client', DEMO_ID])
  t.notOk(all.json().clients.some((c: Record<string, unknown>) => 'clientSecret' in c))
  const one = await app.inject({ method: 'GET', url: `/_sandbox/clients?organizationId=${org}` })
  t.same(one.json().clients.map((c: { clientId: string }) => c.clientId), ['a-client'])

  for (const [method, url] of [['GET', '/_sandbox/clients/nope'], ['DELETE', '/_sandbox/clients/nope'], ['POST', '/_sandbox/clients/nope/rotate-secret']] as const) {
    const res = await app.inject({ method, url })
    t.equal(res.statusCode, 404, `${method} ${url}`)
    t.same(res.json(), { code: 'entity_not_found', message: 'The client cannot be found', details: { entity: 'client' } })
  }
})

t.test('deleting a client revokes its tokens (401 token_revoked) and its credentials', async t => {
  const app = await build(t, {}, withProbe)
  await create(app, { clientId: 'doomed', clientSecret: 'doomed-secret', scopes: [] })
  const token = await accessToken(app, { clientId: 'doomed', secret: 'doomed-secret' })
  t.equal((await probe(app, token)).statusCode, 200)

  const del = await app.inject({ method: 'DELETE', url: '/_sandbox/clients/doomed' })
  t.equal(del.statusCode, 204)
  t.equal(del.body, '')
  const refused = await probe(app, token)
  t.equal(refused.statusCode, 401)
  t.equal(refused.json().code, 'token_revoked')
  const again = await tokenRequest(app, { grant_type: 'client_credentials' }, basic('doomed', 'doomed-secret'))
  t.equal(again.statusCode, 401)
  t.equal(again.json().error, 'invalid_client')
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/clients/doomed' })).statusCode, 404)
})

t.test('rotating a secret revokes earlier tokens; the old secret stops working, the new one works', async t => {
  const app = await build(t, {}, withProbe)
  await create(app, { clientId: 'rotor', clientSecret: 'first-secret', scopes: [], refreshTokens: true })
  const first = await tokenRequest(app, { grant_type: 'client_credentials' }, basic('rotor', 'first-secret'))
  const { access_token: token, refresh_token: refresh } = first.json()

  const rotated = await app.inject({ method: 'POST', url: '/_sandbox/clients/rotor/rotate-secret' })
  t.equal(rotated.statusCode, 200)
  const secret = rotated.json().clientSecret
  t.ok(secret.length >= 24)
  t.equal(rotated.json().clientId, 'rotor')

  const refused = await probe(app, token)
  t.equal(refused.statusCode, 401)
  t.equal(refused.json().code, 'token_revoked')
  t.equal((await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refresh })).json().error, 'invalid_grant')
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic('rotor', 'first-secret'))).statusCode, 401)
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic('rotor', secret))).statusCode, 200)

  const chosen = await app.inject({ method: 'POST', url: '/_sandbox/clients/rotor/rotate-secret', payload: { clientSecret: 'chosen-secret' } })
  t.equal(chosen.json().clientSecret, 'chosen-secret')
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic('rotor', 'chosen-secret'))).statusCode, 200)
  const short = await app.inject({ method: 'POST', url: '/_sandbox/clients/rotor/rotate-secret', payload: { clientSecret: 'x' } })
  t.equal(short.statusCode, 400)
})
