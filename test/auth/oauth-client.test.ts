// A real OAuth 2.0 client (oauth4webapi) against the token endpoint on a listening server: both
// grants, both client authentication methods, the RFC 6749 Basic encoding, and the errors as such
// a client reports them.
import t from 'tap'
import type { AddressInfo } from 'node:net'
import * as oauth from 'oauth4webapi'
import { build, DEMO_ID, DEMO_ORG, DEMO_SECRET, makeClient, REQUEST_ID, UUID_RE } from '../helpers.js'

const http = { [oauth.allowInsecureRequests]: true }

t.test('oauth4webapi gets tokens with both grants and uses them', async t => {
  const app = await build(t, {}, {
    plugins: [async probe => {
      probe.get('/probe/users', { config: { auth: { scopes: ['core.users:read'], subjects: ['client'] } } }, async request => request.auth)
    }]
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  // No discovery document: the metadata an integrator would write down from the docs.
  const as: oauth.AuthorizationServer = { issuer: base, token_endpoint: `${base}/core/oauth2/token` }
  const client: oauth.Client = { client_id: DEMO_ID }
  const auth = oauth.ClientSecretBasic(DEMO_SECRET)

  const response = await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'core.users:read core.kyc:read' }, http)
  t.equal(response.headers.get('x-service-organization-id'), DEMO_ORG)
  t.match(response.headers.get(REQUEST_ID), UUID_RE)
  t.equal(response.headers.get('cache-control'), 'no-store')
  const first = await oauth.processClientCredentialsResponse(as, client, response)
  t.equal(first.token_type, 'bearer', 'oauth4webapi normalizes the token type')
  t.equal(first.expires_in, 600)
  t.equal(first.scope, 'core.users:read core.kyc:read')
  t.type(first.refresh_token, 'string')

  const used = await fetch(`${base}/probe/users`, { headers: { authorization: `Bearer ${first.access_token}` } })
  t.equal(used.status, 200)
  t.match(await used.json(), { clientId: DEMO_ID, organizationId: DEMO_ORG, subject: 'client' })

  const refreshed = await oauth.processRefreshTokenResponse(as, client,
    await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token!, { ...http, additionalParameters: { scope: 'core.users:read' } }))
  t.equal(refreshed.scope, 'core.users:read', 'narrowed on refresh')
  t.not(refreshed.refresh_token, first.refresh_token, 'rotated')
  t.equal((await fetch(`${base}/probe/users`, { headers: { authorization: `Bearer ${refreshed.access_token}` } })).status, 200)

  const again = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token!, http))
  t.equal(again.scope, 'core.users:read core.kyc:read', 'the refresh token kept the scopes of the grant')

  await t.rejects(
    oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token!, http).then(async r => await oauth.processRefreshTokenResponse(as, client, r)),
    { name: 'ResponseBodyError', status: 400, error: 'invalid_grant', error_description: 'Token has been revoked' },
    'a used refresh token is refused'
  )
  await t.rejects(
    oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'core.nothing:read' }, http).then(async r => await oauth.processClientCredentialsResponse(as, client, r)),
    { name: 'ResponseBodyError', status: 400, error: 'invalid_scope', error_description: 'Requested scopes must be equal or narrower' }
  )

  const wrong = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic('wrong'), {}, http)
  t.equal(wrong.status, 401)
  t.equal(wrong.headers.get('www-authenticate'), 'Basic realm="token", charset="UTF-8"')
  await t.rejects(oauth.processClientCredentialsResponse(as, client, wrong), { name: 'WWWAuthenticateChallengeError', status: 401 },
    'the Basic challenge of a 401 reaches the client')

  await t.test('client_secret_post (credentials in the body)', async t => {
    const post = await oauth.processClientCredentialsResponse(as, client,
      await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost(DEMO_SECRET), { scope: 'core.kyc:read' }, http))
    t.equal(post.scope, 'core.kyc:read')
  })

  await t.test('a secret and an id that need form-url-encoding inside Basic', async t => {
    const c = await makeClient(app, { clientId: 'id with:colon+plus', secret: 'p@ss:w+rd %41 ~*()', scopes: ['core.users:read'] })
    const special: oauth.Client = { client_id: c.clientId }
    const res = await oauth.processClientCredentialsResponse(as, special,
      await oauth.clientCredentialsGrantRequest(as, special, oauth.ClientSecretBasic(c.secret), {}, http))
    t.equal(res.scope, 'core.users:read')
    t.equal(res.refresh_token, undefined, 'this client has no refresh tokens')
  })
})
