// Whatever arrives at the token endpoint, the answer is 200, 400 or 401 with an OAuth body, a
// request id and no caching: never a 5xx, never the API's other error shape.
import t from 'tap'
import fc from 'fast-check'
import { basic, build, DEMO_ID, DEMO_SECRET, REQUEST_ID, UUID_RE } from '../helpers.js'

const ERRORS = ['invalid_request', 'unsupported_grant_type', 'invalid_grant', 'invalid_scope', 'invalid_client']
const FIELDS = ['grant_type', 'scope', 'refresh_token', 'client_id', 'client_secret']

const value = fc.oneof(
  fc.constantFrom('client_credentials', 'refresh_token', 'core.users:read', 'core.*', '', ' ', DEMO_ID, DEMO_SECRET, '%zz', '__proto__'),
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 })
)
const form = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...FIELDS, '__proto__', 'constructor'), fc.string({ maxLength: 12 })), value), { maxLength: 6 })
  .map(pairs => new URLSearchParams(pairs).toString())
const body = fc.oneof(form, fc.string({ unit: 'binary', maxLength: 200 }), fc.constant(undefined))
const contentType = fc.constantFrom(undefined, 'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8', 'application/json', 'text/plain', 'multipart/form-data', 'x/y;;=', '')
const authorization = fc.oneof(
  fc.constant(undefined),
  fc.constant(basic(DEMO_ID, DEMO_SECRET)),
  fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })).map(([id, secret]) => 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64')),
  fc.string().map(s => `Basic ${s}`),
  fc.string().map(s => `Bearer ${s}`),
  fc.string()
)

t.test('the token endpoint answers every request in OAuth terms', async t => {
  const app = await build(t)
  await fc.assert(fc.asyncProperty(body, contentType, authorization, async (payload, type, auth) => {
    const headers: Record<string, string> = {}
    if (type !== undefined) headers['content-type'] = type
    if (auth !== undefined) headers.authorization = auth
    const res = await app.inject({ method: 'POST', url: '/core/oauth2/token', headers, ...(payload === undefined ? {} : { payload }) })
    if (![200, 400, 401].includes(res.statusCode)) throw new Error(`status ${res.statusCode}: ${res.body}`)
    if (!UUID_RE.test(String(res.headers[REQUEST_ID]))) throw new Error('no request id')
    if (res.headers['cache-control'] !== 'no-store') throw new Error('cacheable answer')
    const json = res.json()
    if (res.statusCode === 200) {
      if (json.token_type !== 'Bearer' || typeof json.access_token !== 'string') throw new Error(`bad token: ${res.body}`)
    } else if (!ERRORS.includes(json.error) || typeof json.error_description !== 'string' || Object.keys(json).length !== 2) {
      throw new Error(`bad error body: ${res.body}`)
    }
  }), { numRuns: Number(process.env.FUZZ_RUNS ?? 300) })
  t.pass('every answer was 200, 400 or 401 in OAuth terms')
})
