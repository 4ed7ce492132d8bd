// Two organizations side by side: nothing of one (user, entity, metadata, token, link, endpoint,
// message, event) reaches the other. A foreign id is 404, never data.
import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { basic, bearer, build, makeClient, onBehalfOf, tokenRequest } from '../helpers.js'
import { receiver, until, type Receiver } from './support.js'
import { AreaRegistry } from '../../src/kit/area.js'
import { areas } from '../../src/areas.js'

const ADMIN = 'isolation-admin-token-0123456789'
const admin = { authorization: `Bearer ${ADMIN}` }

interface Org {
  organizationId: string
  clientId: string
  secret: string
  token: string
  refreshToken: string
  userId: string
  email: string
  entities: Record<string, string>
  link: string
  endpointId: string
  hooks: Receiver
}

// The entity types the sandbox makes that carry metadata, from the areas' declarations.
const registry = new AreaRegistry(areas)
const ENTITY_TYPES = registry.metadataEntities().map(e => e.segment).filter(s => registry.sandboxEntity(s) !== undefined)

async function ok (res: Promise<LightMyRequestResponse>, what: string): Promise<LightMyRequestResponse> {
  const r = await res
  if (r.statusCode >= 300) throw new Error(`${what}: ${r.statusCode} ${r.body}`)
  return r
}

async function organization (app: FastifyInstance, t: Parameters<typeof receiver>[0], name: string): Promise<Org> {
  const client = await makeClient(app, { refreshTokens: true })
  const issued = (await tokenRequest(app, { grant_type: 'client_credentials' }, basic(client.clientId, client.secret))).json()
  const token = issued.access_token as string
  const email = `${name}@example.com`
  const user = (await ok(app.inject({
    method: 'POST', url: '/core/users', headers: { ...bearer(token), 'x-service-user-ip': '47.174.97.164' }, payload: { email, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } }
  }), 'user')).json().user
  const entities: Record<string, string> = {}
  for (const type of ENTITY_TYPES) {
    entities[type] = (await ok(app.inject({ method: 'POST', url: `/_sandbox/entities/${type}`, headers: admin, payload: { userId: user.id } }), type)).json().id
    await ok(app.inject({ method: 'PUT', url: `/core/${type}/${entities[type]}/metadata`, headers: { ...bearer(token), ...onBehalfOf(user.id) }, payload: { owner: name } }), 'metadata')
  }
  await ok(app.inject({ method: 'PUT', url: '/core/users/me/metadata', headers: { ...bearer(token), ...onBehalfOf(user.id) }, payload: { owner: name } }), 'metadata')
  const link = new URL((await ok(app.inject({ method: 'POST', url: '/core/webhooks/management-link', headers: bearer(token) }), 'link')).json().managementLink.url).pathname
  const hooks = await receiver(t)
  const endpointId = (await ok(app.inject({ method: 'POST', url: `${link}/api/endpoints`, payload: { url: hooks.url, description: name } }), 'endpoint')).json().endpoint.id
  return { ...client, token, refreshToken: issued.refresh_token, userId: user.id, email, entities, link, endpointId, hooks }
}

async function setup (t: Parameters<typeof build>[0]) {
  const app = await build(t, { adminToken: ADMIN })
  const a = await organization(app, t, 'alpha')
  const b = await organization(app, t, 'bravo')
  return { app, a, b }
}

t.test('another organization\'s users, entities and metadata answer 404 to every method', async t => {
  const { app, a, b } = await setup(t)
  const asB = { ...bearer(b.token), ...onBehalfOf(b.userId) }

  const onBehalfOfA = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(b.token), ...onBehalfOf(a.userId) } })
  t.equal(onBehalfOfA.statusCode, 404, 'B acting for A\'s user: 404')
  t.same(onBehalfOfA.json().details, { entity: 'user' })
  t.notMatch(onBehalfOfA.body, 'alpha')

  for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
    const payload = method === 'PUT' ? { owner: 'bravo' } : method === 'PATCH' ? [{ op: 'replace', path: '/owner', value: 'bravo' }] : undefined
    const type = method === 'PATCH' ? 'application/json-patch+json' : 'application/json'
    const userRes = await app.inject({ method, url: `/core/users/${a.userId}/metadata`, headers: { ...asB, ...(payload === undefined ? {} : { 'content-type': type }) }, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) })
    t.equal(userRes.statusCode, 404, `${method} A's user metadata as B's user: 404`)
    t.same(userRes.json().details, { entity: 'user' })
    t.notMatch(userRes.body, 'alpha')
    for (const entity of ENTITY_TYPES) {
      const res = await app.inject({ method, url: `/core/${entity}/${a.entities[entity]}/metadata`, headers: { ...asB, ...(payload === undefined ? {} : { 'content-type': type }) }, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) })
      t.equal(res.statusCode, 404, `${method} A's ${entity} metadata as B's user: 404`)
      t.equal(res.json().code, 'entity_not_found')
      t.notMatch(res.body, 'alpha')
    }
  }

  // Nothing B tried changed A's data.
  const asA = { ...bearer(a.token), ...onBehalfOf(a.userId) }
  for (const entity of ['users', ...ENTITY_TYPES]) {
    const id = entity === 'users' ? a.userId : a.entities[entity]
    const res = await app.inject({ method: 'GET', url: `/core/${entity}/${id}/metadata`, headers: asA })
    t.same([res.statusCode, res.json()], [200, { metadata: { owner: 'alpha' } }], `A's ${entity} metadata is intact`)
  }
})

t.test('the same e-mail in two organizations makes two users; neither organization learns of the other\'s', async t => {
  const { app, a, b } = await setup(t)
  const created = await app.inject({
    method: 'POST', url: '/core/users', headers: { ...bearer(b.token), 'x-service-user-ip': '47.174.97.164' }, payload: { email: a.email, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } }
  })
  t.equal(created.statusCode, 201, 'A\'s e-mail is free in B: no 409 reveals it')
  t.not(created.json().user.id, a.userId)

  const identified = await app.inject({ method: 'POST', url: '/partner/kyc-sharing/identify-user', headers: bearer(b.token), payload: { email: a.email.toUpperCase(), country: 'GB' } })
  t.equal(identified.statusCode, 200)
  t.equal(identified.json().user.id, created.json().user.id, 'B finds its own user, not A\'s')
})

t.test('tokens and credentials work only for their own organization', async t => {
  const { app, a, b } = await setup(t)
  const refreshWithB = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: a.refreshToken }, basic(b.clientId, b.secret))
  t.equal(refreshWithB.statusCode, 400, 'B cannot refresh A\'s refresh token')
  t.equal(refreshWithB.json().error, 'invalid_grant')

  const issued = await tokenRequest(app, { grant_type: 'client_credentials' }, basic(b.clientId, b.secret))
  t.equal(issued.headers['x-service-organization-id'], b.organizationId, 'a token names its own organization')

  const clientsOfA = (await app.inject({ method: 'GET', url: `/_sandbox/clients?organizationId=${a.organizationId}`, headers: admin })).json().clients as Array<{ clientId: string, organizationId: string }>
  t.ok(clientsOfA.some(c => c.clientId === a.clientId), 'the client list of A holds A\'s own client')
  t.ok(clientsOfA.every(c => c.organizationId === a.organizationId), 'the client list of A holds A\'s clients only')
  t.notOk(clientsOfA.some(c => c.clientId === b.clientId))
})

t.test('a management link shows and changes its own organization\'s endpoints and messages only', async t => {
  const { app, a, b } = await setup(t)
  const testB = await ok(app.inject({ method: 'POST', url: `${b.link}/api/endpoints/${b.endpointId}/test` }), 'test event')
  const messageB = testB.json().message.id as string

  const endpoints = (await app.inject({ method: 'GET', url: `${a.link}/api/endpoints` })).json().endpoints as Array<{ id: string, organizationId: string }>
  t.same(endpoints.map(e => e.id), [a.endpointId], 'A\'s link lists A\'s endpoint only')
  const messages = (await app.inject({ method: 'GET', url: `${a.link}/api/messages` })).json().messages as Array<{ id: string }>
  t.notOk(messages.some(m => m.id === messageB), 'A\'s link does not list B\'s messages')
  const filtered = await app.inject({ method: 'GET', url: `${a.link}/api/messages?endpointId=${b.endpointId}` })
  t.same(filtered.json().messages, [], 'not even when asked for B\'s endpoint by id')

  const attempts = [
    app.inject({ method: 'PATCH', url: `${a.link}/api/endpoints/${b.endpointId}`, payload: { disabled: true } }),
    app.inject({ method: 'POST', url: `${a.link}/api/endpoints/${b.endpointId}/test` }),
    app.inject({ method: 'DELETE', url: `${a.link}/api/endpoints/${b.endpointId}` }),
    app.inject({ method: 'POST', url: `${a.link}/api/messages/${messageB}/replay` })
  ]
  const [patched, tested, deleted, replayed] = await Promise.all(attempts)
  for (const [res, entity, what] of [[patched, 'endpoint', 'change'], [tested, 'endpoint', 'test'], [deleted, 'endpoint', 'delete'], [replayed, 'message', 'replay']] as const) {
    t.equal(res.statusCode, 404, `A's link cannot ${what} B's ${entity}`)
    t.same(res.json().details, { entity })
  }
  const stillB = (await app.inject({ method: 'GET', url: `${b.link}/api/endpoints` })).json().endpoints
  t.match(stillB, [{ id: b.endpointId, disabled: false }], 'B\'s endpoint is untouched')
})

t.test('the sandbox webhook routes work on the organization they name', async t => {
  const { app, a, b } = await setup(t)
  const q = (org: Org) => `organizationId=${org.organizationId}`
  const listA = (await app.inject({ method: 'GET', url: `/_sandbox/webhooks/endpoints?${q(a)}`, headers: admin })).json().endpoints as Array<{ id: string }>
  t.same(listA.map(e => e.id), [a.endpointId])
  const sent = await ok(app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints/${a.endpointId}/test?${q(a)}`, headers: admin }), 'test')
  const messageA = sent.json().message.id as string
  const messagesB = (await app.inject({ method: 'GET', url: `/_sandbox/webhooks/messages?${q(b)}`, headers: admin })).json().messages as Array<{ id: string, organizationId: string }>
  t.ok(messagesB.every(m => m.organizationId === b.organizationId), 'B\'s messages only')
  t.notOk(messagesB.some(m => m.id === messageA))

  const wrong = await Promise.all([
    app.inject({ method: 'PATCH', url: `/_sandbox/webhooks/endpoints/${a.endpointId}?${q(b)}`, headers: admin, payload: { disabled: true } }),
    app.inject({ method: 'DELETE', url: `/_sandbox/webhooks/endpoints/${a.endpointId}?${q(b)}`, headers: admin }),
    app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints/${a.endpointId}/test?${q(b)}`, headers: admin }),
    app.inject({ method: 'POST', url: `/_sandbox/webhooks/messages/${messageA}/replay`, headers: admin, payload: { organizationId: b.organizationId } })
  ])
  for (const res of wrong) t.equal(res.statusCode, 404, 'A\'s endpoint or message named with B\'s organization is 404')
  const listed = (await app.inject({ method: 'GET', url: `/_sandbox/webhooks/endpoints?${q(a)}`, headers: admin })).json().endpoints
  t.match(listed, [{ id: a.endpointId, disabled: false }])
})

t.test('each organization\'s events reach its own receiver only', async t => {
  const { app, a, b } = await setup(t)
  const created = async (org: Org, email: string): Promise<void> => {
    await ok(app.inject({
      method: 'POST', url: '/core/users', headers: { ...bearer(org.token), 'x-service-user-ip': '47.174.97.164' }, payload: { email, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } }
    }), 'user')
  }
  await created(a, 'second-alpha@example.com')
  await created(b, 'second-bravo@example.com')
  await ok(app.inject({ method: 'POST', url: '/partner/kyc-sharing/identify-user', headers: bearer(b.token), payload: { email: 'third-bravo@example.com', country: 'GB' } }), 'identify')

  // Every message of both organizations is delivered before the receivers are read.
  const { db } = app.storage
  const undelivered = db.prepare<[], number>("SELECT count(*) AS n FROM webhook_messages WHERE status != 'delivered'").pluck()
  await until(async () => await undelivered.get() === 0 ? true : undefined, 'deliveries')
  await until(() => a.hooks.deliveries.length >= 1 && b.hooks.deliveries.length >= 2 ? true : undefined, 'receivers')

  const emails = (r: Receiver): string[] => r.deliveries.map(d => (JSON.parse(d.body) as { data: { user: { email: string } } }).data.user.email).sort()
  t.same(emails(a.hooks), ['second-alpha@example.com'], 'A\'s receiver got A\'s event only')
  t.same(emails(b.hooks), ['second-bravo@example.com', 'third-bravo@example.com'], 'B\'s receiver got B\'s events only')
  const crossed = await db.prepare(`SELECT count(*) AS n FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
    WHERE m.organization_id != e.organization_id`).pluck().get()
  t.equal(crossed, 0, 'no message was ever addressed to another organization\'s endpoint')
})

t.test('resetting one organization leaves the other whole', async t => {
  const { app, a, b } = await setup(t)
  const reset = await app.inject({ method: 'POST', url: '/_sandbox/reset', headers: admin, payload: { organizationId: b.organizationId } })
  t.equal(reset.statusCode, 204)
  const metadata = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(a.token), ...onBehalfOf(a.userId) } })
  t.same([metadata.statusCode, metadata.json()], [200, { metadata: { owner: 'alpha' } }], 'A\'s token, user and metadata still work')
  t.equal((await app.inject({ method: 'GET', url: `${a.link}/api/endpoints` })).json().endpoints.length, 1, 'A\'s link and endpoint remain')
  const gone = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(b.token), ...onBehalfOf(b.userId) } })
  t.equal(gone.statusCode, 401, 'B\'s token is revoked with its client')
})
