// Organizations drive their own sandbox: an organization's token with `sandbox:control` reaches its
// own users, transactions, external accounts, webhooks, fault rules, pins and request log, and
// nothing of another organization (404, nothing changed); the global controls are 403 for it.
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { accessToken, bearer, build, makeClient } from '../helpers.js'

const ADMIN = 'organizations-admin-token'
const admin = { authorization: `Bearer ${ADMIN}` }

interface Org { id: string, clientId: string, token: string, headers: { authorization: string } }

async function organization (app: FastifyInstance, scopes = ['core.*', 'sandbox:control']): Promise<Org> {
  const id = randomUUID()
  const created = await app.inject({ method: 'POST', url: '/_sandbox/clients', headers: admin, payload: { organizationId: id, scopes } })
  if (created.statusCode !== 201) throw new Error(`client: ${created.statusCode} ${created.body}`)
  const { clientId, clientSecret } = created.json()
  const token = await accessToken(app, { clientId, secret: clientSecret })
  return { id, clientId, token, headers: bearer(token) }
}

const call = async (app: FastifyInstance, org: Org | null, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object): Promise<LightMyRequestResponse> =>
  await app.inject({ method, url, headers: org === null ? admin : org.headers, ...(payload === undefined ? {} : { payload }) })

/** A user of the organization, loaded by its own fixture (its items default to its organization). */
async function user (app: FastifyInstance, org: Org): Promise<string> {
  const loaded = await call(app, org, 'POST', '/_sandbox/fixtures', { users: [{ email: `u-${randomUUID()}@example.com` }] })
  if (loaded.statusCode !== 201) throw new Error(`fixture: ${loaded.statusCode} ${loaded.body}`)
  t.equal(loaded.json().users[0].organizationId, org.id, 'a fixture loaded with an organization\'s token goes into it')
  return loaded.json().users[0].id as string
}

const notFound = (t: Test, res: LightMyRequestResponse, entity: string, what: string): void => {
  t.equal(res.statusCode, 404, `${what}: 404`)
  t.equal(res.json().code, 'entity_not_found', what)
  t.equal(res.json().details?.entity, entity, `${what}: the ${entity}`)
}

t.test('two organizations, each with a control client: each drives its own and sees nothing of the other', async t => {
  const app = await build(t, { adminToken: ADMIN })
  const a = await organization(app)
  const b = await organization(app)
  const userA = await user(app, a)
  const userB = await user(app, b)

  // KYC: each forces its own user's outcome; the other's user does not exist for it.
  const forced = await call(app, a, 'POST', `/_sandbox/users/${userA}/kyc/identity`, { status: 'ok' })
  t.equal(forced.statusCode, 200)
  t.equal(forced.json().process.status, 'ok')
  notFound(t, await call(app, b, 'POST', `/_sandbox/users/${userA}/kyc/email`, { status: 'ok' }), 'user', 'B forcing A\'s user\'s KYC')
  notFound(t, await call(app, b, 'POST', `/_sandbox/users/${userA}/kyb`, { status: 'ok' }), 'user', 'B setting A\'s user\'s KYB')
  const kycA = (await call(app, a, 'GET', '/_sandbox/kyc')).json().users
  t.same(kycA.map((u: { id: string }) => u.id), [userA], 'A lists its own users only')
  t.equal(kycA[0].processes.email, (await call(app, null, 'GET', `/_sandbox/kyc?organizationId=${a.id}`)).json().users[0].processes.email, 'nothing changed')
  t.not(kycA[0].processes.email, 'ok', 'B\'s attempt did not force the process')
  t.same((await call(app, b, 'GET', '/_sandbox/kyc')).json().users.map((u: { id: string }) => u.id), [userB])
  notFound(t, await call(app, a, 'GET', `/_sandbox/kyc?organizationId=${b.id}`), 'organization', 'A naming B')

  // Deposits and transactions: each simulates its own; the other's are not there.
  const depositA = await call(app, a, 'POST', '/_sandbox/entities/transactions', { userId: userA })
  t.equal(depositA.statusCode, 201)
  t.equal(depositA.json().organizationId, a.id)
  notFound(t, await call(app, b, 'POST', '/_sandbox/entities/transactions', { userId: userA }), 'user', 'B depositing for A\'s user')
  notFound(t, await call(app, b, 'POST', `/_sandbox/transactions/${depositA.json().id as string}/status`, { status: 'failed' }), 'transaction', 'B deciding A\'s transaction')
  notFound(t, await call(app, b, 'POST', `/_sandbox/transactions/${depositA.json().id as string}/requests-for-information/${randomUUID()}/status`, { status: 'expired' }), 'transaction', 'B closing an RFI of A\'s transaction')
  const ledgerA = (await call(app, a, 'GET', '/_sandbox/ledger')).json()
  t.same(ledgerA.transactions.map((x: { id: string }) => x.id), [depositA.json().id], 'A sees its own transaction')
  t.equal(ledgerA.transactions[0].status, 'completed', 'unchanged by B')
  t.same((await call(app, b, 'GET', '/_sandbox/ledger')).json().transactions, [], 'B sees none of A\'s')

  // External accounts.
  const externalA = await call(app, a, 'POST', '/_sandbox/entities/external-accounts', { userId: userA })
  t.equal(externalA.statusCode, 201)
  notFound(t, await call(app, b, 'POST', `/_sandbox/external-accounts/${externalA.json().id as string}/status`, { status: 'blocked' }), 'external-account', 'B changing A\'s external account')
  const stillOk = await call(app, a, 'POST', `/_sandbox/external-accounts/${externalA.json().id as string}/status`, { status: 'ok' })
  t.equal(stillOk.statusCode, 200)
  t.equal(stillOk.json().externalAccount.status, 'ok', 'A\'s external account was not blocked')

  // Webhook endpoints and messages.
  const endpoint = await call(app, a, 'POST', '/_sandbox/webhooks/endpoints', { url: 'http://127.0.0.1:9/hooks' })
  t.equal(endpoint.statusCode, 201)
  const endpointId = endpoint.json().endpoint.id as string
  t.same((await call(app, b, 'GET', '/_sandbox/webhooks/endpoints')).json().endpoints, [], 'B lists none of A\'s endpoints')
  t.equal((await call(app, b, 'PATCH', `/_sandbox/webhooks/endpoints/${endpointId}`, { disabled: true })).statusCode, 404)
  t.equal((await call(app, b, 'DELETE', `/_sandbox/webhooks/endpoints/${endpointId}`)).statusCode, 404)
  t.equal((await call(app, b, 'POST', `/_sandbox/webhooks/endpoints/${endpointId}/rotate-secret`)).statusCode, 404)
  notFound(t, await call(app, b, 'GET', `/_sandbox/webhooks/endpoints?organizationId=${a.id}`), 'organization', 'B naming A')
  const endpointsA = (await call(app, a, 'GET', '/_sandbox/webhooks/endpoints')).json().endpoints
  t.same(endpointsA.map((e: { id: string, disabled: boolean }) => [e.id, e.disabled]), [[endpointId, false]], 'A\'s endpoint is whole')
  t.equal((await call(app, b, 'POST', `/_sandbox/webhooks/endpoints/${endpointId}/test`)).statusCode, 404, 'B sending a test message to A\'s endpoint')
  t.equal((await call(app, a, 'POST', `/_sandbox/webhooks/endpoints/${endpointId}/test`)).statusCode, 202)
  const messagesB = (await call(app, b, 'GET', '/_sandbox/webhooks/messages')).json().messages as Array<{ id: string }>
  const messagesA = (await call(app, a, 'GET', '/_sandbox/webhooks/messages')).json().messages as Array<{ id: string }>
  t.ok(messagesA.length > 0, 'A has messages')
  t.same(messagesB.filter(m => messagesA.some(x => x.id === m.id)), [], 'B lists none of A\'s messages')
  t.equal((await call(app, b, 'POST', `/_sandbox/webhooks/messages/${messagesA[0].id}/replay`)).statusCode, 404)

  // Pinned prices: each prices with its own pins.
  t.equal((await call(app, a, 'POST', '/_sandbox/rates', { asset: 'BTC', mid: '12345' })).statusCode, 201)
  t.equal((await call(app, b, 'POST', '/_sandbox/rates', { asset: 'BTC', mid: '999' })).statusCode, 201)
  t.same((await call(app, a, 'GET', '/_sandbox/rates')).json().rates.map((r: { mid: string }) => r.mid), ['12345'], 'A lists its own pin')
  t.same((await call(app, b, 'GET', '/_sandbox/rates')).json().rates.map((r: { mid: string }) => r.mid), ['999'], 'B lists its own pin')
  t.same((await call(app, null, 'GET', '/_sandbox/rates')).json().rates, [], 'the admin\'s (for every organization) are untouched')
  const rate = async (org: Org): Promise<string> => (await call(app, org, 'GET', '/core/assets/BTC/rates?denomination=USD')).json().rates.USD.mid
  t.equal(await rate(a), '12345', 'A prices BTC with its pin')
  t.equal(await rate(b), '999', 'B prices BTC with its pin')
  t.equal((await call(app, b, 'DELETE', '/_sandbox/rates?asset=BTC')).statusCode, 204)
  t.equal(await rate(a), '12345', 'B\'s release leaves A\'s pin')
  t.not(await rate(b), '999', 'B is back on the model')

  // Fault rules: one organization's never fires on the other's requests.
  const rule = await call(app, a, 'POST', '/_sandbox/faults', { method: 'GET', path: '/core/assets', status: 503 })
  t.equal(rule.statusCode, 201)
  t.equal(rule.json().organizationId, a.id)
  t.equal((await call(app, b, 'GET', '/core/assets')).statusCode, 200, 'B\'s request is not affected by A\'s rule')
  t.equal((await call(app, a, 'GET', '/core/assets')).statusCode, 503, 'A\'s request is')
  t.same((await call(app, b, 'GET', '/_sandbox/faults')).json().faults, [], 'B lists none of A\'s rules')
  notFound(t, await call(app, b, 'DELETE', `/_sandbox/faults/${rule.json().id as string}`), 'fault', 'B deleting A\'s rule')
  t.equal((await call(app, b, 'DELETE', '/_sandbox/faults')).statusCode, 204)
  t.equal((await call(app, a, 'GET', '/_sandbox/faults')).json().faults.length, 1, 'B clearing its rules leaves A\'s')
  t.equal((await call(app, a, 'DELETE', `/_sandbox/faults/${rule.json().id as string}`)).statusCode, 204)

  // The request log: each reads only the requests made with its own organization's tokens.
  const logA = (await call(app, a, 'GET', '/_sandbox/requests?limit=1000')).json()
  const logB = (await call(app, b, 'GET', '/_sandbox/requests?limit=1000')).json()
  t.ok(logA.requests.length > 0 && logB.requests.length > 0)
  t.ok(logA.requests.every((r: { clientId: string }) => r.clientId === a.clientId), 'A\'s log holds A\'s requests only')
  t.ok(logB.requests.every((r: { clientId: string }) => r.clientId === b.clientId), 'B\'s log holds B\'s requests only')
  t.equal(logA.total, logA.requests.length)
  t.ok(logA.requests.some((r: { path: string, status: number }) => r.path === '/core/assets' && r.status === 503), 'A sees its faulted request')
  t.notOk(logB.requests.some((r: { path: string, status: number }) => r.status === 503), 'B sees none of A\'s')
  t.equal((await call(app, b, 'DELETE', '/_sandbox/requests')).statusCode, 204)
  t.same((await call(app, b, 'GET', '/_sandbox/requests')).json().requests, [], 'B cleared its own log')
  t.equal((await call(app, a, 'GET', '/_sandbox/requests?limit=1000')).json().requests.length, logA.requests.length, 'A\'s log is whole')
  t.ok((await call(app, null, 'GET', '/_sandbox/requests?limit=1000')).json().requests.length > logA.requests.length, 'the admin reads everyone\'s')

  // Reset by A: A's data goes, its client stays; B's data is whole.
  t.equal((await call(app, a, 'POST', '/_sandbox/reset')).statusCode, 204)
  t.same((await call(app, a, 'GET', '/_sandbox/kyc')).json().users, [], 'A\'s users are gone')
  t.same((await call(app, a, 'GET', '/_sandbox/webhooks/endpoints')).json().endpoints, [], 'A\'s endpoints are gone')
  t.same((await call(app, a, 'GET', '/_sandbox/rates')).json().rates, [], 'A\'s pins are gone')
  t.equal((await call(app, a, 'GET', '/core/assets')).statusCode, 200, 'A\'s client and token still work')
  t.same((await call(app, b, 'GET', '/_sandbox/kyc')).json().users.map((u: { id: string }) => u.id), [userB], 'B\'s user is whole')
  const clients = (await call(app, null, 'GET', `/_sandbox/clients?organizationId=${a.id}`)).json().clients
  t.same(clients.map((c: { clientId: string }) => c.clientId), [a.clientId], 'A\'s client is kept')
  notFound(t, await call(app, a, 'POST', '/_sandbox/reset', { organizationId: b.id }), 'organization', 'A resetting B')
  t.same((await call(app, b, 'GET', '/_sandbox/kyc')).json().users.map((u: { id: string }) => u.id), [userB], 'B is still whole')
})

t.test('the global controls are 403 forbidden for an organization\'s token; taken from the registry', async t => {
  const app = await build(t, { adminToken: ADMIN })
  const a = await organization(app)
  const global = app.registeredRoutes.filter(r => r.config?.control === 'global' && r.method !== 'HEAD')
  t.ok(global.length >= 6, `${global.length} global controls`)
  for (const route of global) {
    const url = route.url.replace(/:[A-Za-z]+/g, 'x')
    const res = await app.inject({ method: route.method as 'GET', url, headers: a.headers, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: {} }) })
    t.equal(res.statusCode, 403, `${route.method} ${route.url}`)
    t.same(res.json(), { code: 'forbidden', message: 'This control acts on every organization: use the admin token' }, `${route.method} ${route.url}: the message`)
  }
  // The admin token keeps them.
  t.equal((await call(app, null, 'GET', '/_sandbox/organizations')).statusCode, 200)
  // A fixture with a key that acts on every organization.
  const organizations = await call(app, a, 'POST', '/_sandbox/fixtures', { organizations: [{ id: randomUUID() }] })
  t.equal(organizations.statusCode, 403)
  t.equal(organizations.json().code, 'forbidden')
  t.same(organizations.json().details, { keys: ['organizations'] })
  // A fixture naming another organization's user: nothing of it exists for A, and nothing is loaded.
  const b = await organization(app)
  const userB = await user(app, b)
  const bad = await call(app, a, 'POST', '/_sandbox/fixtures', { users: [{ email: 'ok@example.com' }], entities: [{ type: 'accounts', userId: userB }] })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().details.violations, [{ property: 'entities.0.userId', rule: 'exists' }])
  t.same((await call(app, a, 'GET', '/_sandbox/kyc')).json().users, [], 'nothing was loaded')
  const foreign = await call(app, a, 'POST', '/_sandbox/fixtures', { users: [{ email: 'other@example.com', organizationId: b.id }] })
  t.equal(foreign.statusCode, 400, 'a user into another organization')
})

t.test('the control guard: which tokens a per-organization control takes', async t => {
  const app = await build(t, { adminToken: ADMIN })
  const org = await organization(app)
  t.equal((await call(app, org, 'GET', '/_sandbox/clock')).json().organizationId, org.id, 'an organization\'s token reads its own clock')
  t.equal((await call(app, null, 'GET', '/_sandbox/clock')).json().organizationId, null, 'the admin reads the global clock')
  // Without the scope: 403 token_insufficient_scopes, naming it.
  const plain = await organization(app, ['core.*'])
  const refused = await call(app, plain, 'GET', '/_sandbox/clock')
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().code, 'token_insufficient_scopes')
  t.same(refused.json().details.security[0].schemeScopes, ['sandbox:control'])
  // A token bound to a user is not a control token.
  const { clientId, secret } = await makeClient(app, { organizationId: org.id, scopes: ['sandbox:control'], userId: null })
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/clock', headers: bearer(await accessToken(app, { clientId, secret })) })).statusCode, 200)
  // Neither the admin token nor an access token.
  const wrong = await app.inject({ method: 'GET', url: '/_sandbox/clock', headers: { authorization: 'Bearer nothing-at-all' } })
  t.equal(wrong.statusCode, 401)
  t.equal(wrong.json().code, 'token_invalid')
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/clock' })).statusCode, 401, 'no token')
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/organizations', headers: { authorization: 'Bearer nothing-at-all' } })).json().message,
    'The sandbox admin token is missing or invalid', 'a global control names the admin token')
  // An expired control token.
  await call(app, null, 'POST', '/_sandbox/clock', { advanceSeconds: 3601 })
  const expired = await call(app, org, 'GET', '/_sandbox/clock')
  t.equal(expired.statusCode, 401)
  t.equal(expired.json().code, 'token_expired')
})

t.test('without SANDBOX_ADMIN_TOKEN, no token acts as the admin and an organization\'s token still acts for its own', async t => {
  const app = await build(t)
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/organizations' })).statusCode, 200)
  const { clientId, secret, organizationId } = await makeClient(app, { scopes: ['core.*', 'sandbox:control'] })
  const headers = bearer(await accessToken(app, { clientId, secret }))
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/clock', headers })).json().organizationId, organizationId)
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/organizations', headers })).statusCode, 403)
})
