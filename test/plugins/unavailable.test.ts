// A database that cannot be reached (PostgreSQL away): every request that needs it is answered 503
// `service_unavailable` in the API's error body, and the health check says so too.
import t from 'tap'
import { build, REQUEST_ID, UUID_RE } from '../helpers.js'
import { StoreUnavailable } from '../../src/storage/db.js'

const UNAVAILABLE = { code: 'service_unavailable', message: 'The service is temporarily unavailable' }

t.test('a store that cannot reach its database answers 503 service_unavailable', async t => {
  const app = await build(t)
  const organizations = app.storage.organizations
  const list = organizations.list.bind(organizations)
  organizations.list = async () => { throw new StoreUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })) }
  const res = await app.inject({ method: 'GET', url: '/_sandbox/organizations' })
  t.equal(res.statusCode, 503)
  t.same(res.json(), UNAVAILABLE)
  t.match(res.headers[REQUEST_ID], UUID_RE)

  organizations.list = list
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/organizations' })).statusCode, 200, 'back once the database answers')
})

t.test('the token endpoint keeps the API\'s 503 body, as for its other 5xx', async t => {
  const app = await build(t)
  app.clients.forget()
  const clients = app.storage.clients
  clients.get = async () => { throw new StoreUnavailable(new Error('the database went away')) }
  const res = await app.inject({
    method: 'POST',
    url: '/core/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials&client_id=someone&client_secret=something'
  })
  t.equal(res.statusCode, 503)
  t.same(res.json(), UNAVAILABLE)
})

t.test('health answers 503 in the API\'s error body while the database does not answer', async t => {
  const app = await build(t)
  const ping = app.storage.ping.bind(app.storage)
  app.storage.ping = async () => false
  const down = await app.inject({ method: 'GET', url: '/_sandbox/health' })
  t.equal(down.statusCode, 503)
  t.same(down.json(), UNAVAILABLE)

  app.storage.ping = async () => { throw new Error('no answer') }
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/health' })).statusCode, 503, 'a ping that fails is a database that does not answer')

  app.storage.ping = ping
  const up = await app.inject({ method: 'GET', url: '/_sandbox/health' })
  t.equal(up.statusCode, 200)
  t.same(up.json(), { status: 'ok' })
})
