import t from 'tap'
import { build, DEMO_ORG, makeClient } from '../helpers.js'
import { identify, startReceiver, until, type MessageJson } from './support.js'

t.test('endpoints: create, list, change and delete, in the demo organization by default', async t => {
  const app = await build(t)
  const created = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url: 'https://example.com/a', eventTypes: ['core.user.created'] } })
  t.equal(created.statusCode, 201)
  const endpoint = created.json().endpoint
  t.match(endpoint, { organizationId: DEMO_ORG, url: 'https://example.com/a', eventTypes: ['core.user.created'], disabled: false, secret: /^whsec_/, createdAt: app.clock.iso() })

  const list = await app.inject({ method: 'GET', url: '/_sandbox/webhooks/endpoints' })
  t.same(list.json(), { endpoints: [endpoint] })

  const patched = await app.inject({ method: 'PATCH', url: `/_sandbox/webhooks/endpoints/${endpoint.id}`, payload: { disabled: true, url: 'https://example.com/b' } })
  t.equal(patched.statusCode, 200)
  t.match(patched.json().endpoint, { id: endpoint.id, disabled: true, url: 'https://example.com/b', secret: endpoint.secret })

  const deleted = await app.inject({ method: 'DELETE', url: `/_sandbox/webhooks/endpoints/${endpoint.id}` })
  t.equal(deleted.statusCode, 204)
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/webhooks/endpoints' })).json(), { endpoints: [] })
})

t.test('organizationId in the body or the query picks the organization; a foreign id is 404', async t => {
  const app = await build(t)
  const other = await makeClient(app)
  const inBody = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url: 'https://example.com/o', organizationId: other.organizationId } })
  t.equal(inBody.statusCode, 201)
  const endpoint = inBody.json().endpoint
  t.equal(endpoint.organizationId, other.organizationId)
  const inQuery = await app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints?organizationId=${other.organizationId}`, payload: { url: 'https://example.com/q' } })
  t.equal(inQuery.json().endpoint.organizationId, other.organizationId)

  t.same((await app.inject({ method: 'GET', url: '/_sandbox/webhooks/endpoints' })).json(), { endpoints: [] }, 'the demo organization has none')
  const theirs = await app.inject({ method: 'GET', url: `/_sandbox/webhooks/endpoints?organizationId=${other.organizationId}` })
  t.equal(theirs.json().endpoints.length, 2)

  const wrongOrg = await app.inject({ method: 'PATCH', url: `/_sandbox/webhooks/endpoints/${endpoint.id}`, payload: { disabled: true } })
  t.equal(wrongOrg.statusCode, 404, 'the endpoint is not in the demo organization')
  t.same(wrongOrg.json(), { code: 'entity_not_found', message: 'The endpoint cannot be found', details: { entity: 'endpoint' } })
  const rightOrg = await app.inject({ method: 'PATCH', url: `/_sandbox/webhooks/endpoints/${endpoint.id}`, payload: { disabled: true, organizationId: other.organizationId } })
  t.equal(rightOrg.statusCode, 200)
  t.equal((await app.inject({ method: 'DELETE', url: `/_sandbox/webhooks/endpoints/${endpoint.id}` })).statusCode, 404)
  t.equal((await app.inject({ method: 'DELETE', url: `/_sandbox/webhooks/endpoints/${endpoint.id}?organizationId=${other.organizationId}` })).statusCode, 204)

  const unknown = await app.inject({ method: 'GET', url: '/_sandbox/webhooks/endpoints?organizationId=99999999-9999-4999-8999-999999999999' })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { code: 'entity_not_found', message: 'The organization cannot be found', details: { entity: 'organization' } })
  const badUrl = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url: 'file:///etc/passwd' } })
  t.equal(badUrl.statusCode, 400)
  const noBody = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', headers: { 'content-type': 'application/json' }, payload: '' })
  t.equal(noBody.statusCode, 400)
  t.same(noBody.json().details, { context: 'body', violations: [{ property: '', rule: 'type', ruleParams: { type: 'object' } }] })
})

t.test('messages: listed with attempts for every organization or one; replay and test events', async t => {
  const app = await build(t)
  const other = await makeClient(app)
  const receiver = await startReceiver(t)
  const mine = (await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url: receiver.url } })).json().endpoint
  await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url: receiver.url, organizationId: other.organizationId } })
  await identify(app, 'one@example.com')
  await identify(app, 'two@example.com', { clientId: other.clientId, secret: other.secret })

  const all = await until(async () => {
    const messages = (await app.inject({ method: 'GET', url: '/_sandbox/webhooks/messages' })).json().messages as MessageJson[]
    return messages.length === 2 && messages.every(m => m.status === 'delivered') ? messages : undefined
  }, 'two delivered messages')
  t.same(all.map(m => m.organizationId).sort(), [DEMO_ORG, other.organizationId].sort())
  for (const m of all) t.match(m.attempts, [{ statusCode: 200 }])

  const demoOnly = (await app.inject({ method: 'GET', url: `/_sandbox/webhooks/messages?organizationId=${DEMO_ORG}` })).json().messages as MessageJson[]
  t.same(demoOnly.map(m => m.payload.data.user), [{ ...(await app.storage.users.findByEmail(DEMO_ORG, 'one@example.com'))!.record }])
  const byStatus = (await app.inject({ method: 'GET', url: '/_sandbox/webhooks/messages?status=failed' })).json()
  t.same(byStatus, { messages: [] })
  const limited = (await app.inject({ method: 'GET', url: '/_sandbox/webhooks/messages?limit=1' })).json().messages
  t.equal(limited.length, 1)
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/webhooks/messages?limit=0' })).statusCode, 400)

  const foreign = all.find(m => m.organizationId === other.organizationId)!
  const wrongOrg = await app.inject({ method: 'POST', url: `/_sandbox/webhooks/messages/${foreign.id}/replay` })
  t.equal(wrongOrg.statusCode, 404, 'the default (demo) organization does not own it')
  const replayed = await app.inject({ method: 'POST', url: `/_sandbox/webhooks/messages/${foreign.id}/replay`, payload: { organizationId: other.organizationId } })
  t.equal(replayed.statusCode, 202)
  t.equal(replayed.json().message.status, 'pending')
  await receiver.waitFor(3)

  const sent = await app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints/${mine.id}/test` })
  t.equal(sent.statusCode, 202)
  const [test] = await receiver.waitFor(4).then(r => r.slice(3))
  t.equal(JSON.parse(test.body).type, 'webhook.test')
})

t.test('with an admin token set, the webhook control routes need it', async t => {
  const adminToken = 'a-very-long-admin-token'
  const app = await build(t, { adminToken })
  const without = await app.inject({ method: 'GET', url: '/_sandbox/webhooks/endpoints' })
  t.equal(without.statusCode, 401)
  const withToken = await app.inject({ method: 'GET', url: '/_sandbox/webhooks/messages', headers: { authorization: `Bearer ${adminToken}` } })
  t.equal(withToken.statusCode, 200)
})

t.test('the routes are documented in the OpenAPI document; the portal\'s are not', async t => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  for (const [path, method] of [
    ['/_sandbox/webhooks/endpoints', 'get'], ['/_sandbox/webhooks/endpoints', 'post'],
    ['/_sandbox/webhooks/endpoints/{id}', 'patch'], ['/_sandbox/webhooks/endpoints/{id}', 'delete'],
    ['/_sandbox/webhooks/endpoints/{id}/rotate-secret', 'post'],
    ['/_sandbox/webhooks/messages', 'get'], ['/_sandbox/webhooks/messages/{id}/replay', 'post'],
    ['/core/webhooks/management-link', 'post'], ['/partner/kyc-sharing/identify-user', 'post']
  ]) {
    const operation = doc.paths[path]?.[method]
    t.ok(operation?.operationId, `${method} ${path}`)
    t.ok(operation?.description, `${method} ${path} is described`)
  }
  t.same(Object.keys(doc.paths).filter((p: string) => p.startsWith('/webhooks/portal')), [])
  t.ok(doc.components.schemas.WebhookEndpoint && doc.components.schemas.WebhookMessage && doc.components.schemas.WebhookAttempt)
})
