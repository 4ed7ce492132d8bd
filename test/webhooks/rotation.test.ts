// Signing-secret rotation as Standard Webhooks describes it: after a rotation the new secret signs
// beside the old one for the grace period (two space-separated `v1,<signature>` entries), so a
// receiver holding either verifies; afterwards only the new one does. The `standardwebhooks`
// package is the independent verifier.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Webhook } from 'standardwebhooks'
import { build, makeClient } from '../helpers.js'
import { addEndpoint, managementLink, startReceiver, type Received } from './support.js'

const headersOf = (r: Received): Record<string, string> =>
  Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]))

/** Whether a receiver verifying with only `secret` accepts the delivery. */
const accepts = (secret: string, delivery: Received): boolean => {
  try {
    new Webhook(secret).verify(delivery.body, headersOf(delivery))
    return true
  } catch {
    return false
  }
}

interface Endpoint { id: string, secret: string, previousSecretExpiresAt: string | null }

async function createEndpoint (app: FastifyInstance, url: string): Promise<Endpoint> {
  const res = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url } })
  return res.json().endpoint
}

async function rotate (app: FastifyInstance, id: string): Promise<Endpoint> {
  const res = await app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints/${id}/rotate-secret` })
  if (res.statusCode !== 200) throw new Error(`rotate: ${res.statusCode} ${res.body}`)
  return res.json().endpoint
}

async function sendTest (app: FastifyInstance, id: string): Promise<void> {
  const res = await app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints/${id}/test` })
  if (res.statusCode !== 202) throw new Error(`test event: ${res.statusCode} ${res.body}`)
}

t.test('during the grace period receivers with only the old or only the new secret both accept; afterwards only the new', async t => {
  const app = await build(t, { webhookSecretGraceSeconds: 120 })
  const receiver = await startReceiver(t)
  const endpoint = await createEndpoint(app, receiver.url)
  t.equal(endpoint.previousSecretExpiresAt, null, 'no rotation yet')
  const old = endpoint.secret

  const rotated = await rotate(app, endpoint.id)
  t.not(rotated.secret, old, 'a new secret')
  t.match(rotated.secret, /^whsec_[A-Za-z0-9+/]{32}$/)
  t.equal(rotated.previousSecretExpiresAt, new Date(app.clock.now() + 120_000).toISOString(), 'the old one signs for the grace period')

  await sendTest(app, endpoint.id)
  const [during] = await receiver.waitFor(1)
  t.match(during.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/, 'two space-separated signatures')
  t.ok(accepts(old, during), 'a receiver with only the old secret accepts')
  t.ok(accepts(rotated.secret, during), 'a receiver with only the new secret accepts')
  t.notOk(accepts(`whsec_${Buffer.alloc(24, 9).toString('base64')}`, during), 'another secret does not')

  // The grace period follows the sandbox clock; the timestamps stay within the verifiers' 5 minutes.
  app.clock.advance(121)
  const listed = (await app.inject({ method: 'GET', url: '/_sandbox/webhooks/endpoints' })).json().endpoints[0] as Endpoint
  t.equal(listed.previousSecretExpiresAt, null, 'the grace period is over')
  await sendTest(app, endpoint.id)
  const [, after] = await receiver.waitFor(2)
  t.match(after.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/, 'one signature')
  t.ok(accepts(rotated.secret, after), 'the new secret verifies')
  t.notOk(accepts(old, after), 'the old secret no longer does')
})

t.test('the grace period defaults to 24 hours; a second rotation drops the oldest secret at once', async t => {
  const app = await build(t)
  const receiver = await startReceiver(t)
  const endpoint = await createEndpoint(app, receiver.url)
  const first = await rotate(app, endpoint.id)
  t.equal(first.previousSecretExpiresAt, new Date(app.clock.now() + 86_400_000).toISOString())
  const second = await rotate(app, endpoint.id)
  await sendTest(app, endpoint.id)
  const [delivery] = await receiver.waitFor(1)
  t.ok(accepts(second.secret, delivery), 'the newest secret verifies')
  t.ok(accepts(first.secret, delivery), 'the one it replaced still verifies')
  t.notOk(accepts(endpoint.secret, delivery), 'the oldest no longer does')
})

t.test('with no grace period the old secret stops at once', async t => {
  const app = await build(t, { webhookSecretGraceSeconds: 0 })
  const receiver = await startReceiver(t)
  const endpoint = await createEndpoint(app, receiver.url)
  const rotated = await rotate(app, endpoint.id)
  t.equal(rotated.previousSecretExpiresAt, null)
  await sendTest(app, endpoint.id)
  const [delivery] = await receiver.waitFor(1)
  t.ok(accepts(rotated.secret, delivery))
  t.notOk(accepts(endpoint.secret, delivery))
})

t.test('the portal rotates its organization\'s endpoints, and only those', async t => {
  const app = await build(t)
  const receiver = await startReceiver(t)
  const link = await managementLink(app)
  const endpoint = await addEndpoint(app, link, { url: receiver.url })
  const res = await app.inject({ method: 'POST', url: `${link.path}/api/endpoints/${endpoint.id}/rotate-secret` })
  t.equal(res.statusCode, 200)
  const rotated = res.json().endpoint as Endpoint
  t.not(rotated.secret, endpoint.secret)
  t.equal(rotated.previousSecretExpiresAt, new Date(app.clock.now() + 86_400_000).toISOString())
  const shown = (await app.inject({ method: 'GET', url: `${link.path}/api/endpoints` })).json().endpoints[0] as Endpoint
  t.same({ secret: shown.secret, previousSecretExpiresAt: shown.previousSecretExpiresAt }, { secret: rotated.secret, previousSecretExpiresAt: rotated.previousSecretExpiresAt })

  await app.inject({ method: 'POST', url: `${link.path}/api/endpoints/${endpoint.id}/test` })
  const [delivery] = await receiver.waitFor(1)
  t.ok(accepts(endpoint.secret, delivery) && accepts(rotated.secret, delivery), 'both verify')

  const other = await makeClient(app)
  const theirs = await managementLink(app, { clientId: other.clientId, secret: other.secret })
  const foreign = await app.inject({ method: 'POST', url: `${theirs.path}/api/endpoints/${endpoint.id}/rotate-secret` })
  t.equal(foreign.statusCode, 404, 'another organization\'s endpoint')
  t.same(foreign.json(), { code: 'entity_not_found', message: 'The endpoint cannot be found', details: { entity: 'endpoint' } })
})

t.test('rotate-secret refuses bad input with a 4xx in the API\'s error shape', async t => {
  const app = await build(t)
  const unknown = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints/00000000-0000-4000-8000-00000000abcd/rotate-secret' })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { code: 'entity_not_found', message: 'The endpoint cannot be found', details: { entity: 'endpoint' } })
  const malformed = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints/not-a-uuid/rotate-secret' })
  t.equal(malformed.statusCode, 400)
  t.match(malformed.json(), { code: 'request_invalid', details: { context: 'params' } })
  const noOrg = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints/00000000-0000-4000-8000-00000000abcd/rotate-secret', payload: { organizationId: '00000000-0000-4000-8000-00000000ffff' } })
  t.equal(noOrg.statusCode, 404)
  t.match(noOrg.json(), { code: 'entity_not_found', details: { entity: 'organization' } })
  const badBody = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints/00000000-0000-4000-8000-00000000abcd/rotate-secret', payload: { organizationId: 5 } })
  t.equal(badBody.statusCode, 400)
  t.match(badBody.json(), { code: 'request_invalid', details: { context: 'body' } })
  const link = await managementLink(app)
  const portal = await app.inject({ method: 'POST', url: `${link.path}/api/endpoints/nope/rotate-secret` })
  t.equal(portal.statusCode, 400)
  t.match(portal.json(), { code: 'request_invalid' })
})
