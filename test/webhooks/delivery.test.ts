import t from 'tap'
import { randomUUID } from 'node:crypto'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Webhook } from 'standardwebhooks'
import { build, closedPort, DEMO_ORG, fileDatabasePath, makeClient, openTestStorage, UUID_RE } from '../helpers.js'
import { webhooksStore } from '../../src/webhooks/store.js'
import { Clock } from '../../src/clock.js'
import { addEndpoint, identify, managementLink, portalMessages, startReceiver, until, untilAttempts } from './support.js'

const headersOf = (r: { headers: Record<string, string | string[] | undefined> }): Record<string, string> =>
  Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]))

t.test('an identified new user is delivered, signed as Standard Webhooks, verified with the portal\'s secret', async t => {
  const app = await build(t)
  const receiver = await startReceiver(t)
  const link = await managementLink(app)
  const endpoint = await addEndpoint(app, link, { url: receiver.url })
  const shown = await app.inject({ method: 'GET', url: `${link.path}/api/endpoints` })
  const secret = shown.json().endpoints[0].secret as string
  t.equal(secret, endpoint.secret)

  const res = await identify(app, 'hooked@example.com')
  t.equal(res.statusCode, 201)
  const [delivery] = await receiver.waitFor(1)

  t.equal(delivery.headers['content-type'], 'application/json')
  t.match(delivery.headers['webhook-id'], /^msg_[A-Za-z0-9]{27}$/)
  t.equal(delivery.headers['webhook-timestamp'], String(app.clock.nowSeconds()), 'sandbox-clock seconds')
  t.match(delivery.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/)
  const verified = new Webhook(secret).verify(delivery.body, headersOf(delivery)) as Record<string, unknown>
  const user = (await app.storage.users.get(DEMO_ORG, res.json().user.id))!.record
  t.same(verified, { id: verified.id, type: 'core.user.created', createdAt: app.clock.iso(), data: { user } })
  t.match(verified.id, UUID_RE)
  t.throws(() => new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(delivery.body, headersOf(delivery)), 'another secret does not verify')

  const messages = await untilAttempts(app, link, 1)
  t.equal(messages.length, 1)
  t.match(messages[0], {
    id: delivery.headers['webhook-id'],
    organizationId: DEMO_ORG,
    endpointId: endpoint.id,
    eventId: verified.id,
    eventType: 'core.user.created',
    payload: verified,
    status: 'delivered',
    nextAttemptAt: null
  })
  t.match(messages[0].attempts, [{ url: receiver.url, statusCode: 200, error: null, responseBody: 'ok', attemptedAt: app.clock.iso() }])
  t.equal(messages[0].attempts.length, 1)
  t.ok(messages[0].attempts[0].durationMs >= 0)
})

t.test('a failing receiver gets retries on the schedule, by the sandbox clock, until the third attempt succeeds', async t => {
  const app = await build(t, { webhookRetrySchedule: [1, 1] })
  const receiver = await startReceiver(t, n => n < 2 ? { status: 500, body: `broken ${n}` } : { status: 204 })
  const link = await managementLink(app)
  const endpoint = await addEndpoint(app, link, { url: receiver.url })
  await identify(app, 'retry@example.com')

  const start = app.clock.now()
  let [message] = await untilAttempts(app, link, 1)
  t.equal(message.status, 'pending')
  t.equal(message.nextAttemptAt, new Date(start + 1000).toISOString(), 'one schedule step later')
  t.match(message.attempts[0], { statusCode: 500, error: null, responseBody: 'broken 0' })

  app.clock.advance(1);
  [message] = await untilAttempts(app, link, 2)
  t.equal(message.status, 'pending')
  t.equal(message.nextAttemptAt, new Date(start + 2000).toISOString())

  app.clock.advance(1);
  [message] = await untilAttempts(app, link, 3)
  t.equal(message.status, 'delivered')
  t.equal(message.nextAttemptAt, null)
  t.same(message.attempts.map(a => a.statusCode), [500, 500, 204], 'all three attempts listed')
  t.same(message.attempts.map(a => a.attemptedAt), [0, 1000, 2000].map(ms => new Date(start + ms).toISOString()))

  const received = receiver.received
  t.equal(received.length, 3)
  t.equal(new Set(received.map(r => r.headers['webhook-id'])).size, 1, 'the same webhook-id on every attempt')
  t.same(received.map(r => Number(r.headers['webhook-timestamp'])), [0, 1, 2].map(s => Math.floor(start / 1000) + s))
  for (const r of received) t.ok(new Webhook(endpoint.secret).verify(r.body, headersOf(r)), 'each attempt is signed for its own timestamp')
})

t.test('once the schedule is spent the message has failed; timeouts and refused connections count as failures', async t => {
  const app = await build(t, { webhookRetrySchedule: [2], webhookTimeoutMs: 100 })
  // Answers long after the timeout, even on a machine so busy that timers fire late.
  const slow = await startReceiver(t, () => ({ status: 200, delayMs: 30_000 }))
  const link = await managementLink(app)
  await addEndpoint(app, link, { url: slow.url })
  await identify(app, 'slow@example.com')

  let [message] = await untilAttempts(app, link, 1)
  t.match(message.attempts[0], { statusCode: null, error: 'Timed out after 100 ms' })
  t.equal(message.status, 'pending')
  app.clock.advance(2);
  [message] = await untilAttempts(app, link, 2)
  t.equal(message.status, 'failed')
  t.equal(message.nextAttemptAt, null)

  const refused = await build(t, { webhookRetrySchedule: [] })
  const refusedLink = await managementLink(refused)
  await addEndpoint(refused, refusedLink, { url: `http://127.0.0.1:${await closedPort()}/nothing` })
  await identify(refused, 'refused@example.com')
  const [failed] = await untilAttempts(refused, refusedLink, 1)
  t.equal(failed.status, 'failed')
  t.equal(failed.attempts[0].statusCode, null)
  t.match(failed.attempts[0].error, /ECONNREFUSED/)
})

t.test('the timeout holds even when the garbage collector runs while the receiver is silent', async t => {
  // Node 20 can collect an AbortSignal.timeout held only by an AbortSignal.any composite before it
  // fires (nodejs/node#57736); the attempt then waited for the receiver. Collections are forced
  // here all through the attempt.
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const app = await build(t, { webhookRetrySchedule: [], webhookTimeoutMs: 300 })
  const slow = await startReceiver(t, () => ({ status: 200, delayMs: 30_000 }))
  const link = await managementLink(app)
  await addEndpoint(app, link, { url: slow.url })
  const collecting = setInterval(gc, 20)
  t.teardown(() => { clearInterval(collecting) })
  await identify(app, 'collected@example.com')
  const [message] = await untilAttempts(app, link, 1)
  clearInterval(collecting)
  t.match(message.attempts[0], { statusCode: null, error: 'Timed out after 300 ms' })
  t.equal(message.status, 'failed', 'ended by the timeout: the receiver answers only after 30 s')
})

t.test('a receiver on a port that fetch refuses (the Fetch standard\'s bad ports) still gets its delivery', async t => {
  const app = await build(t)
  const receiver = await startReceiver(t, undefined, [6666, 6667, 6668, 6669, 6665, 6000])
  const link = await managementLink(app)
  await addEndpoint(app, link, { url: receiver.url })
  await identify(app, 'port@example.com')
  const [message] = await untilAttempts(app, link, 1)
  t.equal(message.attempts[0].statusCode, 200)
  t.equal(receiver.received.length, 1)
})

t.test('a redirect is a failed attempt, not followed', async t => {
  const app = await build(t, { webhookRetrySchedule: [] })
  const receiver = await startReceiver(t, () => ({ status: 307 }))
  const link = await managementLink(app)
  await addEndpoint(app, link, { url: receiver.url })
  await identify(app, 'redirect@example.com')
  const [message] = await untilAttempts(app, link, 1)
  t.equal(message.status, 'failed')
  t.equal(message.attempts[0].statusCode, 307)
})

t.test('deliveries survive a restart: a pending retry resumes on the same database', async t => {
  const overrides = { databasePath: fileDatabasePath(t), webhookRetrySchedule: [30] }
  const receiver = await startReceiver(t, n => n === 0 ? { status: 503 } : { status: 200, body: 'thanks' })

  const firstClock = new Clock()
  firstClock.freeze(true)
  const first = await build(t, overrides, { clock: firstClock })
  const link = await managementLink(first)
  const endpoint = await addEndpoint(first, link, { url: receiver.url })
  await identify(first, 'restart@example.com')
  const [pending] = await untilAttempts(first, link, 1)
  t.equal(pending.status, 'pending')
  await first.close()

  const secondClock = new Clock()
  secondClock.freeze(true)
  secondClock.set(firstClock.now() + 30_000)
  const second = await build(t, overrides, { clock: secondClock })
  const [message] = await until(async () => {
    const messages = await portalMessages(second, link)
    return messages[0]?.status === 'delivered' ? messages : undefined
  }, 'delivery after the restart')
  t.same(message.attempts.map(a => a.statusCode), [503, 200])
  t.equal(message.id, pending.id)
  t.equal(receiver.received.length, 2)
  t.equal(receiver.received[0].headers['webhook-id'], receiver.received[1].headers['webhook-id'])
  t.ok(new Webhook(endpoint.secret).verify(receiver.received[1].body, headersOf(receiver.received[1])))
})

t.test('an event recorded but never dispatched before a stop is delivered at the next start', async t => {
  // The sandbox's own clock, running: as a server runs.
  const overrides = { databasePath: fileDatabasePath(t) }
  const receiver = await startReceiver(t)

  const first = await build(t, overrides, { clock: new Clock() })
  const link = await managementLink(first)
  await addEndpoint(first, link, { url: receiver.url })
  await first.close()

  // The process died right after the transaction that recorded the event.
  const storage = await openTestStorage(t, overrides.databasePath)
  const id = randomUUID()
  const now = new Date().toISOString()
  const record = { id, type: 'individual', email: 'offline@example.com', createdAt: now, updatedAt: now }
  const eventId = randomUUID()
  await storage.users.create({ id, organizationId: DEMO_ORG, email: 'offline@example.com', record, createdAt: now }, [
    { id: eventId, organizationId: DEMO_ORG, type: 'core.user.created', createdAt: now, payload: { id: eventId, type: 'core.user.created', createdAt: now, data: { user: record } } }
  ])
  await storage.close()

  await build(t, overrides, { clock: new Clock() })
  const [delivery] = await receiver.waitFor(1)
  t.same(JSON.parse(delivery.body), { id: eventId, type: 'core.user.created', createdAt: now, data: { user: record } })
})

t.test('events go only to the endpoints of their organization', async t => {
  const app = await build(t)
  const other = await makeClient(app)
  const mine = await startReceiver(t)
  const theirs = await startReceiver(t)
  const myLink = await managementLink(app)
  const theirLink = await managementLink(app, { clientId: other.clientId, secret: other.secret })
  await addEndpoint(app, myLink, { url: mine.url })
  await addEndpoint(app, theirLink, { url: theirs.url })

  await identify(app, 'theirs@example.com', { clientId: other.clientId, secret: other.secret })
  await theirs.waitFor(1)
  await identify(app, 'mine@example.com')
  const [delivery] = await mine.waitFor(1)
  await untilAttempts(app, myLink, 1)

  t.equal(mine.received.length, 1)
  t.equal(theirs.received.length, 1)
  t.equal(JSON.parse(delivery.body).data.user.email, 'mine@example.com')
  t.equal(JSON.parse(theirs.received[0].body).data.user.email, 'theirs@example.com')
  t.same((await portalMessages(app, myLink)).map(m => m.organizationId), [DEMO_ORG])
  t.same((await portalMessages(app, theirLink)).map(m => m.organizationId), [other.organizationId])
})

t.test('event-type filters and disabled endpoints decide who gets a message', async t => {
  const app = await build(t)
  const receiver = await startReceiver(t)
  const link = await managementLink(app)
  const wanted = await addEndpoint(app, link, { url: `${receiver.url}?wanted`, eventTypes: ['core.user.created'] })
  const other = await addEndpoint(app, link, { url: `${receiver.url}?other`, eventTypes: ['core.user.deleted'] })
  const disabled = await addEndpoint(app, link, { url: `${receiver.url}?disabled`, disabled: true })
  await identify(app, 'filtered@example.com')
  const messages = await untilAttempts(app, link, 1)
  t.same(messages.map(m => m.endpointId), [wanted.id])
  t.equal(receiver.received.length, 1)
  t.same((await app.storage.store(webhooksStore).listMessages({ endpointId: other.id, limit: 10 })), [])
  t.same((await app.storage.store(webhooksStore).listMessages({ endpointId: disabled.id, limit: 10 })), [])
})

t.test('a pending retry waits while its endpoint is disabled and goes out once enabled', async t => {
  const app = await build(t, { webhookRetrySchedule: [5] })
  const receiver = await startReceiver(t, n => ({ status: n === 0 ? 500 : 200 }))
  const link = await managementLink(app)
  const endpoint = await addEndpoint(app, link, { url: receiver.url })
  await identify(app, 'paused@example.com')
  await untilAttempts(app, link, 1)

  await app.inject({ method: 'PATCH', url: `${link.path}/api/endpoints/${endpoint.id}`, payload: { disabled: true } })
  app.clock.advance(10)
  t.same(await app.storage.store(webhooksStore).due(app.clock.now(), 10, null), [], 'nothing is due for a disabled endpoint')
  const [waiting] = await portalMessages(app, link)
  t.equal(waiting.status, 'pending')
  t.equal(waiting.attempts.length, 1)

  await app.inject({ method: 'PATCH', url: `${link.path}/api/endpoints/${endpoint.id}`, payload: { disabled: false } })
  const [message] = await untilAttempts(app, link, 2)
  t.equal(message.status, 'delivered')
  t.equal(receiver.received.length, 2)
})

t.test('the test event goes to one endpoint through the same signed path', async t => {
  const app = await build(t)
  const receiver = await startReceiver(t)
  const link = await managementLink(app)
  const endpoint = await addEndpoint(app, link, { url: receiver.url, eventTypes: ['core.account.created'] })
  const res = await app.inject({ method: 'POST', url: `${link.path}/api/endpoints/${endpoint.id}/test` })
  t.equal(res.statusCode, 202)
  t.match(res.json().message, { endpointId: endpoint.id, eventType: 'webhook.test', status: 'pending', attempts: [] })
  const [delivery] = await receiver.waitFor(1)
  const body = new Webhook(endpoint.secret).verify(delivery.body, headersOf(delivery)) as Record<string, unknown>
  t.same(body, {
    id: res.json().message.eventId,
    type: 'webhook.test',
    createdAt: app.clock.iso(),
    data: { endpointId: endpoint.id, message: 'A test event sent from the webhooks portal.' }
  })
  t.equal(delivery.headers['webhook-id'], res.json().message.id)
})

t.test('a replay sends the message again with the same webhook-id and a fresh schedule', async t => {
  const app = await build(t, { webhookRetrySchedule: [] })
  const receiver = await startReceiver(t, n => ({ status: n === 0 ? 500 : 200 }))
  const link = await managementLink(app)
  const endpoint = await addEndpoint(app, link, { url: receiver.url })
  await identify(app, 'replayed@example.com')
  const [failed] = await untilAttempts(app, link, 1)
  t.equal(failed.status, 'failed')

  app.clock.advance(60)
  const replay = await app.inject({ method: 'POST', url: `${link.path}/api/messages/${failed.id}/replay` })
  t.equal(replay.statusCode, 202)
  t.match(replay.json().message, { id: failed.id, status: 'pending', nextAttemptAt: app.clock.iso() })
  const [message] = await untilAttempts(app, link, 2)
  t.equal(message.status, 'delivered')
  t.same(message.attempts.map(a => a.statusCode), [500, 200])
  t.equal(receiver.received[1].headers['webhook-id'], failed.id)
  t.equal(receiver.received[1].body, receiver.received[0].body, 'the same body, byte for byte')

  await app.inject({ method: 'PATCH', url: `${link.path}/api/endpoints/${endpoint.id}`, payload: { disabled: true } })
  const refused = await app.inject({ method: 'POST', url: `${link.path}/api/messages/${failed.id}/replay` })
  t.equal(refused.statusCode, 409)
  t.equal(refused.json().code, 'endpoint_disabled')
  const unknown = await app.inject({ method: 'POST', url: `${link.path}/api/messages/msg_unknown/replay` })
  t.equal(unknown.statusCode, 404)
})

t.test('closing the app while a delivery is in flight saves no half attempt', async t => {
  const app = await build(t)
  const receiver = await startReceiver(t, () => ({ status: 200, delayMs: 5000 }))
  const link = await managementLink(app)
  await addEndpoint(app, link, { url: receiver.url })
  await identify(app, 'inflight@example.com')
  await receiver.waitFor(1)
  const [message] = await app.storage.store(webhooksStore).listMessages({ limit: 1 })
  await app.close()
  t.equal(message.attempts.length, 0)
  t.equal(message.status, 'pending', 'still due: it goes out again after a restart')
})

t.test('an endpoint gets its messages in the order of their events: a later one waits for the earlier one\'s retry', async t => {
  const app = await build(t, { webhookRetrySchedule: [1] })
  const receiver = await startReceiver(t, n => n === 0 ? { status: 500, body: 'not yet' } : { status: 200, body: 'ok' })
  const link = await managementLink(app)
  await addEndpoint(app, link, { url: receiver.url })
  await identify(app, 'first@example.com')
  await identify(app, 'second@example.com')

  const [first] = await receiver.waitFor(1)
  t.equal(JSON.parse(first.body).data.user.email, 'first@example.com')
  // The second event's message may be made after the first's attempt is saved (the dispatcher's
  // next pass): both are listed before they are compared.
  const messages = await until(async () => {
    const listed = await portalMessages(app, link)
    return listed.length === 2 && listed.some(m => m.attempts.length >= 1) ? listed : undefined
  }, 'both messages, the first tried')
  t.same(messages.map(m => [m.payload.data.user, m.attempts.length]).map(([u, n]) => [(u as { email: string }).email, n]),
    [['second@example.com', 0], ['first@example.com', 1]], 'the second has not been tried')
  const due = await app.storage.store(webhooksStore).due(app.clock.now() + 60_000, 10, null)
  t.same(due.map(d => d.message.id), [messages[1].id], 'only the first is due, even later: the second waits for it')

  app.clock.advance(1)
  const received = await receiver.waitFor(3)
  t.same(received.map(r => JSON.parse(r.body).data.user.email), ['first@example.com', 'first@example.com', 'second@example.com'])
})
