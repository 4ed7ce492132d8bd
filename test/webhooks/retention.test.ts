// Retention: settled messages (with their attempts), management links expired and events dispatched
// longer than WEBHOOK_RETENTION_SECONDS ago are pruned; pending messages, retries included, and
// recent rows stay.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { build, closedPort, DEMO_ORG, emptyDatabase, fileDatabasePath, makeClient } from '../helpers.js'
import { Clock } from '../../src/clock.js'
import { migrate } from '../../src/storage/migrate.js'
import { migrations as core } from '../../src/storage/core-migrations.js'
import { migrations } from '../../src/webhooks/migrations.js'
import { Retention } from '../../src/webhooks/retention.js'
import { webhooksStore } from '../../src/webhooks/store.js'
import { managementLink, startReceiver, until, type MessageJson } from './support.js'

const HOUR = 3600

const messages = async (app: FastifyInstance): Promise<MessageJson[]> =>
  (await app.inject({ method: 'GET', url: '/_sandbox/webhooks/messages?limit=100' })).json().messages

const attemptRows = async (app: FastifyInstance): Promise<number | undefined> =>
  await app.storage.db.prepare<[], number>('SELECT COUNT(*) AS n FROM webhook_attempts').pluck().get()

async function endpoint (app: FastifyInstance, url: string): Promise<string> {
  return (await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url } })).json().endpoint.id
}

/** Sends a test event to the endpoint and waits until its first attempt is saved. */
async function testEvent (app: FastifyInstance, endpointId: string): Promise<string> {
  const id = (await app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints/${endpointId}/test` })).json().message.id as string
  await until(async () => (await messages(app)).find(m => m.id === id && m.attempts.length > 0), 'an attempt')
  return id
}

const retention = (app: FastifyInstance): Retention =>
  new Retention({ store: app.storage.store(webhooksStore), events: app.storage.events, clock: app.clock, log: app.log, retentionSeconds: app.config.webhookRetentionSeconds })

t.test('pruning removes old settled messages with their attempts and old expired links; keeps recent and pending ones', async t => {
  const app = await build(t, { webhookRetentionSeconds: HOUR, webhookRetrySchedule: [100 * HOUR], managementLinkTtlSeconds: HOUR })
  const receiver = await startReceiver(t, n => n === 2 ? { status: 500 } : { status: 200 })
  const good = await endpoint(app, receiver.url)
  const down = await endpoint(app, `http://127.0.0.1:${await closedPort()}/hooks`)

  // At t0: a delivered message, a message failing and waiting for its retry, a link (expires at t0 + 1 h).
  const oldDelivered = await testEvent(app, good)
  const retrying = await testEvent(app, down)
  const oldLink = await managementLink(app)
  // At t0 + 30 min: a link expiring at t0 + 90 min.
  app.clock.advance(HOUR / 2)
  const recentlyExpiredLink = await managementLink(app)
  // At t0 + 70 min: a delivered message, and a message whose first attempt failed (pending, retrying).
  app.clock.advance(40 * 60)
  const recentDelivered = await testEvent(app, good)
  const recentRetrying = await testEvent(app, good)
  const liveLink = await managementLink(app)
  t.equal(await attemptRows(app), 4)

  // At t0 + 2 h 5 min, with one hour of retention: what settled or expired before t0 + 65 min goes.
  app.clock.advance(55 * 60)
  t.same(await retention(app).prune(), { messages: 1, managementLinks: 1, events: 0 })

  const left = await messages(app)
  t.same(left.map(m => m.id).sort(), [retrying, recentDelivered, recentRetrying].sort(), 'old delivered message gone')
  t.notOk(left.some(m => m.id === oldDelivered))
  t.match(left.find(m => m.id === retrying), { status: 'pending', attempts: [{ statusCode: null }] }, 'an old pending retry stays')
  t.match(left.find(m => m.id === recentRetrying), { status: 'pending', attempts: [{ statusCode: 500 }] })
  t.equal(await attemptRows(app), 3, 'its attempt went with it')

  t.equal((await app.inject({ method: 'GET', url: oldLink.path })).statusCode, 401, 'a link expired beyond retention is now unknown')
  t.equal((await app.inject({ method: 'GET', url: recentlyExpiredLink.path })).statusCode, 410, 'a recently expired link still answers expired')
  t.equal((await app.inject({ method: 'GET', url: liveLink.path })).statusCode, 200)

  t.same(await retention(app).prune(), { messages: 0, managementLinks: 0, events: 0 }, 'nothing more to prune')
})

t.test('a finally failed message is pruned; a replayed one counts from its new settlement', async t => {
  const app = await build(t, { webhookRetentionSeconds: HOUR, webhookRetrySchedule: [] })
  const receiver = await startReceiver(t, n => n === 0 ? { status: 500 } : { status: 200 })
  const id = await endpoint(app, receiver.url)
  const failed = await testEvent(app, id)
  const replayed = await testEvent(app, id)
  t.match(await messages(app), [{ id: replayed, status: 'delivered' }, { id: failed, status: 'failed' }])
  app.clock.advance(2 * HOUR)
  await app.inject({ method: 'POST', url: `/_sandbox/webhooks/messages/${replayed}/replay` })
  await until(async () => (await messages(app)).find(m => m.id === replayed && m.attempts.length === 2), 'the replay')
  t.same(await retention(app).prune(), { messages: 1, managementLinks: 0, events: 0 })
  t.same((await messages(app)).map(m => m.id), [replayed])
})

/** Records one event (a user created, with its `core.user.created`) and waits until it is dispatched; its id. */
async function dispatchedEvent (app: FastifyInstance, organizationId = DEMO_ORG): Promise<string> {
  const id = randomUUID()
  const now = app.clock.nowFor(organizationId)
  const iso = new Date(now).toISOString()
  const email = `${id}@example.com`
  await app.storage.users.create({ id, organizationId, email, createdAt: iso, record: { id, type: 'individual', email, createdAt: iso, updatedAt: iso } },
    [{ id: randomUUID(), organizationId, type: 'core.user.created', payload: { userId: id }, createdAt: iso }])
  app.events.recorded()
  await until(async () => (await eventRows(app)).find(e => e.payload.includes(id) && e.dispatched === 1), 'its dispatch')
  return id
}

const eventRows = async (app: FastifyInstance): Promise<Array<{ payload: string, dispatched: number }>> =>
  await app.storage.db.prepare<[], { payload: string, dispatched: number }>('SELECT payload, dispatched FROM events ORDER BY seq').all()

t.test('events dispatched and recorded longer ago than the retention go; recent ones stay', async t => {
  const app = await build(t, { webhookRetentionSeconds: HOUR })
  const old = await dispatchedEvent(app)
  app.clock.advance(HOUR / 2)
  const recent = await dispatchedEvent(app)
  // At t0 + 70 min, with one hour of retention: what was recorded before t0 + 10 min goes.
  app.clock.advance(40 * 60)
  t.same(await retention(app).prune(), { messages: 0, managementLinks: 0, events: 1 })
  const left = await eventRows(app)
  t.equal(left.length, 1)
  t.ok(left[0].payload.includes(recent), 'the recent event stays')
  t.notOk(left[0].payload.includes(old))
  t.same(await retention(app).prune(), { messages: 0, managementLinks: 0, events: 0 }, 'nothing more to prune')
})

t.test('each organization\'s messages, links and events go by its own clock', async t => {
  const app = await build(t, { webhookRetentionSeconds: HOUR, managementLinkTtlSeconds: 60 })
  const receiver = await startReceiver(t)
  const client = await makeClient(app)
  const other = client.organizationId
  // The demo organization's and the other's: a delivered message, an expired link, a dispatched event.
  const demoMessage = await testEvent(app, await endpoint(app, receiver.url))
  const demoLink = await managementLink(app)
  const demoEvent = await dispatchedEvent(app)
  const otherEndpoint = (await app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints?organizationId=${other}`, payload: { url: receiver.url } })).json().endpoint.id as string
  const otherMessage = (await app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints/${otherEndpoint}/test?organizationId=${other}` })).json().message.id as string
  const otherMessages = async (): Promise<MessageJson[]> => (await app.inject({ method: 'GET', url: `/_sandbox/webhooks/messages?organizationId=${other}` })).json().messages
  await until(async () => (await otherMessages()).find(m => m.id === otherMessage && m.status === 'delivered'), 'the other\'s delivery')
  const otherLink = await managementLink(app, client)
  const otherEvent = await dispatchedEvent(app, other)

  const demoMessages = (await messages(app)).filter(m => m.organizationId === DEMO_ORG).map(m => m.id)
  t.equal(demoMessages.length, 2, 'the test event\'s and the event\'s')
  t.ok(demoMessages.includes(demoMessage))
  // The other organization moves its own clock two hours on; the global clock stays.
  t.equal((await app.inject({ method: 'POST', url: `/_sandbox/clock?organizationId=${other}`, payload: { advanceSeconds: 2 * HOUR } })).statusCode, 200)
  t.same(await retention(app).prune(), { messages: 2, managementLinks: 1, events: 1 }, 'the other organization\'s, an hour beyond retention on its clock')
  t.same((await otherMessages()).map(m => m.id), [], 'the other\'s messages went')
  t.same((await messages(app)).map(m => m.id), demoMessages, 'the demo organization\'s stay: on its clock, they were made just now')
  const events = await eventRows(app)
  t.ok(events.some(e => e.payload.includes(demoEvent)), 'the demo organization\'s event stays')
  t.notOk(events.some(e => e.payload.includes(otherEvent)), 'the other\'s went')
  t.equal((await app.inject({ method: 'GET', url: otherLink.path })).statusCode, 401, 'the other\'s expired link is now unknown')
  t.equal((await app.inject({ method: 'GET', url: demoLink.path })).statusCode, 200, 'the demo organization\'s link still opens')
})

t.test('with retention 0 nothing is pruned', async t => {
  const app = await build(t, { webhookRetentionSeconds: 0 })
  const receiver = await startReceiver(t)
  await testEvent(app, await endpoint(app, receiver.url))
  app.clock.advance(1000 * HOUR)
  t.same(await retention(app).prune(), { messages: 0, managementLinks: 0, events: 0 })
  t.equal((await messages(app)).length, 1)
})

t.test('the sandbox prunes at start, and periodically', async t => {
  const path = fileDatabasePath(t)
  const clock = new Clock()
  clock.freeze(true)
  const first = await build(t, { databasePath: path, webhookRetentionSeconds: HOUR }, { clock })
  const receiver = await startReceiver(t)
  await testEvent(first, await endpoint(first, receiver.url))
  await first.close()

  clock.advance(2 * HOUR)
  const second = await build(t, { databasePath: path, webhookRetentionSeconds: HOUR }, { clock })
  await until(async () => (await messages(second)).length === 0 ? true : undefined, 'the start-up prune')
  t.pass('pruned at start')
  t.equal(retention(second).intervalMs, 900_000, 'every quarter of the retention when under an hour')
  t.equal(new Retention({ store: second.storage.store(webhooksStore), events: second.storage.events, clock, log: second.log, retentionSeconds: 7 * 24 * HOUR }).intervalMs, 3_600_000, 'else hourly')
})

t.test('the migration dates messages settled before it by their last attempt', async t => {
  const named = [...core.map(m => ({ ...m, name: `core/${m.name}` })), ...migrations.map(m => ({ ...m, name: `webhooks/${m.name}` }))]
  const db = await emptyDatabase(t)
  await migrate(db, named.filter(m => m.name !== 'webhooks/002-rotation-retention'))
  await db.exec(`
    INSERT INTO organizations (id, name, created_at) VALUES ('o', 'O', '2026-01-01T00:00:00.000Z');
    INSERT INTO webhook_endpoints (id, organization_id, url, event_types, secret, created_at, updated_at) VALUES ('e', 'o', 'http://x', '[]', 's', 'c', 'u');
    INSERT INTO webhook_messages (id, organization_id, endpoint_id, event_id, event_type, body, status, created_at)
      VALUES ('m1', 'o', 'e', 'v1', 't', '{}', 'delivered', '2026-01-01T00:00:00.000Z'),
             ('m2', 'o', 'e', 'v2', 't', '{}', 'pending', '2026-01-01T00:00:00.000Z'),
             ('m3', 'o', 'e', 'v3', 't', '{}', 'failed', '2026-01-02T00:00:00.000Z');
    INSERT INTO webhook_attempts (id, organization_id, message_id, url, attempted_at, duration_ms)
      VALUES ('a1', 'o', 'm1', 'http://x', '2026-01-01T00:00:05.250Z', 1);
  `)
  t.same(await migrate(db, named), ['webhooks/002-rotation-retention'])
  const rows = await db.prepare<[], { id: string, settled_at: number | null }>('SELECT id, settled_at FROM webhook_messages').all()
  const settled = Object.fromEntries(rows.map(r => [r.id, r.settled_at]))
  t.same(settled, { m1: Date.parse('2026-01-01T00:00:05.250Z'), m2: null, m3: Date.parse('2026-01-02T00:00:00.000Z') })
})
