// An integration test of a client against the sandbox, as an integrator would write one: it gets
// a token, creates a user, forces the user's KYC through the control API, and receives the signed
// webhooks that follow, verified with the endpoint's secret. Plain Node (node:test, fetch) and the
// `standardwebhooks` package; nothing of the sandbox's own code.
//
//   SANDBOX_URL=http://127.0.0.1:8080 node --test examples/integration.test.js
//
// SANDBOX_URL defaults to http://127.0.0.1:8080. Set SANDBOX_ADMIN_TOKEN when the sandbox has one,
// SANDBOX_CLIENT_ID / SANDBOX_CLIENT_SECRET for another client than the demo one, and SERVICE_NAME
// when the sandbox's is not `service`. The sandbox's clock must run near real time: Standard
// Webhooks receivers refuse timestamps over 5 minutes off.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { randomUUID } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

const SANDBOX = process.env.SANDBOX_URL ?? 'http://127.0.0.1:8080'
const ADMIN = process.env.SANDBOX_ADMIN_TOKEN
const CLIENT_ID = process.env.SANDBOX_CLIENT_ID ?? 'sandbox-demo-client'
const CLIENT_SECRET = process.env.SANDBOX_CLIENT_SECRET ?? 'sandbox-demo-secret'
// The end user's context headers are named after the sandbox's SERVICE_NAME (`service` by default).
const SERVICE = process.env.SERVICE_NAME ?? 'service'
const USER_CONTEXT = { [`x-${SERVICE}-user-ip`]: '203.0.113.7', [`x-${SERVICE}-user-agent`]: 'example-tests/1.0' }
const KYC_PROCESSES = [
  'profile', 'address', 'email', 'phone', 'identity', 'proof-of-address', 'customer-due-diligence', 'enhanced-due-diligence',
  'crypto-risk-assessment', 'self-categorization-statement', 'tax-details', 'screening', 'risk'
]

/** A JSON call; answers the status and the parsed body. */
async function call (method, path, { token, body, headers = {} } = {}) {
  const res = await fetch(`${SANDBOX}${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers
    },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

/** A call to the control API under /_sandbox, with the admin token when there is one; throws unless 2xx. */
async function control (method, path, body) {
  const res = await call(method, `/_sandbox${path}`, { token: ADMIN, body })
  if (res.status >= 300) throw new Error(`${method} /_sandbox${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** A client-credentials token, as the client under test gets one. */
async function clientToken () {
  const res = await fetch(`${SANDBOX}/core/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded'
    },
    body: 'grant_type=client_credentials'
  })
  assert.equal(res.status, 200, 'the token endpoint answers 200')
  return (await res.json()).access_token
}

/** A webhook receiver on a free local port: it keeps every delivery (headers and raw body) and answers 204. */
async function startReceiver () {
  const received = []
  const waiting = []
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', chunk => { body += chunk })
    req.on('end', () => {
      received.push({ headers: req.headers, body })
      res.writeHead(204).end()
      for (const w of waiting.splice(0)) w()
    })
  })
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/webhooks`,
    received,
    /** The first delivery `match` accepts, waiting up to `ms` for it. */
    async waitFor (match, ms = 10_000) {
      const deadline = Date.now() + ms
      for (;;) {
        const found = received.find(match)
        if (found !== undefined) return found
        if (Date.now() > deadline) throw new Error(`no matching delivery in ${ms} ms (${received.length} received)`)
        await new Promise(resolve => { waiting.push(resolve); setTimeout(resolve, 100) })
      }
    },
    close: () => new Promise(resolve => { server.closeAllConnections(); server.close(resolve) })
  }
}

let token
let receiver
let endpoint

before(async () => {
  token = await clientToken()
  receiver = await startReceiver()
  // Every event type of the organization goes to the receiver, signed with this endpoint's secret.
  endpoint = (await control('POST', '/webhooks/endpoints', { url: receiver.url, description: 'examples/integration.test.js' })).endpoint
  assert.match(endpoint.secret, /^whsec_/)
})

after(async () => {
  if (endpoint !== undefined) await control('DELETE', `/webhooks/endpoints/${endpoint.id}`)
  await receiver?.close()
})

/** The delivery of the event `type` about `userId`, once verified: throws when the signature does not hold. */
async function verifiedEvent (type, userId) {
  const webhook = new Webhook(endpoint.secret)
  const delivery = await receiver.waitFor(d => {
    const event = JSON.parse(d.body)
    return event.type === type && (event.data.user?.id ?? event.data.userId) === userId
  })
  return webhook.verify(delivery.body, delivery.headers)
}

test('a user is created, made KYC-ready, and each step arrives as a signed webhook', async () => {
  // A user, with the end user's IP address, which creating one requires.
  const withoutIp = await call('POST', '/core/users', { token, body: { email: `${randomUUID()}@example.com`, termsOfService: 'general-us-hq', primaryCitizenship: 'US', address: { country: 'US' } } })
  assert.equal(withoutIp.status, 409, 'without the user IP header, 409')

  const email = `${randomUUID()}@example.com`
  const created = await call('POST', '/core/users', {
    token,
    headers: USER_CONTEXT,
    body: { email, termsOfService: 'general-us-hq', primaryCitizenship: 'US', address: { country: 'US', subdivision: 'US-NY' } }
  })
  assert.equal(created.status, 201)
  const userId = created.body.user.id

  // Its creation, delivered and verified.
  const createdEvent = await verifiedEvent('core.user.created', userId)
  assert.equal(createdEvent.type, 'core.user.created')
  assert.equal(createdEvent.data.user.email, email)

  // KYC: not ok yet, then every process forced ok through the control API.
  const acting = { 'x-on-behalf-of': `user ${userId}` }
  const before = await call('GET', '/core/kyc', { token, headers: acting })
  assert.equal(before.status, 200)
  assert.notEqual(before.body.summary.status, 'ok', 'a new user is not KYC ok')
  let last
  for (const process of KYC_PROCESSES) last = await control('POST', `/users/${userId}/kyc/${process}`, { status: 'ok' })
  assert.equal(last.summary.status, 'ok', 'the control answers the summary')
  const kyc = await call('GET', '/core/kyc', { token, headers: acting })
  assert.equal(kyc.body.summary.status, 'ok', 'the API sees it too')

  // Each change is an event: the identity's, verified like any other.
  const identity = await verifiedEvent('core.kyc.identity.status-changed', userId)
  assert.deepEqual(identity.data, { status: 'ok', userId })
})

test('a delivery whose body was changed fails verification', async () => {
  const delivery = await receiver.waitFor(() => true)
  const webhook = new Webhook(endpoint.secret)
  assert.doesNotThrow(() => webhook.verify(delivery.body, delivery.headers), 'the delivery as sent verifies')
  const tampered = delivery.body.replace(/"type":"/, '"type":"x')
  assert.throws(() => webhook.verify(tampered, delivery.headers), 'a changed body does not')
  const otherSecret = new Webhook(`whsec_${Buffer.from('another secret of 24 bytes').toString('base64')}`)
  assert.throws(() => otherSecret.verify(delivery.body, delivery.headers), 'nor another secret')
})

test('the capabilities follow the KYC: a KYC-ready user may trade', async () => {
  const created = await call('POST', '/core/users', {
    token,
    headers: USER_CONTEXT,
    body: { email: `${randomUUID()}@example.com`, termsOfService: 'general-us-hq', primaryCitizenship: 'US', address: { country: 'US', subdivision: 'US-NY' } }
  })
  const userId = created.body.user.id
  const acting = { 'x-on-behalf-of': `user ${userId}` }
  const trades = async () => (await call('GET', '/core/capabilities/trades', { token, headers: acting })).body.capability
  assert.notDeepEqual((await trades()).requirements, [], 'requirements until KYC is done')
  for (const process of KYC_PROCESSES) await control('POST', `/users/${userId}/kyc/${process}`, { status: 'ok' })
  const capability = await trades()
  assert.deepEqual({ enabled: capability.enabled, requirements: capability.requirements, restrictions: capability.restrictions },
    { enabled: true, requirements: [], restrictions: [] })
})
