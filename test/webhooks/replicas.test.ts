// Webhook delivery exactly once across replicas: three apps on one PostgreSQL database, each with
// its own dispatcher, fan each event out once and make each delivery attempt once, whichever
// replica recorded the event; a replica that stops gives its messages back, and one whose lease
// lapses mid-attempt leaves the message to another, whose attempt is the one saved.
// (SQLite is one process's database: these tests run on the PostgreSQL run of the suite.)
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Webhook } from 'standardwebhooks'
import { accessToken, backend, bearer, build } from '../helpers.js'
import type { Config } from '../../src/config.js'
import { Clock } from '../../src/clock.js'
import { leaseOverride } from '../../src/webhooks/dispatcher.js'
import { startReceiver, until, type Answer, type MessageJson, type Received } from './support.js'

type Replicas = [FastifyInstance, FastifyInstance, FastifyInstance]

/**
 * Three apps on one database, named `replica-<i>` (SERVICE_NAME: their deliveries' user-agent says
 * who sent them), each with its own clock object frozen at one instant.
 */
async function replicas (t: Parameters<typeof build>[0], overrides: Partial<Config> = {}): Promise<Replicas> {
  const first = await build(t, { ...overrides, serviceName: 'replica-0' })
  const another = async (i: number): Promise<FastifyInstance> => {
    const clock = new Clock()
    clock.freeze(true)
    clock.set(first.clock.now())
    return await build(t, { ...first.config, serviceName: `replica-${i}` }, { clock })
  }
  return [first, await another(1), await another(2)]
}

const sender = (r: Received): string => String(r.headers['user-agent']).replace(/-webhooks\/.*$/, '')
const webhookId = (r: Received): string => String(r.headers['webhook-id'])
const headersOf = (r: Received): Record<string, string> =>
  Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]))

async function addEndpoint (app: FastifyInstance, url: string): Promise<{ id: string, secret: string }> {
  const res = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url } })
  if (res.statusCode !== 201) throw new Error(`endpoint: ${res.statusCode} ${res.body}`)
  return res.json().endpoint
}

/** Creates a user through `app` (so the event is recorded by that replica); its id. */
async function createUser (app: FastifyInstance, token: string, email: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/core/users',
    headers: { ...bearer(token), [`x-${app.config.serviceName}-user-ip`]: '47.174.97.164' },
    payload: { email, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } }
  })
  if (res.statusCode !== 201) throw new Error(`user: ${res.statusCode} ${res.body}`)
  return res.json().user.id
}

async function messages (app: FastifyInstance): Promise<MessageJson[]> {
  return (await app.inject({ method: 'GET', url: '/_sandbox/webhooks/messages?limit=100' })).json().messages
}

/** Waits until `count` messages exist and every one is settled; answers them, oldest first. */
async function allSettled (app: FastifyInstance, count: number): Promise<MessageJson[]> {
  return await until(async () => {
    const listed = await messages(app)
    return listed.length === count && listed.every(m => m.status !== 'pending') ? listed.reverse() : undefined
  }, `${count} messages settled`)
}

/** Longer than a dispatcher's poll: whatever a replica would still send has had time to go. */
const quiet = async (): Promise<void> => { await new Promise(resolve => setTimeout(resolve, 1500)) }

if (backend !== 'postgres') {
  t.comment('replicas share a PostgreSQL database: these tests run with SANDBOX_TEST_BACKEND=postgres (npm run test:postgres)')
} else {
  t.test('events recorded on all three replicas are each delivered once, in order per endpoint', async t => {
    const apps = await replicas(t)
    const receivers = [await startReceiver(t), await startReceiver(t)]
    const endpoints = [await addEndpoint(apps[0], receivers[0].url), await addEndpoint(apps[1], receivers[1].url)]
    const token = await accessToken(apps[2])

    // 30 users at once, each made through another replica: 30 events, 60 messages.
    await Promise.all(Array.from({ length: 30 }, async (_, i) => await createUser(apps[i % 3], token, `replica-user-${i}@example.com`)))
    const settled = await allSettled(apps[1], 60)
    await quiet()

    t.ok(settled.every(m => m.status === 'delivered' && m.attempts.length === 1), 'each message delivered with one attempt')
    t.equal(new Set(settled.map(m => m.eventId)).size, 30, 'one message per event and endpoint')
    for (const [i, receiver] of receivers.entries()) {
      const received = receiver.received
      t.equal(received.length, 30, `endpoint ${i}: 30 POSTs`)
      t.equal(new Set(received.map(webhookId)).size, 30, `endpoint ${i}: no webhook-id twice`)
      t.same(received.map(webhookId), settled.filter(m => m.endpointId === endpoints[i].id).map(m => m.id),
        `endpoint ${i}: delivered in the order of the events`)
      t.ok(received.every(r => new Webhook(endpoints[i].secret).verify(r.body, headersOf(r)) !== undefined), `endpoint ${i}: every delivery verifies`)
      t.comment(`endpoint ${i}: sent by ${[...new Set(received.map(sender))].sort().join(', ')}`)
    }
  })

  t.test('an event recorded on one replica wakes the others within a moment, not a poll interval later', async t => {
    const apps = await replicas(t)
    const heard: number[] = []
    apps[1].storage.onEventsCommitted(() => { heard.push(Date.now()) })
    const token = await accessToken(apps[0])
    // The listening connection is open once a first notification comes through.
    await until(async () => {
      await createUser(apps[0], token, `listen-${Date.now()}@example.com`)
      await new Promise(resolve => setTimeout(resolve, 300))
      return heard.length > 0 ? true : undefined
    }, 'a first notification')
    heard.length = 0
    await createUser(apps[0], token, 'woken@example.com')
    const committed = Date.now()
    await until(() => heard.length > 0 ? true : undefined, 'the other replica woken')
    // Only a notification calls the listener there (that replica committed nothing); the poll is 1 s.
    t.ok(heard[0] - committed < 1000, `woken ${heard[0] - committed} ms after the answer`)
  })

  t.test('a failing receiver gets each retry once, whichever replica makes it', async t => {
    const apps = await replicas(t, { webhookRetrySchedule: [1, 1] })
    // Each message fails twice, then succeeds: POSTs are counted per webhook-id.
    const seen = new Map<string, number>()
    const receiver = await startReceiver(t, (n): Answer => {
      const id = webhookId(receiver.received[n])
      const tries = (seen.get(id) ?? 0) + 1
      seen.set(id, tries)
      return tries < 3 ? { status: 500, body: `not yet ${tries}` } : { status: 200 }
    })
    // Six endpoints: six messages of one event, each on its own schedule, raced for by three replicas.
    for (let i = 0; i < 6; i++) await addEndpoint(apps[i % 3], `${receiver.url}?endpoint=${i}`)
    await createUser(apps[1], await accessToken(apps[0]), 'retried@example.com')

    for (const attempts of [1, 2]) {
      await until(async () => {
        const listed = await messages(apps[0])
        return listed.length === 6 && listed.every(m => m.attempts.length === attempts) ? true : undefined
      }, `attempt ${attempts} of every message`)
      // Every replica's clock moves: all three find the retries due at once.
      for (const app of apps) app.clock.advance(1)
    }
    const settled = await allSettled(apps[2], 6)
    await quiet()

    t.same(settled.map(m => m.attempts.map(a => a.statusCode)), Array(6).fill([500, 500, 200]), 'three attempts each, saved once')
    t.equal(receiver.received.length, 18, '18 POSTs for 6 messages of 3 attempts')
    t.same([...seen.values()], Array(6).fill(3), 'each webhook-id POSTed three times')
  })

  t.test('a replica that stops mid-delivery gives its message back: another delivers it', async t => {
    // The default lease (30 s): only the stopping replica's release hands the message over in time.
    const apps = await replicas(t)
    // The first POST gets no answer; the others 200.
    const receiver = await startReceiver(t, n => n === 0 ? { status: 200, delayMs: 60_000 } : { status: 200, body: 'ok' })
    await addEndpoint(apps[0], receiver.url)
    await createUser(apps[0], await accessToken(apps[0]), 'handed-over@example.com')

    const [first] = await receiver.waitFor(1)
    const stopping = apps.find(app => app.config.serviceName === sender(first))!
    const other = apps.find(app => app !== stopping)!
    await stopping.close()

    const [message] = await allSettled(other, 1)
    await quiet()
    t.equal(receiver.received.length, 2, 'sent again once')
    const [, second] = receiver.received
    t.equal(webhookId(second), webhookId(first), 'the same message')
    t.not(sender(second), sender(first), 'by another replica')
    t.equal(message.status, 'delivered')
    t.same(message.attempts.map(a => a.statusCode), [200], 'the abandoned attempt is not saved; the other replica\'s is')
  })

  t.test('a lease that lapses mid-attempt leaves the message to another replica, whose attempt alone is saved', async t => {
    // A replica that dies holding a lease is like one whose attempt outlasts it: the lease lapses.
    leaseOverride.ms = 2000
    t.teardown(() => { leaseOverride.ms = undefined })
    const apps = await replicas(t, { webhookTimeoutMs: 10_000, webhookRetrySchedule: [] })
    // The first POST is answered 500 after 5 s, long after its lease lapsed; the others 200 at once.
    const receiver = await startReceiver(t, n => n === 0 ? { status: 500, body: 'late', delayMs: 5000 } : { status: 200, body: 'ok' })
    await addEndpoint(apps[0], receiver.url)
    await createUser(apps[2], await accessToken(apps[0]), 'lapsed@example.com')

    const [first, second] = await receiver.waitFor(2)
    t.equal(webhookId(second), webhookId(first), 'the same message')
    t.not(sender(second), sender(first), 'sent again by another replica, not by the one still waiting')
    // The late answer arrives, and its replica's save is refused.
    await new Promise(resolve => setTimeout(resolve, 5500))
    const [message] = await allSettled(apps[1], 1)
    t.equal(message.status, 'delivered', 'not failed by the late 500')
    t.same(message.attempts.map(a => [a.statusCode, a.responseBody]), [[200, 'ok']], 'only the lease holder\'s attempt is saved')
    t.equal(receiver.received.length, 2)
  })
}
