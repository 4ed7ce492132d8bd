// Limits that keep one client from exhausting the server: bodies (413, or OAuth invalid_request on
// the token endpoint), headers (431), parameters (4xx) and slow clients (408), each answered in the
// API's envelope with the request-id header while other clients go on being served.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { request as httpRequest } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { basic, build, DEMO_ID, DEMO_ORG, DEMO_SECRET, REQUEST_ID, UUID_RE } from '../helpers.js'
import { envelopeProblem, listen } from './support.js'

const LIMIT = 2048
const ADMIN = 'limits-admin-token-0123456789'

interface Raw { status: number, headers: Record<string, string>, body: string, text: string }

/** Sends bytes as they are and reads the whole answer until the server closes or answers. */
function raw (port: number, bytes: string | Buffer): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes))
    let data = ''
    socket.on('data', chunk => { data += chunk.toString('latin1') })
    socket.on('error', reject)
    socket.on('close', () => resolve(parse(data)))
  })
}

function parse (text: string): Raw {
  const [head, ...rest] = text.split('\r\n\r\n')
  const [statusLine, ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map(l => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), text }
}

/** A JSON request whose body is sent in chunks without a Content-Length. */
function chunked (base: string, method: string, path: string, headers: Record<string, string>, bytes: number): Promise<{ status: number, headers: Record<string, unknown>, body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false
    const req = httpRequest(`${base}${path}`, { method, headers: { ...headers, 'transfer-encoding': 'chunked' } }, res => {
      let body = ''
      res.on('data', c => { body += String(c) })
      res.on('end', () => { answered = true; resolve({ status: res.statusCode ?? 0, headers: res.headers, body }) })
    })
    // The server may answer and close before the whole body is sent.
    req.on('error', err => { if (!answered) reject(err) })
    const piece = JSON.stringify({ filler: 'x'.repeat(500) })
    req.write('[')
    for (let sent = 0; sent < bytes; sent += piece.length + 1) req.write(`${piece},`)
    req.end(`${piece}]`)
  })
}

async function serve (t: Parameters<typeof build>[0]): Promise<{ app: FastifyInstance, base: string, port: number, token: string, userId: string, link: string }> {
  const app = await build(t, { bodyLimitBytes: LIMIT, adminToken: ADMIN })
  const base = await listen(app)
  const issued = await fetch(`${base}/core/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic(DEMO_ID, DEMO_SECRET), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  const token = (await issued.json()).access_token as string
  const user = await fetch(`${base}/core/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-service-user-ip': '47.174.97.164' },
    body: JSON.stringify({ email: 'limits@example.com', termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } })
  })
  const userId = (await user.json()).user.id as string
  const link = await fetch(`${base}/core/webhooks/management-link`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
  const path = new URL((await link.json()).managementLink.url).pathname
  return { app, base, port: Number(new URL(base).port), token, userId, link: path }
}

t.test(`bodies over BODY_LIMIT_BYTES (${LIMIT}) are refused in each route's envelope, with nothing written`, async t => {
  const { app, base, token, userId, link } = await serve(t)
  const bearer = { authorization: `Bearer ${token}` }
  const asUser = { ...bearer, 'x-on-behalf-of': `user ${userId}` }
  const admin = { authorization: `Bearer ${ADMIN}` }
  const big = (extra: Record<string, unknown> = {}) => JSON.stringify({ ...extra, filler: 'x'.repeat(LIMIT) })
  const users = async (): Promise<number | undefined> => await app.storage.db.prepare<[string], number>('SELECT count(*) AS n FROM users WHERE organization_id = ?').pluck().get(DEMO_ORG)
  const before = await users()

  const routes: Array<[string, string, Record<string, string>, string]> = [
    ['POST', '/core/users', { ...bearer, 'x-service-user-ip': '47.174.97.164' }, big({ email: 'too-big@example.com', termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } })],
    ['PUT', '/core/users/me/metadata', asUser, big()],
    ['PATCH', '/core/users/me/metadata', { ...asUser, 'content-type': 'application/json-patch+json' }, JSON.stringify([{ op: 'add', path: '/a', value: 'x'.repeat(LIMIT) }])],
    ['POST', '/partner/kyc-sharing/identify-user', bearer, big({ email: 'too-big@example.com', country: 'GB' })],
    ['POST', `${link}/api/endpoints`, {}, big({ url: 'http://127.0.0.1:9/' })],
    ['POST', '/_sandbox/fixtures', admin, big()],
    ['POST', '/_sandbox/clients', admin, big({ scopes: [] })]
  ]
  for (const [method, path, headers, body] of routes) {
    const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body })
    const shown = path.replace(link, '/webhooks/portal/<token>')
    t.equal(res.status, 413, `${method} ${shown}: 413`)
    t.match(res.headers.get(REQUEST_ID), UUID_RE)
    t.same(await res.json(), {
      code: 'content_too_large',
      message: 'The request body is greater than maximum size limit',
      details: { threshold: { unit: 'bytes', limit: String(LIMIT) } }
    }, `${method} ${shown}: content_too_large with the limit`)
  }

  const streamed = await chunked(base, 'PUT', '/core/users/me/metadata', { ...asUser, 'content-type': 'application/json' }, 4 * LIMIT)
  t.equal(streamed.status, 413, 'a chunked body without Content-Length is cut off at the limit too')
  t.equal(JSON.parse(streamed.body).code, 'content_too_large')

  const tokenRes = await fetch(`${base}/core/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic(DEMO_ID, DEMO_SECRET), 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials&scope=${'x'.repeat(LIMIT)}`
  })
  t.equal(tokenRes.status, 400, 'the token endpoint answers in OAuth terms')
  t.same(await tokenRes.json(), { error: 'invalid_request', error_description: `Body must not be larger than ${LIMIT} bytes` })
  const streamedToken = await chunked(base, 'POST', '/core/oauth2/token', { 'content-type': 'application/x-www-form-urlencoded' }, 4 * LIMIT)
  t.equal(streamedToken.status, 400)
  t.equal(JSON.parse(streamedToken.body).error, 'invalid_request')

  t.equal(await users(), before, 'no user was created by a refused request')
  const metadata = await fetch(`${base}/core/users/me/metadata`, { headers: asUser })
  t.equal(metadata.status, 404, 'no metadata was written')
  const health = await fetch(`${base}/_sandbox/health`)
  t.equal(health.status, 200)
})

t.test('oversized headers are 431 in the envelope; a HEAD gets no body, the token endpoint an OAuth body', async t => {
  // The GET case is test/e2e/http-errors.test.ts; these are the variants.
  const { port } = await serve(t)
  const big = `X-Big: ${'a'.repeat(20_000)}\r\n`

  const head = await raw(port, `HEAD /_sandbox/health HTTP/1.1\r\nHost: x\r\n${big}\r\n`)
  t.equal(head.status, 431)
  t.match(head.headers[REQUEST_ID], UUID_RE)
  t.equal(head.body, '', 'no body follows the answer to a HEAD request')

  const token = await raw(port, `POST /core/oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n${big}\r\n`)
  t.equal(token.status, 431)
  t.equal(token.headers['cache-control'], 'no-store')
  t.same(JSON.parse(token.body), { error: 'invalid_request', error_description: 'The request headers are greater than maximum size limit' })

  const many = Array.from({ length: 3000 }, (_, i) => `X-H${i}: ${i}\r\n`).join('')
  const counted = await raw(port, `GET /_sandbox/health HTTP/1.1\r\nHost: x\r\n${many}\r\n`)
  t.equal(counted.status, 431, 'thousands of small headers overflow the limit as well')
  t.equal(JSON.parse(counted.body).code, 'headers_too_large')

  const malformedToken = await raw(port, 'POST /core/oauth2/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}')
  t.equal(malformedToken.status, 400, 'a request HTTP itself refuses, to the token endpoint')
  t.same(JSON.parse(malformedToken.body), { error: 'invalid_request', error_description: 'The request is malformed' })
})

t.test('huge and numerous parameters are refused with a 4xx in the envelope', async t => {
  const { base, port, token } = await serve(t)
  const admin = { authorization: `Bearer ${ADMIN}` }
  const bearer = { authorization: `Bearer ${token}` }
  const cases: Array<[string, Record<string, string>, number, string]> = [
    [`/core/accounts/${'a'.repeat(600)}/metadata`, bearer, 414, 'uri_too_long'],
    [`/_sandbox/clients/${'c'.repeat(5000)}`, admin, 414, 'uri_too_long'],
    [`/_sandbox/requests?path=${'p'.repeat(10_000)}`, admin, 400, 'request_invalid'],
    [`/_sandbox/requests?${Array.from({ length: 1500 }, (_, i) => `k${i}=${i}`).join('&')}`, admin, 400, 'request_invalid'],
    [`/_sandbox/requests?limit=${'9'.repeat(400)}`, admin, 400, 'request_invalid'],
    [`/_sandbox/requests?limit=1e309&limit=-0&status=${'4'.repeat(3000)}`, admin, 400, 'request_invalid'],
    [`/_sandbox/webhooks/messages?organizationId=${'%00'.repeat(2000)}`, admin, 400, 'request_invalid']
  ]
  for (const [path, headers, status, code] of cases) {
    const res = await fetch(`${base}${path}`, { headers })
    const body = await res.text()
    t.equal(res.status, status, `${path.slice(0, 40)}…: ${status}`)
    t.equal(JSON.parse(body).code, code)
    t.equal(envelopeProblem({ method: 'GET', url: path, status: res.status, headers: { [REQUEST_ID]: res.headers.get(REQUEST_ID), 'content-type': res.headers.get('content-type') }, body }), undefined, 'in the envelope')
  }

  const longLine = await raw(port, `GET /_sandbox/requests?path=${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)
  t.equal(longLine.status, 431, 'a request line beyond the header limit is 431')
  t.equal(JSON.parse(longLine.body).code, 'headers_too_large')
})

/** Opens a connection that sends a request one byte at a time, `everyMs` apart, and never finishes. */
function slowLoris (port: number, request: string, everyMs: number): { socket: Socket, answer: Promise<string> } {
  const socket = connect(port, '127.0.0.1')
  let i = 0
  const timer = setInterval(() => {
    if (socket.destroyed || i >= request.length) return
    socket.write(request[i++])
  }, everyMs)
  const answer = new Promise<string>(resolve => {
    let data = ''
    socket.on('data', c => { data += c.toString('latin1') })
    socket.on('error', () => {})
    socket.on('close', () => { clearInterval(timer); resolve(data) })
  })
  return { socket, answer }
}

t.test('slow and silent clients are answered 408 and cut off, while other clients are served', async t => {
  const defaults = await build(t)
  t.equal(defaults.server.requestTimeout, 30_000, 'by default a whole request must arrive within 30 s')
  t.equal(defaults.server.headersTimeout, 30_000, 'and its headers too')
  t.equal(defaults.server.keepAliveTimeout, 72_000, 'an idle kept-alive connection is closed 72 s after its last answer')
  t.equal(defaults.server.timeout, 0, 'no socket timer to refresh at each read and write')
  const app = await build(t, { requestTimeoutMs: 400 })
  const base = await listen(app)
  const port = Number(new URL(base).port)

  // Headers byte by byte, complete headers with a body that trickles, and a connection that sends nothing.
  const loris = Array.from({ length: 10 }, () => slowLoris(port, 'GET /_sandbox/health HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'z'.repeat(1000), 20))
  const silent = slowLoris(port, '', 20)
  const trickle = slowLoris(port, 'x'.repeat(1000), 20)
  trickle.socket.write('POST /_sandbox/fixtures HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n')

  // Meanwhile, every other client is served.
  const served = await Promise.all(Array.from({ length: 50 }, async () => (await fetch(`${base}/_sandbox/health`)).status))
  t.same(served, Array(50).fill(200), 'normal requests are served while slow clients hang on')

  for (const { answer } of [...loris, trickle, silent]) {
    const reply = parse(await answer)
    t.equal(reply.status, 408, 'the slow client is answered 408 and the connection closed')
    t.match(reply.headers[REQUEST_ID], UUID_RE)
    t.same(JSON.parse(reply.body), { code: 'request_timeout', message: 'The request was not received in time' })
  }
  t.equal((await fetch(`${base}/_sandbox/health`)).status, 200, 'still healthy afterwards')
})
