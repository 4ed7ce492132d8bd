// Logged at trace level, a card's number reaches no log line, answer, event, stored row or request
// log entry; only its last four digits do.
import t from 'tap'
import { Writable } from 'node:stream'
import { accessToken, bearer, build, makeUser, onBehalfOf } from '../helpers.js'
import { ready, type Call } from '../accounts/support.js'
import { card, eventsOf } from './support.js'

t.test('no full card number in the logs, answers, events, rows or request log', async t => {
  const lines: string[] = []
  const logStream = new Writable({ write (chunk: Buffer, _encoding, done) { lines.push(chunk.toString('utf8')); done() } })
  const app = await build(t, { serviceName: 'uphold', partnerArea: 'topper', logLevel: 'trace', cardCheckDelaySeconds: 0 }, { logStream })
  const token = await accessToken(app)
  const user = await makeUser(app)
  const call: Call = async (method, url, { payload, headers = {} } = {}) =>
    await app.inject({ method, url, payload: payload as object, headers: { ...bearer(token), ...onBehalfOf(user.id), ...headers } })
  await ready({ app, userId: user.id, call })
  const numbers = ['4111111111111111', '4000000000003220', '4000000000000002', '4000000000000069', '5105105105105100', '4000000000000101', '5555555555554444']
  const answers: string[] = []
  for (const n of numbers) answers.push((await call('POST', '/core/external-accounts', { payload: card(n) })).body)
  // Bad requests too: a number that fails Luhn, a body that fails the schema.
  answers.push((await call('POST', '/core/external-accounts', { payload: card('4111111111111111', { securityCode: 'abc' }) })).body)
  answers.push((await call('POST', '/core/external-accounts', { payload: { ...card('4111111111111111'), type: 'nope' } })).body)
  answers.push((await call('GET', '/core/external-accounts')).body)
  await app.clock.settle()
  const log = await app.inject({ method: 'GET', url: '/_sandbox/requests?limit=100' })
  t.equal(log.statusCode, 200)
  const texts: Record<string, string> = {
    answers: answers.join('\n'),
    'log lines': lines.join(''),
    'request log': log.body,
    events: JSON.stringify(await eventsOf(app, 'core.')),
    rows: JSON.stringify(await app.storage.db.prepare('SELECT * FROM external_accounts').all())
  }
  t.ok(lines.length > 10, 'the log has lines')
  for (const n of numbers) {
    for (const [what, text] of Object.entries(texts)) t.notOk(text.includes(n), `${n}: not in the ${what}`)
  }
  t.ok(log.body.includes('************1111'), 'the request log shows the last four digits')
  t.notOk(/"securityCode":"\d{3}"/.test(log.body), 'nor the security code')
})
