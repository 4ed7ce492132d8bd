import t from 'tap'
import { Writable } from 'node:stream'
import { accessToken, bearer, build, DEMO_ORG, makeClient, makeUser, onBehalfOf, REQUEST_ID, UUID_RE, waitFor } from '../helpers.js'
import { webhooksStore } from '../../src/webhooks/store.js'
import { addEndpoint, managementLink } from './support.js'

const URL = '/core/webhooks/management-link'
const SCOPE = 'core.webhooks:management-link'

t.test('201 { managementLink: { url, expiresAt } }: a portal URL and now + the TTL', async t => {
  const app = await build(t)
  const token = await accessToken(app, { scope: SCOPE })
  const res = await app.inject({ method: 'POST', url: URL, headers: bearer(token) })
  t.equal(res.statusCode, 201)
  t.match(res.headers[REQUEST_ID], UUID_RE)
  const body = res.json()
  t.same(Object.keys(body), ['managementLink'])
  t.same(Object.keys(body.managementLink).sort(), ['expiresAt', 'url'])
  t.match(body.managementLink.url, /^http:\/\/localhost:80\/webhooks\/portal\/[A-Za-z0-9_-]{43}$/, 'from the request host when PUBLIC_URL is unset')
  t.equal(body.managementLink.expiresAt, new Date(app.clock.now() + 3600_000).toISOString())
  t.match(body.managementLink.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'UTC with fractional seconds')

  const again = await app.inject({ method: 'POST', url: URL, headers: bearer(token) })
  t.not(again.json().managementLink.url, body.managementLink.url, 'every link is new')
})

t.test('no body is needed: an empty JSON body or an empty object is accepted, malformed JSON is 400', async t => {
  const app = await build(t)
  const token = await accessToken(app, { scope: SCOPE })
  const headers = { ...bearer(token), 'content-type': 'application/json' }
  for (const payload of ['', '{}']) {
    const res = await app.inject({ method: 'POST', url: URL, headers, payload })
    t.equal(res.statusCode, 201, JSON.stringify(payload))
  }
  const bad = await app.inject({ method: 'POST', url: URL, headers, payload: '{nope' })
  t.equal(bad.statusCode, 400)
  t.same(bad.json().details, { context: 'body', violations: [{ property: '', rule: 'format', ruleParams: { format: 'json' } }] })
})

t.test('PUBLIC_URL and MANAGEMENT_LINK_TTL_SECONDS shape the link', async t => {
  const app = await build(t, { publicUrl: 'https://sandbox.example.test', managementLinkTtlSeconds: 60 })
  const link = await managementLink(app)
  t.match(link.url, /^https:\/\/sandbox\.example\.test\/webhooks\/portal\/[A-Za-z0-9_-]{43}$/)
  t.equal(link.expiresAt, new Date(app.clock.now() + 60_000).toISOString())
})

t.test('the link token is stored only as a hash and never logged', async t => {
  const lines: string[] = []
  const logStream = new Writable({ write (chunk, _enc, done) { lines.push(String(chunk)); done() } })
  const app = await build(t, { logLevel: 'info' }, { logStream })
  const link = await managementLink(app)
  const page = await app.inject({ method: 'GET', url: link.path })
  t.equal(page.statusCode, 200)
  const endpoints = await app.inject({ method: 'GET', url: `${link.path}/api/endpoints` })
  t.equal(endpoints.statusCode, 200)
  // Request lines are written in a batch after their requests are answered: wait for the last one.
  await waitFor(() => lines.join('').includes(String(endpoints.headers[REQUEST_ID])), { what: 'the request line of the portal API call' })
  const rows = await app.storage.db.prepare('SELECT * FROM management_links').all()
  t.equal(rows.length, 1)
  t.notOk(JSON.stringify(rows).includes(link.token), 'no row holds the token')
  const paths = lines.join('').split('\n').filter(line => line !== '').map(line => (JSON.parse(line) as { path?: string }).path)
  t.same(paths.filter(p => p?.startsWith('/webhooks/portal/')), ['/webhooks/portal/[redacted]', '/webhooks/portal/[redacted]/api/endpoints'], 'both portal requests were logged, the token masked')
  t.notOk(lines.join('').includes(link.token), 'no log line holds the token')
})

t.test('the scope and a client subject are required', async t => {
  const app = await build(t)
  const none = await app.inject({ method: 'POST', url: URL })
  t.equal(none.statusCode, 401)
  t.equal(none.json().code, 'token_invalid')

  const other = await accessToken(app, { scope: 'core.users:read' })
  const wrong = await app.inject({ method: 'POST', url: URL, headers: bearer(other) })
  t.equal(wrong.statusCode, 403)
  t.same(wrong.json().details, { security: [{ scheme: 'OAuth', schemeScopes: [SCOPE], tokenScopes: ['core.users:read'] }] })

  const user = await makeUser(app)
  const both = await accessToken(app, { scope: `${SCOPE} core.users:act-on-behalf-of` })
  const asUser = await app.inject({ method: 'POST', url: URL, headers: { ...bearer(both), ...onBehalfOf(user.id) } })
  t.equal(asUser.statusCode, 403)
  t.equal(asUser.json().code, 'token_subject_not_allowed')
  t.same(await app.storage.db.prepare('SELECT COUNT(*) AS n FROM management_links').get(), { n: 0 })
})

t.test('the page works until expiresAt, then answers 410 with the expired page', async t => {
  const app = await build(t, { managementLinkTtlSeconds: 600 })
  const link = await managementLink(app)

  const page = await app.inject({ method: 'GET', url: link.path })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.equal(page.headers['referrer-policy'], 'no-referrer', 'the URL is a credential')
  t.match(page.headers['content-security-policy'], /default-src 'none'; script-src 'self'/)
  t.equal(page.headers['cache-control'], 'no-store')
  t.match(page.body, /<label for="endpoint-url">Endpoint URL<\/label>/)
  t.match(page.body, />Add endpoint<\/button>/)
  t.match(page.body, /value="core\.user\.created"/)
  t.match(page.body, DEMO_ORG)
  t.notMatch(page.body, /https?:\/\/(?!example\.com)[a-z]/i, 'nothing fetched from elsewhere')

  app.clock.advance(599)
  t.equal((await app.inject({ method: 'GET', url: link.path })).statusCode, 200, 'a second before expiresAt')
  const api = await app.inject({ method: 'GET', url: `${link.path}/api/endpoints` })
  t.equal(api.statusCode, 200)

  app.clock.advance(1)
  const expired = await app.inject({ method: 'GET', url: link.path })
  t.equal(expired.statusCode, 410, 'at expiresAt')
  t.match(expired.headers['content-type'], /^text\/html/)
  t.match(expired.body, /This link has expired/)
  t.notMatch(expired.body, /Endpoint URL/)

  const expiredApi = await app.inject({ method: 'GET', url: `${link.path}/api/endpoints` })
  t.equal(expiredApi.statusCode, 410)
  t.same(expiredApi.json(), { code: 'management_link_expired', message: 'The management link has expired', details: { expiresAt: link.expiresAt } })
  const write = await app.inject({ method: 'POST', url: `${link.path}/api/endpoints`, payload: { url: 'https://example.com/hook' } })
  t.equal(write.statusCode, 410)
  t.equal((await app.storage.store(webhooksStore).listEndpoints(DEMO_ORG)).length, 0, 'nothing written with an expired link')
})

t.test('an unknown link is 401 on the page and the API', async t => {
  const app = await build(t)
  const link = await managementLink(app)
  const forged = link.path.slice(0, -1) + (link.token.endsWith('A') ? 'B' : 'A')
  const page = await app.inject({ method: 'GET', url: forged })
  t.equal(page.statusCode, 401)
  t.match(page.body, /This link is not valid/)
  for (const url of [`${forged}/api/endpoints`, '/webhooks/portal/short/api/endpoints', '/webhooks/portal/assets/api/messages']) {
    const api = await app.inject({ method: 'GET', url })
    t.equal(api.statusCode, 401, url)
    t.same(api.json(), { code: 'management_link_invalid', message: 'The management link is invalid' })
  }
})

t.test('a link shows and changes only its own organization\'s endpoints and messages', async t => {
  const app = await build(t)
  const other = await makeClient(app)
  const mine = await managementLink(app)
  const theirs = await managementLink(app, { clientId: other.clientId, secret: other.secret })

  const myEndpoint = await addEndpoint(app, mine, { url: 'http://127.0.0.1:9/mine', disabled: true })
  const theirEndpoint = await addEndpoint(app, theirs, { url: 'http://127.0.0.1:9/theirs', disabled: true })

  const list = await app.inject({ method: 'GET', url: `${mine.path}/api/endpoints` })
  t.same(list.json().endpoints.map((e: { id: string }) => e.id), [myEndpoint.id])
  t.equal(list.json().endpoints[0].organizationId, DEMO_ORG)

  const foreign = [
    { method: 'PATCH' as const, url: `${mine.path}/api/endpoints/${theirEndpoint.id}`, payload: { disabled: false } },
    { method: 'DELETE' as const, url: `${mine.path}/api/endpoints/${theirEndpoint.id}` },
    { method: 'POST' as const, url: `${mine.path}/api/endpoints/${theirEndpoint.id}/test` }
  ]
  for (const req of foreign) {
    const res = await app.inject(req)
    t.equal(res.statusCode, 404, `${req.method} ${req.url}`)
    t.same(res.json(), { code: 'entity_not_found', message: 'The endpoint cannot be found', details: { entity: 'endpoint' } })
  }
  t.same(await app.storage.store(webhooksStore).getEndpoint(other.organizationId, theirEndpoint.id), { ...theirEndpoint, description: '', eventTypes: [], disabled: true, previousSecret: null, previousSecretExpiresAt: null, organizationId: other.organizationId, createdAt: app.clock.iso(), updatedAt: app.clock.iso() }, 'unchanged')

  // A message of the other organization (a test event) cannot be seen or replayed through my link.
  await app.inject({ method: 'PATCH', url: `${theirs.path}/api/endpoints/${theirEndpoint.id}`, payload: { disabled: false } })
  const sent = await app.inject({ method: 'POST', url: `${theirs.path}/api/endpoints/${theirEndpoint.id}/test` })
  t.equal(sent.statusCode, 202)
  const messageId = sent.json().message.id
  const myMessages = await app.inject({ method: 'GET', url: `${mine.path}/api/messages` })
  t.same(myMessages.json(), { messages: [] })
  const theirMessages = await app.inject({ method: 'GET', url: `${theirs.path}/api/messages` })
  t.same(theirMessages.json().messages.map((m: { id: string }) => m.id), [messageId])
  const replay = await app.inject({ method: 'POST', url: `${mine.path}/api/messages/${messageId}/replay` })
  t.equal(replay.statusCode, 404)
  t.same(replay.json(), { code: 'entity_not_found', message: 'The message cannot be found', details: { entity: 'message' } })
})

t.test('the portal API manages endpoints: add, change, disable, delete', async t => {
  const app = await build(t)
  const link = await managementLink(app)
  const created = await app.inject({
    method: 'POST',
    url: `${link.path}/api/endpoints`,
    payload: { url: 'https://example.com/hooks', description: 'Orders', eventTypes: ['core.user.created', 'core.user.deleted'] }
  })
  t.equal(created.statusCode, 201)
  const endpoint = created.json().endpoint
  t.same(endpoint, {
    id: endpoint.id,
    organizationId: DEMO_ORG,
    url: 'https://example.com/hooks',
    description: 'Orders',
    eventTypes: ['core.user.created', 'core.user.deleted'],
    disabled: false,
    secret: endpoint.secret,
    previousSecretExpiresAt: null,
    createdAt: app.clock.iso(),
    updatedAt: app.clock.iso()
  })
  t.match(endpoint.id, UUID_RE)
  t.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{32}$/, '24 random bytes in base64')

  app.clock.advance(5)
  const patched = await app.inject({ method: 'PATCH', url: `${link.path}/api/endpoints/${endpoint.id}`, payload: { disabled: true, eventTypes: [] } })
  t.equal(patched.statusCode, 200)
  t.same(patched.json().endpoint, { ...endpoint, disabled: true, eventTypes: [], updatedAt: app.clock.iso() })

  const test = await app.inject({ method: 'POST', url: `${link.path}/api/endpoints/${endpoint.id}/test` })
  t.equal(test.statusCode, 409)
  t.same(test.json(), { code: 'endpoint_disabled', message: 'The endpoint is disabled' })

  const deleted = await app.inject({ method: 'DELETE', url: `${link.path}/api/endpoints/${endpoint.id}` })
  t.equal(deleted.statusCode, 204)
  t.equal(deleted.body, '')
  const again = await app.inject({ method: 'DELETE', url: `${link.path}/api/endpoints/${endpoint.id}` })
  t.equal(again.statusCode, 404)
  t.same((await app.inject({ method: 'GET', url: `${link.path}/api/endpoints` })).json(), { endpoints: [] })
})

t.test('the portal API refuses bad endpoints with 400 and writes nothing', async t => {
  const app = await build(t)
  const link = await managementLink(app)
  const bad: Array<[string, unknown, string, string]> = [
    ['ftp URL', { url: 'ftp://example.com/hook' }, 'url', 'pattern'],
    ['relative URL', { url: '/hooks' }, 'url', 'pattern'],
    ['javascript URL', { url: 'javascript:alert(1)' }, 'url', 'pattern'],
    ['no URL', {}, 'url', 'required'],
    ['not a URL', { url: 'http://exa mple.com/' }, 'url', 'format'],
    ['unknown event type', { url: 'https://example.com', eventTypes: ['core.nothing'] }, 'eventTypes.0', 'enum'],
    ['repeated event type', { url: 'https://example.com', eventTypes: ['core.user.created', 'core.user.created'] }, 'eventTypes', 'uniqueItems'],
    ['unknown field', { url: 'https://example.com', secret: 'whsec_mine' }, 'secret', 'additionalProperties']
  ]
  for (const [name, payload, property, rule] of bad) {
    const res = await app.inject({ method: 'POST', url: `${link.path}/api/endpoints`, payload: payload as object })
    t.equal(res.statusCode, 400, name)
    t.equal(res.json().code, 'request_invalid', name)
    t.equal(res.json().details.context, 'body', name)
    t.ok(res.json().details.violations.some((v: { property: string, rule: string }) => v.property === property && v.rule === rule), `${name}: ${property} ${rule}`)
  }
  const endpoint = await addEndpoint(app, link, { url: 'http://127.0.0.1:9/hook', disabled: true })
  const patch = await app.inject({ method: 'PATCH', url: `${link.path}/api/endpoints/${endpoint.id}`, payload: { url: 'mailto:me@example.com' } })
  t.equal(patch.statusCode, 400)
  const empty = await app.inject({ method: 'PATCH', url: `${link.path}/api/endpoints/${endpoint.id}`, payload: {} })
  t.equal(empty.statusCode, 400)
  const badId = await app.inject({ method: 'PATCH', url: `${link.path}/api/endpoints/not-a-uuid`, payload: { disabled: false } })
  t.equal(badId.statusCode, 400)
  t.equal(badId.json().details.context, 'params')
  t.same((await app.storage.store(webhooksStore).listEndpoints(DEMO_ORG)).map(e => e.url), ['http://127.0.0.1:9/hook'])
})
