// Inputs the fuzzer (fuzz.test.ts) once found mishandled, kept as fixed cases so they stay fixed
// whatever seed the fuzzer runs with.
import t from 'tap'
import { build, REQUEST_ID, UUID_RE } from '../helpers.js'
import { envelopeProblem } from './support.js'

t.test('a body the token endpoint refuses unread keeps the request log valid JSON', async t => {
  const app = await build(t)
  const refused = await app.inject({ method: 'POST', url: '/core/oauth2/token', headers: { 'content-type': 'text/plain' }, payload: 'grant_type=client_credentials' })
  t.equal(refused.statusCode, 400)
  const log = await app.inject({ method: 'GET', url: '/_sandbox/requests' })
  t.equal(log.statusCode, 200)
  const entries = JSON.parse(log.body).requests as Array<{ path: string, request: Record<string, unknown> }>
  t.equal(entries[0].path, '/core/oauth2/token')
  t.notOk('body' in entries[0].request, 'the unread body is left out')
})

t.test('a sandbox webhook deletion whose body names the organization wrongly is 400, not 500', async t => {
  const app = await build(t)
  const endpoint = (await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url: 'http://127.0.0.1:9/hooks' } })).json().endpoint.id as string
  for (const payload of ['{"organizationId":[]}', '{"organizationId":{}}', '{"organizationId":1e309}', '{"organizationId":"not-a-uuid"}']) {
    const res = await app.inject({ method: 'DELETE', url: `/_sandbox/webhooks/endpoints/${endpoint}`, headers: { 'content-type': 'application/json' }, payload })
    t.equal(res.statusCode, 400, payload)
    t.match(res.headers[REQUEST_ID], UUID_RE)
    t.equal(res.json().code, 'request_invalid')
  }
  const deleted = await app.inject({ method: 'DELETE', url: `/_sandbox/webhooks/endpoints/${endpoint}` })
  t.equal(deleted.statusCode, 204, 'without a body the endpoint is deleted')
})

t.test('an overlong path parameter is 414 uri_too_long in the envelope', async t => {
  const app = await build(t)
  const url = `/_sandbox/clients/${'c'.repeat(600)}`
  const res = await app.inject({ method: 'GET', url })
  t.equal(res.statusCode, 414)
  t.same(res.json(), { code: 'uri_too_long', message: 'A path parameter is longer than the server accepts' })
  t.equal(envelopeProblem({ method: 'GET', url, status: res.statusCode, headers: res.headers, body: res.body }), undefined)
})
