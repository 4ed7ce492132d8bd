// The request log keeps its entries as text packed in pages (and a larger entry apart): whatever
// the size of an entry and wherever it falls in the ring, it reads back as it was recorded.
import t from 'tap'
import { accessToken, bearer, build, userIp } from '../helpers.js'

t.test('small and large entries, across pages and the wrap of the ring, read back whole', async t => {
  const app = await build(t, { requestLogSize: 300 })
  const token = await accessToken(app, { scope: 'core.users:create' })
  for (let i = 0; i < 290; i++) await app.inject({ method: 'GET', url: `/core/missing/${i}` })
  const docs = await app.inject({ method: 'GET', url: '/openapi.json' })
  t.equal(docs.statusCode, 200)
  const email = 'x'.repeat(5000)
  const big = await app.inject({ method: 'POST', url: '/core/users', headers: { ...bearer(token), ...userIp() }, payload: { email, note: 'é'.repeat(1000) } })
  t.equal(big.statusCode, 400)
  for (let i = 290; i < 320; i++) await app.inject({ method: 'GET', url: `/core/missing/${i}` })

  const log = (await app.inject({ method: 'GET', url: '/_sandbox/requests?limit=1000' })).json()
  t.equal(log.total, 300)
  const paths = log.requests.map((e: { path: string }) => e.path)
  t.same(paths.slice(0, 30), Array.from({ length: 30 }, (_, k) => `/core/missing/${319 - k}`), 'newest first, across the wrap')
  t.same(paths.slice(30, 32), ['/core/users', '/openapi.json'])
  t.same(paths.slice(32), Array.from({ length: 268 }, (_, k) => `/core/missing/${289 - k}`), 'the oldest are dropped')

  const [user, openapi] = log.requests.slice(30, 32)
  t.match(user, { method: 'POST', status: 400, request: { headers: { authorization: 'Bearer [redacted]' } } })
  t.equal(user.request.truncated, true, 'a request body over 4096 characters is cut')
  t.equal(user.request.body, JSON.stringify({ email, note: 'é'.repeat(1000), type: 'individual' }).slice(0, 4096))
  t.equal(user.response.body.code, 'request_invalid')
  t.match(openapi, { method: 'GET', status: 200, response: { truncated: true } })
  t.match(openapi.response.body, /^\{"openapi":"3\.1\.0"/)
  t.equal(openapi.response.body.length, 4096)
  const missing = log.requests[0]
  t.match(missing, { method: 'GET', status: 404, response: { body: { code: 'route_not_found' } } })
})
