// The request log keeps an answered request two ways: as text in the ring (SQLite), read back and
// formatted when someone reads the log, and formatted at once for the table (PostgreSQL). Both must
// show the same entry, masked the same way, for any request: generated requests (credentials,
// cookies, card numbers in paths, headers and bodies, secret fields, management links, lists and
// numbers as header values, large and text bodies) are recorded in a ring and formatted for the
// table, and the two entries compared.
import t from 'tap'
import fc from 'fast-check'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Clock } from '../../src/clock.js'
import { RequestLog, tableEntry, type Pending } from '../../src/sandbox/request-log.js'

const AT = Date.parse('2026-05-01T12:00:00.000Z')
const text = fc.string({ unit: 'grapheme', maxLength: 24 })
const card = fc.constantFrom('4111111111111111', '4111 1111 1111 1111', '5500005555555559', '123456789012', '1234567890123456789')
const word = fc.oneof(text, card, card.map(n => `card ${n} end`), fc.constant('https://sandbox.example/webhooks/portal/secret-token/x'))
const secretField = fc.constantFrom('client_secret', 'clientSecret', 'secret', 'access_token', 'refresh_token', 'password', 'token', 'securityCode')
const value: fc.Arbitrary<unknown> = fc.letrec(tie => ({
  value: fc.oneof(
    { depthSize: 'small' },
    word, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.constant(4111111111111111),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(fc.constantFrom('number', 'type', 'expiryDate', 'name'), secretField, text), tie('value'), { maxKeys: 4 })
  )
})).value

const path = fc.oneof(
  fc.constantFrom('/core/users/me/metadata', '/core/oauth2/token', '/core/external-accounts', '/_sandbox/entities/external-accounts/x', '/core/users/4111111111111111'),
  text.map(s => `/core/${encodeURIComponent(s)}`),
  fc.tuple(fc.constantFrom('/core/external-accounts', '/core/users'), card).map(([p, n]) => `${p}?number=${n}`)
)
const headerValue = fc.oneof(word, fc.integer({ min: 0, max: 99999 }), fc.constantFrom(Number.NaN, -0, Number.POSITIVE_INFINITY, 1.5), fc.array(word, { minLength: 1, maxLength: 3 }))
const requestHeaders = fc.record({
  authorization: fc.option(fc.oneof(fc.constant('Bearer eyJhbGciOi.abc.def'), fc.constant('Basic c2FuZGJveDpzZWNyZXQ='), text), { nil: undefined }),
  cookie: fc.option(fc.constant('session=abc'), { nil: undefined }),
  'content-type': fc.option(fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'), { nil: undefined }),
  'content-length': fc.option(fc.integer({ min: 0, max: 40_000 }).map(String), { nil: undefined }),
  'x-card': fc.option(headerValue, { nil: undefined }),
  'x-other': fc.option(headerValue, { nil: undefined })
}, { requiredKeys: [] })
const body = fc.oneof(fc.constant(undefined), fc.constant(''), word, value, fc.dictionary(secretField, text, { maxKeys: 2 }), word.map(s => Buffer.from(s)))
const payload = fc.oneof(
  fc.constant(null), fc.constant(undefined), word,
  value.map(v => JSON.stringify(v) ?? 'null'),
  fc.constant(JSON.stringify({ long: 'x'.repeat(5000) })),
  fc.constant('y'.repeat(20_000)),
  word.map(s => Buffer.from(JSON.stringify({ s })))
)
const responseHeaders = fc.record({
  'content-type': fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/octet-stream'),
  'set-cookie': fc.option(fc.array(fc.constant('a=b'), { minLength: 1, maxLength: 2 }), { nil: undefined }),
  'content-length': fc.option(fc.integer({ min: 0, max: 9999 }), { nil: undefined }),
  etag: fc.option(word, { nil: undefined })
}, { requiredKeys: ['content-type'] })

const answered = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
  url: path,
  status: fc.constantFrom(200, 201, 204, 304, 400, 401, 404, 422, 503),
  headers: requestHeaders,
  body,
  payload,
  responseHeaders,
  clientId: fc.option(fc.constantFrom('demo', 'other'), { nil: undefined }),
  durationMs: fc.double({ min: 0, max: 5000, noNaN: true })
})

t.test('an entry formatted for the table is the one the ring shows, for any request', async t => {
  const clock = new Clock(() => AT)
  let n = 0
  fc.assert(fc.property(answered, a => {
    const headers = Object.fromEntries(Object.entries(a.headers).filter(([, v]) => v !== undefined))
    const request = { id: `req-${++n}`, method: a.method, url: a.url, headers, body: a.body, auth: a.clientId === undefined ? undefined : { clientId: a.clientId }, faultedClient: null, clockScope: null } as unknown as FastifyRequest
    const shown = Object.fromEntries(Object.entries(a.responseHeaders).filter(([, v]) => v !== undefined))
    const reply = { statusCode: a.status, elapsedTime: a.durationMs, getHeaders: () => shown } as unknown as FastifyReply
    const ring = new RequestLog(4, clock)
    ring.record(request, reply, a.payload, a.status)
    const [fromRing] = ring.list()
    const pending: Pending = { request, reply, payload: a.payload, status: a.status, at: AT, durationMs: a.durationMs }
    t.same(tableEntry(pending), fromRing)
  }), { numRuns: 600 })
  t.equal(n, 600, 'every generated request was compared')
})

t.test('what the table keeps masks what the ring masks', async t => {
  const request = {
    id: 'r1',
    method: 'POST',
    url: '/core/external-accounts?number=4111111111111111',
    headers: { authorization: 'Basic c2FuZGJveDpzZWNyZXQ=', cookie: 'session=abc', 'x-card': '4111 1111 1111 1111' },
    body: { type: 'card', number: '4111111111111111', securityCode: '123', client_secret: 'hush' },
    auth: { clientId: 'demo' },
    faultedClient: null,
    clockScope: null
  } as unknown as FastifyRequest
  const reply = { statusCode: 201, elapsedTime: 1.5, getHeaders: () => ({ 'content-type': 'application/json' }) } as unknown as FastifyReply
  const entry = tableEntry({ request, reply, payload: '{"refreshToken":"r-secret","id":"x"}', status: 201, at: AT, durationMs: 1.5 })
  const text = JSON.stringify(entry)
  for (const secret of ['c2FuZGJveDpzZWNyZXQ=', 'session=abc', '4111111111111111', '4111 1111 1111 1111', 'hush', 'r-secret']) {
    t.notOk(text.includes(secret), `${secret} is not kept`)
  }
  t.match(entry, { method: 'POST', status: 201, clientId: 'demo', timestamp: new Date(AT).toISOString(), request: { headers: { authorization: 'Basic [redacted]' } } })
  t.notOk('cookie' in entry.request.headers, 'cookies are left out')
})
