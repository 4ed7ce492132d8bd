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
// Random forms almost never name a grant type, so alone they only meet the 400 of a malformed
// request: half the requests are forms with a grant type, to reach the client check and the token.
const rarely = fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: value, weight: 1 })
const grantForm = fc.record({
  grant_type: fc.constantFrom('client_credentials', 'refresh_token', 'password'),
  scope: fc.option(fc.constantFrom('core.users:read', 'core.users:read core.users:create', 'core.*', ''), { nil: undefined }),
  refresh_token: rarely,
  client_id: rarely,
  client_secret: rarely
}).map(fields => new URLSearchParams(Object.entries(fields).filter((field): field is [string, string] => field[1] !== undefined)).toString())
const request = fc.oneof(
  fc.tuple(body, contentType, authorization),
  fc.tuple(grantForm, fc.constant('application/x-www-form-urlencoded'), fc.oneof(fc.constant(basic(DEMO_ID, DEMO_SECRET)), authorization))
)

t.test('the token endpoint answers every request in OAuth terms', async t => {
  const app = await build(t)
  const runs = Number(process.env.FUZZ_RUNS ?? 300)
  const answered: Record<number, number> = {}
  await fc.assert(fc.asyncProperty(request, async ([payload, type, auth]) => {
    const headers: Record<string, string> = {}
    if (type !== undefined) headers['content-type'] = type
    if (auth !== undefined) headers.authorization = auth
    const res = await app.inject({ method: 'POST', url: '/core/oauth2/token', headers, ...(payload === undefined ? {} : { payload }) })
    answered[res.statusCode] = (answered[res.statusCode] ?? 0) + 1
    if (![200, 400, 401].includes(res.statusCode)) throw new Error(`status ${res.statusCode}: ${res.body}`)
    if (!UUID_RE.test(String(res.headers[REQUEST_ID]))) throw new Error('no request id')
    if (res.headers['cache-control'] !== 'no-store') throw new Error('cacheable answer')
    const json = res.json()
    if (res.statusCode === 200) {
      if (json.token_type !== 'Bearer' || typeof json.access_token !== 'string') throw new Error(`bad token: ${res.body}`)
    } else if (!ERRORS.includes(json.error) || typeof json.error_description !== 'string' || Object.keys(json).length !== 2) {
      throw new Error(`bad error body: ${res.body}`)
    }
  }), { numRuns: runs })
  t.equal(Object.values(answered).reduce((a, b) => a + b, 0), runs, 'every generated request was sent and its answer checked')
  t.same(Object.keys(answered).filter(status => !['200', '400', '401'].includes(status)), [], 'every answer was 200, 400 or 401')
  if (runs >= 100) t.ok(answered[200] > 0 && answered[400] > 0 && answered[401] > 0, `tokens and both refusals were met (${JSON.stringify(answered)})`)
})
