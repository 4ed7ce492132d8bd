// The log: one JSON line per request, naming no secret, and the request's own logger (made only
// when something is logged through it) still binding the request id and redacting credentials.
import t from 'tap'
import fc from 'fast-check'
import { Writable } from 'node:stream'
import { accessToken, bearer, build, DEMO_ID, DEMO_ORG, makeUser, onBehalfOf, REQUEST_ID, waitFor } from '../helpers.js'

async function withLog (t: { teardown: (fn: () => unknown) => void }) {
  const lines: Array<Record<string, unknown>> = []
  const logStream = new Writable({ write (chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done() } })
  const app = await build(t, { logLevel: 'info' }, {
    logStream,
    plugins: [async probe => {
      probe.get('/probe/nested', async (request) => {
        request.log.debug('not at info')
        request.log.child({ step: 'lookup' }).info({ found: 2 }, 'nested line')
        return { ok: true }
      })
      probe.get('/probe/fail', async () => {
        throw Object.assign(new Error('upstream refused'), { headers: { authorization: 'Bearer very-secret' } })
      })
    }]
  })
  return { app, lines }
}

// Request lines are written in a batch, after their requests are answered: wait until the line of
// the last request is out. Lines come out in the order answered, so every earlier line is out too.
const lineOf = (lines: Array<Record<string, unknown>>, requestId: unknown) => waitFor(() => lines.some(l => l.msg === 'request' && l.requestId === requestId), { what: `the request line of ${String(requestId)}` })

t.test('every request writes one JSON line: request id, method, path, status, duration, client', async t => {
  const { app, lines } = await withLog(t)
  const token = await accessToken(app, { scope: 'core.users.metadata:read core.users:act-on-behalf-of' })
  const user = await makeUser(app, DEMO_ORG)
  lines.length = 0
  const res = await app.inject({ method: 'GET', url: '/core/users/me/metadata?secret=1', headers: { ...bearer(token), ...onBehalfOf(user.id) } })
  const missing = await app.inject({ method: 'GET', url: '/webhooks/portal/the-link-token/api/endpoints' })
  await lineOf(lines, missing.headers[REQUEST_ID])
  t.equal(lines.length, 2, 'one line per request')
  t.match(lines[0], { level: 30, msg: 'request', requestId: res.headers[REQUEST_ID], method: 'GET', path: '/core/users/me/metadata', status: res.statusCode, clientId: DEMO_ID })
  t.type(lines[0].durationMs, 'number')
  t.match(lines[1], { requestId: missing.headers[REQUEST_ID], path: '/webhooks/portal/[redacted]/api/endpoints', status: missing.statusCode })
  t.notOk(JSON.stringify(lines).includes(token), 'no token in the log')
  t.notOk(JSON.stringify(lines).includes('the-link-token'), 'no link token in the log')
})

t.test('a child of the request\'s logger keeps the request id and adds its own fields; lines below the level are not written', async t => {
  const { app, lines } = await withLog(t)
  const res = await app.inject({ method: 'GET', url: '/probe/nested' })
  t.equal(res.statusCode, 200)
  await lineOf(lines, res.headers[REQUEST_ID])
  t.equal(lines.length, 2, 'the nested line and the request line, no debug line')
  t.match(lines[0], { level: 30, msg: 'nested line', requestId: res.headers[REQUEST_ID], step: 'lookup', found: 2 })
  t.match(lines[1], { level: 30, msg: 'request', requestId: res.headers[REQUEST_ID], path: '/probe/nested', status: 200 })
})

t.test('a 5xx is logged through the request\'s logger, with its request id and credentials redacted', async t => {
  const { app, lines } = await withLog(t)
  const res = await app.inject({ method: 'GET', url: '/probe/fail' })
  t.equal(res.statusCode, 500)
  await lineOf(lines, res.headers[REQUEST_ID])
  t.equal(lines.length, 2)
  t.match(lines[0], { level: 50, msg: 'request failed', requestId: res.headers[REQUEST_ID], err: { message: 'upstream refused', headers: { authorization: '[redacted]' } } })
  t.match(lines[1], { level: 30, msg: 'request', requestId: res.headers[REQUEST_ID], status: 500 })
  t.notOk(JSON.stringify(lines).includes('very-secret'))
})

t.test('routes that log at warn (the API docs) write no request line', async t => {
  const { app, lines } = await withLog(t)
  const docs = await app.inject({ method: 'GET', url: '/docs/json' })
  t.equal(docs.statusCode, 200)
  const health = await app.inject({ method: 'GET', url: '/_sandbox/health' })
  await lineOf(lines, health.headers[REQUEST_ID])
  t.same(lines.map(l => l.path), ['/_sandbox/health'], 'a line for the health check, none for the docs')
  t.equal(lines[0].requestId, health.headers[REQUEST_ID])
})

t.test('the lines of requests answered together are written together, each with the time it was answered, and none is lost on close', async t => {
  const { app, lines } = await withLog(t)
  const before = Date.now()
  // Answered in any order (on PostgreSQL each request first reads the shared row): noted as answered.
  const answered: unknown[] = []
  await Promise.all(Array.from({ length: 5 }, async (_, i) => {
    const res = await app.inject({ method: 'GET', url: `/core/missing/${i}` })
    answered.push(res.headers[REQUEST_ID])
  }))
  const after = Date.now()
  await lineOf(lines, answered[4])
  t.same(lines.map(l => l.requestId), answered, 'one line each, in the order answered')
  t.ok(lines.every(l => typeof l.time === 'number' && l.time >= before && l.time <= after), 'each line holds the time its request was answered')

  lines.length = 0
  const last = await app.inject({ method: 'GET', url: '/core/missing/last' })
  await app.close()
  t.same(lines.map(l => l.requestId), [last.headers[REQUEST_ID]], 'closing the app writes the lines still pending')
})

t.test('the request line is the JSON pino would write, whatever the path and client id hold', async t => {
  const { requestLine } = await import('../../src/plugins/requests.js')
  const path = '/core/"quoted"\\back\u00e9\u2028'
  const line = requestLine('0b3c3a8e-1f5e-4a39-9d7e-2b1c3d4e5f60', 'GET', path, 404, 1.23456, 'client "x"', 1700000000000)
  t.ok(line.endsWith('}\n'), 'one line')
  t.equal(line.split('\n').length, 2, 'no line break inside')
  t.strictSame(JSON.parse(line), {
    level: 30, time: 1700000000000, requestId: '0b3c3a8e-1f5e-4a39-9d7e-2b1c3d4e5f60', method: 'GET', path, status: 404, durationMs: 1.23, clientId: 'client "x"', msg: 'request'
  })
  t.notOk('clientId' in JSON.parse(requestLine('id', 'POST', '/core/oauth2/token', 200, 0, undefined, 1)), 'no client: no key, as pino leaves out undefined')
  // Plain strings are written between quotes without JSON.stringify: any string, plain or not,
  // must read back the same, on one line.
  fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (text, client) => {
    const written = requestLine(text, text, text, 200, 0, client, 1)
    const read = JSON.parse(written)
    return written.indexOf('\n') === written.length - 1 && read.requestId === text && read.method === text && read.path === text && read.clientId === client
  }), { numRuns: 2000 })
})
