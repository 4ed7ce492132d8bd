// No card number, valid or not, reaches the request log, a log line (at trace level), an answer,
// an event or a stored row: cards posted with Luhn-valid and Luhn-invalid numbers, as text, as a
// JSON number, spaced or dashed, in a path, a query, a header, a body that is no JSON. Only the
// last four digits are ever kept.
import t from 'tap'
import { Writable } from 'node:stream'
import type { InjectOptions } from 'fastify'
import { accessToken, bearer, build, makeUser, onBehalfOf } from '../helpers.js'
import { ready, type Call } from '../accounts/support.js'
import { card, eventsOf } from './support.js'

const lines: string[] = []
const logStream = new Writable({ write (chunk: Buffer, _encoding, done) { lines.push(chunk.toString('utf8')); done() } })
const app = await build(t, { serviceName: 'uphold', partnerArea: 'topper', logLevel: 'trace', cardCheckDelaySeconds: 0 }, { logStream })
const token = await accessToken(app)
const user = await makeUser(app)
const headers = { ...bearer(token), ...onBehalfOf(user.id) }
const call: Call = async (method, url, { payload, headers: extra = {} } = {}) =>
  await app.inject({ method, url, payload: payload as object, headers: { ...headers, ...extra } })
await ready({ app, userId: user.id, call })

const VALID = ['4111111111111111', '4000000000003220', '4000000000000002', '4000000000000069', '5105105105105100', '4000000000000101', '5555555555554444']
const INVALID = ['4111111111111112', '5555555555554440', '4000000000000003', '123456789012', '1234567890123456789']

t.test('cards posted every way a number can come: the request log, trace logs, answers, events and rows hold none', async t => {
  const answers: string[] = []
  const send = async (options: InjectOptions): Promise<void> => { answers.push((await app.inject(options)).body) }
  const post = (payload: unknown, extra: Record<string, string> = {}) =>
    send({ method: 'POST', url: '/core/external-accounts', payload: payload as object, headers: { ...headers, ...extra } })
  for (const n of [...VALID, ...INVALID]) await post(card(n))
  // Bad requests: a security code the schema refuses, an unknown type, the number as a JSON number, spaced and dashed.
  await post(card('4111111111111112', { securityCode: 'abc' }))
  await post({ ...card('4111111111111112'), type: 'nope' })
  await post({ ...card('4111111111111112'), number: 4111111111111112 })
  await post(card('4111 1111 1111 1112'))
  await post(card('4111-1111-1111-1112'))
  await post({ label: 'no type', number: '5555555555554440' })
  // Not JSON, or not parsable, or in the path, the query or a header.
  await send({ method: 'POST', url: '/core/external-accounts', headers: { ...headers, 'content-type': 'text/plain' }, payload: 'number=4111111111111112' })
  await send({ method: 'POST', url: '/core/external-accounts', headers: { ...headers, 'content-type': 'application/json' }, payload: '{"type":"card","number":"4000000000000003"' })
  await send({ method: 'GET', url: '/core/external-accounts/4111111111111112', headers })
  await send({ method: 'GET', url: '/core/external-accounts?number=4111111111111112', headers })
  await post(card('4111111111111111', { label: 'Header' }), { 'x-card-number': '5555555555554440' })
  await send({ method: 'POST', url: '/_sandbox/entities/external-accounts', payload: { userId: user.id, number: '1234567890123456789' } })
  answers.push((await call('GET', '/core/external-accounts')).body)

  // Something that logs what it received, as a careless plugin would: trace lines with the bodies, as text and numbers.
  app.log.trace({ body: card('4111111111111112'), number: 4111111111111112, spaced: '4111 1111 1111 1112' }, 'a card as received: 4000000000000003')
  await app.clock.settle()
  const log = await app.inject({ method: 'GET', url: '/_sandbox/requests?limit=100' })
  t.equal(log.statusCode, 200)
  t.ok(log.json().requests.length >= 25, 'every request is in the log')
  const texts: Record<string, string> = {
    answers: answers.join('\n'),
    'log lines': lines.join(''),
    'request log': log.body,
    events: JSON.stringify(await eventsOf(app, 'core.')),
    rows: JSON.stringify(await app.storage.db.prepare('SELECT * FROM external_accounts').all())
  }
  t.ok(lines.length > 10, 'the log has lines')
  t.ok(lines.some(l => l.includes('a card as received')), 'the careless line was written')
  for (const n of [...VALID, ...INVALID]) {
    for (const [what, text] of Object.entries(texts)) {
      t.notOk(text.includes(n), `${n}: not in the ${what}`)
      // Spaced or dashed, or with a separator the JSON escapes.
      t.notOk(text.replace(/[ -]/g, '').includes(n), `${n}: not in the ${what}, spaced or dashed`)
    }
  }
  t.ok(log.body.includes('************1111'), 'the request log shows the last four digits of a valid number')
  t.ok(log.body.includes('************1112'), 'and of an invalid one')
  t.ok(log.body.includes('**** **** **** 1112'), 'spaced as it was sent')
  t.ok(log.body.includes('/core/external-accounts/************1112'), 'the path too')
  t.ok(lines.join('').includes('************0003'), 'a log line keeps the last four digits')
  t.notOk(/"securityCode":"\d{3}"/.test(log.body), 'nor the security code')
  t.ok(lines.some(l => /"time":\d{13}/.test(l)), 'log lines keep their times')
})

t.test('long digit runs that are no card stay readable outside a card\'s context', async t => {
  // A user's metadata with an id of 16 digits that fails Luhn: not a card, and not about one.
  const put = await call('PUT', '/core/users/me/metadata', { payload: { externalId: '1234567890123456' } })
  t.equal(put.statusCode, 201)
  await app.clock.settle()
  const entry = (await app.inject({ method: 'GET', url: '/_sandbox/requests?path=/core/users/me/metadata&limit=1' })).json().requests[0]
  t.same(entry.request.body, { externalId: '1234567890123456' })
})
