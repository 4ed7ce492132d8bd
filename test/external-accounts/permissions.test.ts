// Organization permissions (the `organizationPermissions` fixture key): the fixture key's good and
// bad input, and the exact `permission-denied` answers of external accounts and quotes.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { setup, ready } from '../accounts/support.js'
import { quoteSetup } from '../quotes/support.js'
import { DEMO_ORG } from '../helpers.js'
import { ach, card } from './support.js'

const denied = (message: string): Record<string, unknown> => ({ code: 'operation_not_allowed', message, details: { reasons: ['permission-denied'] } })

t.test('the fixture key: good input, an unknown organization, a repeated one', async t => {
  const s = await setup(t)
  const fixture = (payload: Record<string, unknown>) => s.app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload })
  const org = randomUUID()
  const good = await fixture({
    organizations: [{ id: org, name: 'Restricted' }],
    organizationPermissions: [{ organizationId: org, externalAccountTypes: ['bank'] }, { externalAccountsUpdatable: false }]
  })
  t.equal(good.statusCode, 201, good.body)
  t.same(good.json().organizationPermissions, [{ organizationId: org }, { organizationId: DEMO_ORG }])

  const missing = randomUUID()
  const bad = await fixture({ organizationPermissions: [{ organizationId: missing }, { organizationId: org }, { organizationId: org }] })
  t.equal(bad.statusCode, 400)
  t.same(bad.json().details.violations, [
    { property: 'organizationPermissions.0.organizationId', rule: 'exists', ruleParams: { entity: 'organization' } },
    { property: 'organizationPermissions.2.organizationId', rule: 'unique' }
  ])
  const shape = await fixture({ organizationPermissions: [{ externalAccountTypes: ['wire'] }] })
  t.equal(shape.statusCode, 400)
  t.equal(shape.json().code, 'request_invalid')
})

t.test('external accounts: a type not configured, and accounts that cannot be updated', async t => {
  const s = await setup(t)
  await ready(s)
  const call = (payload: Record<string, unknown>) => s.call('POST', '/core/external-accounts', { payload })
  const made = await call(ach())
  t.equal(made.statusCode, 201)
  const id = made.json().externalAccount.id

  let res = await s.app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { organizationPermissions: [{ externalAccountTypes: ['bank'], externalAccountsUpdatable: false }] } })
  t.equal(res.statusCode, 201, res.body)
  res = await call(card('4111111111111111'))
  t.equal(res.statusCode, 409)
  t.same(res.json(), denied("External account type 'card' is not configured for your organization"))
  t.equal((await call(ach({ accountNumber: '1234567890' }))).statusCode, 201, 'a bank account is still allowed')

  res = await s.call('PATCH', `/core/external-accounts/${id}`, { payload: { label: 'Renamed' } })
  t.equal(res.statusCode, 409)
  t.same(res.json(), denied('The external account cannot be updated'))
  t.equal((await s.call('PATCH', `/core/external-accounts/${randomUUID()}`, { payload: { label: 'Renamed' } })).statusCode, 404, 'an unknown one is still 404')

  res = await s.app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { organizationPermissions: [{ externalAccountTypes: ['card'] }] } })
  t.equal(res.statusCode, 201, res.body)
  t.same((await call(ach({ accountNumber: '5555555555' }))).json(), denied("External account type 'bank' is not configured for your organization"))
  t.equal((await s.call('PATCH', `/core/external-accounts/${id}`, { payload: { label: 'Renamed' } })).statusCode, 200, 'updatable by default')
})

t.test('quotes: node types not configured, and a ttl that cannot be changed', async t => {
  const s = await quoteSetup(t)
  const body = (extra: Record<string, unknown> = {}) => ({
    origin: { type: 'account', id: s.accounts.USD },
    destination: { type: 'account', id: s.accounts.EUR },
    denomination: { asset: 'USD', amount: '10' },
    ...extra
  })
  t.equal((await s.quote(body({ ttl: 20000 }))).statusCode, 201, 'everything is allowed by default')
  const res = await s.app.inject({
    method: 'POST',
    url: '/_sandbox/fixtures',
    payload: { organizationPermissions: [{ quoteNodeTypes: { origin: ['account', 'external-account'], destination: ['account'] }, quoteTtlChangeAllowed: false }] }
  })
  t.equal(res.statusCode, 201, res.body)

  let q = await s.quote(body({ destination: { type: 'crypto-address', asset: 'BTC', network: 'bitcoin', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' } }))
  t.equal(q.statusCode, 409)
  t.same(q.json(), denied("Destination node type 'crypto-address' is not configured for your organization"))
  q = await s.quote(body({ origin: { type: 'apm', method: 'paypal' } }))
  t.equal(q.statusCode, 409)
  t.same(q.json(), denied("Origin node type 'apm' is not configured for your organization"))
  q = await s.quote(body({ ttl: 20000 }))
  t.equal(q.statusCode, 409)
  t.same(q.json(), denied('Changing the ttl is not allowed for your organization'))
  t.equal((await s.quote(body())).statusCode, 201, 'without a ttl')
  t.equal((await s.quote(body({ origin: { type: 'external-account', id: s.cardId } }))).statusCode, 201, 'a configured origin type')
})
