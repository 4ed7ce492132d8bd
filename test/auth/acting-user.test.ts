// The guard answers for the acting user: whether X-On-Behalf-Of names it or the token is bound to
// it, a request acts only for a user that exists, so the areas need not look it up again.
import t from 'tap'
import { accessToken, bearer, build, DEMO_ORG, makeClient, makeUser, onBehalfOf } from '../helpers.js'

const notFound = { code: 'entity_not_found', details: { entity: 'user' } }

t.test('a token bound to a user that no longer exists acts for nobody: 404 user, on every user route', async t => {
  const app = await build(t, {}, {
    plugins: [async probe => {
      probe.get('/probe/as-user', { config: { auth: { scopes: [], subjects: ['user'] } } }, async request => ({ userId: request.auth!.userId }))
    }]
  })
  const user = await makeUser(app)
  const bound = await makeClient(app, { organizationId: DEMO_ORG, userId: user.id })
  const token = await accessToken(app, { clientId: bound.clientId, secret: bound.secret })
  t.same((await app.inject({ method: 'GET', url: '/probe/as-user', headers: bearer(token) })).json(), { userId: user.id })
  const metadata = await app.inject({ method: 'PUT', url: '/core/users/me/metadata', headers: bearer(token), payload: { a: 1 } })
  t.equal(metadata.statusCode, 201)

  // Behind the storage's back, so it is told to forget what it remembers of rows.
  await app.storage.db.prepare('DELETE FROM users WHERE id = ?').run(user.id)
  app.storage.forget()
  for (const [method, url] of [['GET', '/probe/as-user'], ['GET', '/core/users/me/metadata'], ['PUT', '/core/users/me/metadata']] as const) {
    const res = await app.inject({ method, url, headers: bearer(token), ...(method === 'PUT' ? { payload: { a: 2 } } : {}) })
    t.equal(res.statusCode, 404, `${method} ${url}`)
    t.match(res.json(), notFound)
  }
})

t.test('X-On-Behalf-Of naming an unknown user is 404 user; naming a known one reaches its metadata', async t => {
  const app = await build(t)
  const token = await accessToken(app, { scope: 'core.users.metadata:write core.users.metadata:read core.users:act-on-behalf-of' })
  const user = await makeUser(app)
  const put = await app.inject({ method: 'PUT', url: '/core/users/me/metadata', headers: { ...bearer(token), ...onBehalfOf(user.id) }, payload: { a: 1 } })
  t.equal(put.statusCode, 201)
  const unknown = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(token), ...onBehalfOf('0b5b7a3e-7c35-4e0b-9d8f-3a1c2b4d5e6f') } })
  t.equal(unknown.statusCode, 404)
  t.match(unknown.json(), notFound)
})
