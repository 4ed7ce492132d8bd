// REQUEST_LOG_SIZE=0 turns the request log off: requests are answered as always, nothing is
// recorded, and the log reads empty with `capacity: 0` (on either backend).
import t from 'tap'
import { basic, build, DEMO_ID, DEMO_SECRET, REQUEST_ID, tokenRequest } from '../helpers.js'
import { loadConfig } from '../../src/config.js'

t.test('with REQUEST_LOG_SIZE=0 requests are answered and none is recorded; the log reads empty with capacity 0', async t => {
  const app = await build(t, { requestLogSize: 0 })
  // Nothing is even handed to the log: its recording hooks are not added. A log of capacity 0 that
  // was still handed every answer (and dropped it) would read empty all the same, but would cost each
  // request what recording costs, which is what REQUEST_LOG_SIZE=0 is for.
  const recorded: string[] = []
  app.requestLog.record = (request) => { recorded.push(`${request.method} ${request.url}`) }
  const missing = await app.inject({ method: 'GET', url: '/core/nothing' })
  t.equal(missing.statusCode, 404)
  t.match(missing.headers[REQUEST_ID], /^[0-9a-f-]{36}$/, 'answers still carry their request id')
  const token = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(DEMO_ID, DEMO_SECRET))
  t.equal(token.statusCode, 200)
  const clock = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 1 } })
  t.equal(clock.statusCode, 200)

  const read = await app.inject({ method: 'GET', url: '/_sandbox/requests' })
  t.equal(read.statusCode, 200)
  t.same(recorded, [], 'no answer was handed to the request log')
  t.same(read.json(), { requests: [], total: 0, capacity: 0 })
  const filtered = await app.inject({ method: 'GET', url: '/_sandbox/requests?status=4xx&limit=5&offset=1' })
  t.same(filtered.json(), { requests: [], total: 0, capacity: 0 })
  t.equal(await app.requestLog.size(), 0)

  const cleared = await app.inject({ method: 'DELETE', url: '/_sandbox/requests' })
  t.equal(cleared.statusCode, 204)
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/requests' })).json(), { requests: [], total: 0, capacity: 0 })
})

t.test('REQUEST_LOG_SIZE takes 0 and refuses what is below it', async t => {
  t.equal(loadConfig({ REQUEST_LOG_SIZE: '0' }).requestLogSize, 0)
  t.throws(() => loadConfig({ REQUEST_LOG_SIZE: '-1' }), /REQUEST_LOG_SIZE/)
})
