// Accounts: creation, default accounts, the list and its pages, get, update, archive refused and
// allowed, accounts made by the sandbox, and their events delivered to a real receiver in order.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { makeUser, UUID_RE } from '../helpers.js'
import { addEndpoint, managementLink, startReceiver } from '../webhooks/support.js'
import { defaultAccount, unarchiveOnFunds } from '../../src/accounts/service.js'
import { accountsStore } from '../../src/accounts/store.js'
import { groupCommit } from '../../src/storage/db.js'
import { setup } from './support.js'

t.test('core.create-account creates an account with a zero balance; bad input is 4xx', async t => {
  const { app, userId, call } = await setup(t)
  const res = await call('POST', '/core/accounts', { payload: { label: 'My BTC account', asset: 'BTC', metadata: { externalId: 123 } } })
  t.equal(res.statusCode, 201)
  const { account } = res.json()
  t.same(account, { id: account.id, ownerId: userId, label: 'My BTC account', asset: 'BTC', balance: { total: '0', available: '0' }, createdAt: app.clock.iso(), updatedAt: app.clock.iso() })
  t.match(account.id, UUID_RE)
  t.notOk('errors' in res.json())
  const metadata = await call('GET', `/core/accounts/${account.id}/metadata`)
  t.equal(metadata.statusCode, 200)
  t.same(metadata.json().metadata, { externalId: 123 })

  const big = await call('POST', '/core/accounts', { payload: { label: 'Big', asset: 'ETH', metadata: { blob: 'x'.repeat(1100) } } })
  t.equal(big.statusCode, 201, 'metadata over the limit does not stop the creation')
  t.equal(big.json().errors.metadata.code, 'content_too_large')

  const unknown = await call('POST', '/core/accounts', { payload: { label: 'Nope', asset: 'NOPE' } })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { code: 'entity_not_found', message: 'The asset cannot be found', details: { entity: 'asset' } })
  for (const payload of [{ asset: 'BTC' }, { label: ' padded', asset: 'BTC' }, { label: 'x'.repeat(141), asset: 'BTC' }, { label: 'ok' }, { label: 'ok', asset: 1 }]) {
    const bad = await call('POST', '/core/accounts', { payload })
    t.equal(bad.statusCode, 400, JSON.stringify(payload).slice(0, 60))
    t.equal(bad.json().code, 'request_invalid')
  }
  const asClient = await call('POST', '/core/accounts', { payload: { label: 'x', asset: 'BTC' }, user: null })
  t.equal(asClient.statusCode, 403)
  t.equal(asClient.json().code, 'token_subject_not_allowed')
})

t.test('the list is newest first, filtered by asset, in pages whose links keep the query', async t => {
  const { app, call } = await setup(t, { publicUrl: 'https://sandbox.example' })
  const ids: string[] = []
  for (const [i, asset] of ['BTC', 'ETH', 'BTC', 'GBP', 'BTC'].entries()) {
    ids.push((await call('POST', '/core/accounts', { payload: { label: `Account ${i}`, asset } })).json().account.id)
    app.clock.advance(1)
  }
  const all = await call('GET', '/core/accounts')
  t.same(all.json().accounts.map((a: { id: string }) => a.id), [...ids].reverse())
  t.same(all.json().pagination, { first: 'https://sandbox.example/core/accounts?page=1&perPage=10' })

  const first = await call('GET', '/core/accounts?perPage=2')
  t.same(first.json().accounts.map((a: { id: string }) => a.id), [ids[4], ids[3]])
  t.same(first.json().pagination, {
    first: 'https://sandbox.example/core/accounts?perPage=2&page=1',
    next: 'https://sandbox.example/core/accounts?perPage=2&page=2'
  })
  const last = await call('GET', '/core/accounts?perPage=2&page=3')
  t.same(last.json().accounts.map((a: { id: string }) => a.id), [ids[0]])
  t.same(last.json().pagination, {
    first: 'https://sandbox.example/core/accounts?perPage=2&page=1',
    prev: 'https://sandbox.example/core/accounts?perPage=2&page=2'
  })
  const btc = await call('GET', '/core/accounts?asset=BTC,GBP&perPage=3')
  t.same(btc.json().accounts.map((a: { id: string }) => a.id), [ids[4], ids[3], ids[2]])
  t.equal(btc.json().pagination.next, 'https://sandbox.example/core/accounts?asset=BTC%2CGBP&perPage=3&page=2')
  for (const query of ['perPage=0', 'perPage=101', 'page=0', 'page=x']) {
    t.equal((await call('GET', `/core/accounts?${query}`)).statusCode, 400, query)
  }
  const other = await makeUser(app)
  t.same((await call('GET', '/core/accounts', { user: other.id })).json().accounts, [], 'another user sees none of them')
})

t.test('default accounts: the oldest account of each asset that is not archived; made on first need', async t => {
  const { app, userId, call } = await setup(t)
  const btc1 = (await call('POST', '/core/accounts', { payload: { label: 'First', asset: 'BTC' } })).json().account
  app.clock.advance(1)
  const btc2 = (await call('POST', '/core/accounts', { payload: { label: 'Second', asset: 'BTC' } })).json().account
  const eth = (await call('POST', '/core/accounts', { payload: { label: 'Ether', asset: 'ETH' } })).json().account
  const defaults = await call('GET', '/core/accounts/defaults')
  t.same(defaults.json().accounts.map((a: { id: string }) => a.id), [btc1.id, eth.id])
  t.same((await call('GET', '/core/accounts/defaults?asset=ETH')).json().accounts.map((a: { id: string }) => a.id), [eth.id])

  t.equal((await call('DELETE', `/core/accounts/${btc1.id}`)).statusCode, 204)
  t.same((await call('GET', '/core/accounts/defaults?asset=BTC')).json().accounts.map((a: { id: string }) => a.id), [btc2.id], 'the next oldest takes over')

  const organizationId = (await app.storage.users.get('00000000-0000-4000-8000-000000000001', userId))!.organizationId
  const made = await defaultAccount(app, organizationId, userId, 'GBP')
  t.equal(made?.label, 'British Pound')
  t.equal((await defaultAccount(app, organizationId, userId, 'GBP'))?.id, made?.id, 'made once')
  t.same((await call('GET', '/core/accounts/defaults?asset=GBP')).json().accounts.map((a: { id: string }) => a.id), [made?.id])
})

t.test('get and update answer only the acting user\'s accounts', async t => {
  const { app, call } = await setup(t)
  const account = (await call('POST', '/core/accounts', { payload: { label: 'Before', asset: 'USD' } })).json().account
  t.same((await call('GET', `/core/accounts/${account.id}`)).json().account, account)
  app.clock.advance(60)
  const updated = await call('PATCH', `/core/accounts/${account.id}`, { payload: { label: 'After' } })
  t.equal(updated.statusCode, 200)
  t.same(updated.json().account, { ...account, label: 'After', updatedAt: app.clock.iso() })
  for (const payload of [{}, { label: '' }, { label: 'x', other: 1 }]) {
    t.equal((await call('PATCH', `/core/accounts/${account.id}`, { payload })).statusCode, 400, JSON.stringify(payload))
  }
  const other = await makeUser(app)
  for (const [method, payload] of [['GET', undefined], ['PATCH', { label: 'Mine' }], ['DELETE', undefined]] as const) {
    const res = await call(method, `/core/accounts/${account.id}`, { payload, user: other.id })
    t.equal(res.statusCode, 404, `${method} as another user`)
    t.same(res.json(), { code: 'entity_not_found', message: 'The account cannot be found', details: { entity: 'account' } })
  }
  t.equal((await call('GET', `/core/accounts/${randomUUID()}`)).statusCode, 404)
  t.equal((await call('GET', '/core/accounts/not-a-uuid')).statusCode, 400)
})

t.test('archive: refused with a balance or pending transactions, else hidden from lists; funds unarchive it', async t => {
  const { app, call } = await setup(t)
  const account = (await call('POST', '/core/accounts', { payload: { label: 'To archive', asset: 'BTC' } })).json().account
  // What area 5's ledger will answer, stood in for here.
  const real = app.areas.accountLedger.bind(app.areas)
  const realPending = app.areas.accountPending.bind(app.areas)
  app.areas.accountLedger = async () => ({ balance: { total: '0.00000001', available: '0' } })
  app.areas.accountPending = async () => true
  const withBalance = await call('DELETE', `/core/accounts/${account.id}`)
  t.equal(withBalance.statusCode, 409)
  t.same(withBalance.json(), { code: 'account_has_balance', message: 'The account has balance and cannot be archived' })
  app.areas.accountLedger = async () => ({ balance: { total: '0', available: '0' } })
  const pending = await call('DELETE', `/core/accounts/${account.id}`)
  t.equal(pending.statusCode, 409)
  t.same(pending.json(), { code: 'account_has_pending_transactions', message: 'The account has pending transactions and cannot be archived' })
  app.areas.accountLedger = real
  app.areas.accountPending = realPending

  const archived = await call('DELETE', `/core/accounts/${account.id}`)
  t.equal(archived.statusCode, 204)
  t.equal(archived.body, '')
  t.same((await call('GET', '/core/accounts')).json().accounts, [], 'hidden from the list')
  t.same((await call('GET', '/core/accounts/defaults')).json().accounts, [], 'and from the defaults')
  t.equal((await call('GET', `/core/accounts/${account.id}`)).statusCode, 200, 'still answered by id')
  t.equal((await call('DELETE', `/core/accounts/${account.id}`)).statusCode, 204, 'archiving again changes nothing')

  const unarchived = await groupCommit(app.storage.db)(() => unarchiveOnFunds(app, account.id))
  t.equal(unarchived, true)
  t.equal((await call('GET', '/core/accounts')).json().accounts.length, 1, 'back in the list once funds arrive')
})

t.test('POST /_sandbox/entities/accounts makes a real account of this area', async t => {
  const { app, userId, call } = await setup(t)
  const res = await app.inject({ method: 'POST', url: '/_sandbox/entities/accounts', payload: { userId } })
  t.equal(res.statusCode, 201)
  const account = (await call('GET', `/core/accounts/${res.json().id}`)).json().account
  t.match(account, { id: res.json().id, ownerId: userId, asset: 'USD', label: 'Sandbox account' })
  t.ok(await app.storage.store(accountsStore).find(res.json().id))
  const btc = await app.inject({ method: 'POST', url: '/_sandbox/entities/accounts', payload: { userId, asset: 'BTC' } })
  t.equal(btc.statusCode, 201)
  t.equal((await call('GET', `/core/accounts/${btc.json().id}`)).json().account.asset, 'BTC')
  const unknown = await app.inject({ method: 'POST', url: '/_sandbox/entities/accounts', payload: { userId, asset: 'NOPE' } })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { code: 'entity_not_found', message: 'The asset cannot be found', details: { entity: 'asset' } })
})

t.test('core.account.created, .archived and .unarchived reach a real receiver in order', async t => {
  const { app, call } = await setup(t)
  const receiver = await startReceiver(t)
  await addEndpoint(app, await managementLink(app), { url: receiver.url })
  const account = (await call('POST', '/core/accounts', { payload: { label: 'Hooked', asset: 'ETH' } })).json().account
  await call('DELETE', `/core/accounts/${account.id}`)
  await groupCommit(app.storage.db)(() => unarchiveOnFunds(app, account.id))
  const deliveries = await receiver.waitFor(3)
  const bodies = deliveries.map(d => JSON.parse(d.body) as { type: string, data: { account: { id: string } } })
  t.same(bodies.map(b => b.type), ['core.account.created', 'core.account.archived', 'core.account.unarchived'])
  t.same(bodies[0].data.account, account)
  t.ok(bodies.every(b => b.data.account.id === account.id))
})
