import t from 'tap'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { accessToken, basic, bearer, build, DEMO_ORG, fileDatabasePath, makeUser, onBehalfOf, tokenRequest } from '../helpers.js'
import { ACCOUNT, ALICE, BOB, ORG, goodFixture } from './fixture-data.js'
import { accountsStore } from '../../src/accounts/store.js'

const load = (app: FastifyInstance, payload: unknown) => app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: payload as object })
const count = async (app: FastifyInstance, table: string): Promise<number | undefined> => await app.storage.db.prepare<[], number>(`SELECT COUNT(*) AS n FROM ${table}`).pluck().get()

async function snapshot (app: FastifyInstance): Promise<Record<string, number | undefined>> {
  const tables = ['organizations', 'users', 'clients', 'entities', 'metadata', 'events']
  return Object.fromEntries(await Promise.all(tables.map(async table => [table, await count(app, table)] as const)))
}

t.test('a fixture loads everything at once and answers what it created', async t => {
  const app = await build(t)
  const res = await load(app, goodFixture)
  t.equal(res.statusCode, 201)
  const summary = res.json()
  t.same(summary.organizations, [ORG])
  t.same(summary.users, [{ id: ALICE, organizationId: ORG, email: 'alice@example.com' }, { id: BOB, organizationId: DEMO_ORG, email: 'bob@example.com' }])
  t.same(summary.clients, [{ clientId: 'acme-ci', organizationId: ORG }, { clientId: 'alice-app', organizationId: ORG }])
  t.equal(summary.entities.length, 2)
  t.same(summary.entities[0], { id: ACCOUNT, type: 'accounts', userId: ALICE, organizationId: ORG })
  t.match(summary.entities[1], { type: 'files', userId: BOB, organizationId: DEMO_ORG })
  t.same(summary.metadata, [{ entity: 'users', entityId: ALICE }, { entity: 'accounts', entityId: ACCOUNT }])

  t.equal((await app.storage.organizations.get(ORG))?.name, 'Acme')
  const alice = await app.storage.users.get(ORG, ALICE)
  t.match(alice?.record, { id: ALICE, type: 'individual', email: 'alice@example.com', primaryCitizenship: 'PT', address: { country: 'PT', subdivision: 'PT-11' }, createdAt: app.clock.iso(), updatedAt: app.clock.iso() })
  t.match((await app.storage.users.get(DEMO_ORG, BOB))?.record, { primaryCitizenship: 'US', address: { country: 'US' } })
  // Accounts are the accounts area's records, made by the fixture as real accounts.
  t.match(await app.storage.store(accountsStore).get(ORG, ACCOUNT), { userId: ALICE, organizationId: ORG })
  const row = (await app.storage.db.prepare<[string, string], { body: string, etag: string, org: string }>('SELECT body, etag, organization_id AS org FROM metadata WHERE entity_type = ? AND entity_id = ?').get('users', ALICE))!
  t.same(JSON.parse(row.body), { tier: 'gold' })
  t.match(row.etag, /^"[0-9a-f]{64}"$/)
  t.equal(row.org, ORG)
  t.equal(await count(app, 'events'), 0, 'a fixture records no events')

  const ci = await tokenRequest(app, { grant_type: 'client_credentials' }, basic('acme-ci', 'acme-ci-secret'))
  t.equal(ci.statusCode, 200)
  t.equal(ci.headers['x-service-organization-id'], ORG)
  t.ok(ci.json().refresh_token)
  const aliceApp = await accessToken(app, { clientId: 'alice-app', secret: 'alice-app-secret' })
  t.ok(aliceApp)
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/clients/alice-app' })).json().userId, ALICE)
})

t.test('fixture metadata is what the metadata API serves', async t => {
  const app = await build(t)
  t.equal((await load(app, goodFixture)).statusCode, 201)
  const token = await accessToken(app, { clientId: 'acme-ci', secret: 'acme-ci-secret' })
  const res = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(token), ...onBehalfOf(ALICE) } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { metadata: { tier: 'gold' } })
  t.match(res.headers.etag, /^"[0-9a-f]{64}"$/)
})

t.test('a bad fixture is refused with every bad path, and nothing is loaded', async t => {
  const app = await build(t)
  const taken = await makeUser(app, DEMO_ORG, 'taken@example.com')
  const before = await snapshot(app)
  const unknownOrg = randomUUID()
  const bad = {
    organizations: [{ id: ORG }, { id: ORG }],
    users: [
      { id: ALICE, organizationId: ORG, email: 'alice@example.com' },
      { organizationId: unknownOrg, email: 'nobody@example.com' },
      { email: 'TAKEN@example.com' },
      { id: taken.id, email: 'other@example.com' },
      { organizationId: ORG, email: 'Alice@Example.com' }
    ],
    clients: [
      { clientId: 'sandbox-demo-client', clientSecret: 'long-enough', scopes: [] },
      { clientId: 'c2', clientSecret: 'long-enough', organizationId: unknownOrg, scopes: ['core.nope:read'], userId: ALICE }
    ],
    entities: [{ type: 'accounts', userId: randomUUID() }, { id: ACCOUNT, type: 'files', userId: ALICE, organizationId: DEMO_ORG }],
    metadata: [
      { entity: 'accounts', entityId: randomUUID(), metadata: { a: 1 } },
      { entity: 'users', entityId: ALICE, metadata: { big: 'x'.repeat(1020) } },
      { entity: 'users', entityId: ALICE, organizationId: DEMO_ORG, metadata: {} }
    ]
  }
  const res = await load(app, bad)
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'request_invalid')
  t.equal(res.json().details.context, 'body')
  const violations = res.json().details.violations as Array<{ property: string, rule: string }>
  t.same(violations.map(v => `${v.property} ${v.rule}`), [
    'organizations.1.id unique',
    'users.1.organizationId exists',
    'users.2.email unique',
    'users.3.id unique',
    'users.4.email unique',
    'clients.0.clientId unique',
    'clients.1.organizationId exists',
    'clients.1.scopes.0 scope',
    'clients.1.userId exists',
    'entities.0.userId exists',
    'entities.1.organizationId match',
    'metadata.0.entityId exists',
    'metadata.1.metadata maxLength',
    'metadata.2.entityId unique',
    'metadata.2.organizationId match'
  ])
  t.same(await snapshot(app), before, 'nothing was loaded')
  t.notOk(await app.storage.organizations.get(ORG))
  t.notOk(await app.clients.get('c2'))
})

t.test('schema violations come first, with their paths; nothing is loaded', async t => {
  const app = await build(t)
  const before = await snapshot(app)
  const res = await load(app, {
    organizations: [{ id: ORG }],
    users: [{ email: 'ok@example.com' }, { email: 'not-an-email', primaryCitizenship: 'ZZ' }],
    clients: [{ clientId: 'x', scopes: [] }],
    entities: [{ type: 'planets', userId: ALICE }],
    surprise: true
  })
  t.equal(res.statusCode, 400)
  const props = (res.json().details.violations as Array<{ property: string, rule: string }>).map(v => `${v.property} ${v.rule}`)
  for (const expected of ['surprise additionalProperties', 'users.1.email format', 'users.1.primaryCitizenship format', 'clients.0.clientSecret required']) {
    t.ok(props.includes(expected), expected)
  }
  t.ok(props.some(p => p.startsWith('entities.0.type')), 'entities.0.type')
  t.same(await snapshot(app), before)
  t.equal((await load(app, [])).statusCode, 400)
})

t.test('metadata of 1024 characters loads; 1025 does not', async t => {
  const app = await build(t)
  const user = await makeUser(app)
  const sized = (n: number) => ({ v: 'é'.repeat(n - 8) }) // {"v":""} is 8 characters
  t.equal(JSON.stringify(sized(1024)).length, 1024)
  const over = await load(app, { metadata: [{ entity: 'users', entityId: user.id, metadata: sized(1025) }] })
  t.equal(over.statusCode, 400)
  t.same(over.json().details.violations, [{ property: 'metadata.0.metadata', rule: 'maxLength', ruleParams: { limit: 1024, unit: 'characters' } }])
  const ok = await load(app, { metadata: [{ entity: 'users', entityId: user.id, metadata: sized(1024) }] })
  t.equal(ok.statusCode, 201)
})

t.test('SEED_FILE loads at start, once per database; a full reset brings it back', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'seed-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'seed.json')
  writeFileSync(file, JSON.stringify(goodFixture))
  const app = await build(t, { seedFile: file })
  t.ok(await app.storage.users.get(ORG, ALICE), 'seeded')
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic('acme-ci', 'acme-ci-secret'))).statusCode, 200)

  await app.inject({ method: 'POST', url: '/_sandbox/clients', payload: { clientId: 'extra', scopes: [] } })
  const reset = await app.inject({ method: 'POST', url: '/_sandbox/reset' })
  t.equal(reset.statusCode, 204)
  t.ok(await app.storage.users.get(ORG, ALICE), 'the seed is back after a reset')
  t.ok(await app.clients.get('acme-ci'))
  t.notOk(await app.clients.get('extra'), 'what came after the seed is gone')

  // A restart on the same database does not load it again (it would conflict with itself).
  const db = fileDatabasePath(t)
  const first = await build(t, { seedFile: file, databasePath: db })
  t.ok(await first.storage.users.get(ORG, ALICE))
  await first.close()
  const second = await build(t, { seedFile: file, databasePath: db })
  t.equal((await second.storage.users.recent(ORG, 1000)).length, 1)
})

t.test('a bad SEED_FILE stops the start with a message naming each bad path', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'seed-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'seed.json')
  writeFileSync(file, JSON.stringify({ users: [{ email: 'a@example.com' }, { email: 'nope' }], clients: [{ clientId: 'c', clientSecret: 'long-enough', scopes: ['bad'] }] }))
  await t.rejects(build(t, { seedFile: file }), { name: 'SeedError', message: /users\.1\.email: format/ })
  writeFileSync(file, JSON.stringify({ clients: [{ clientId: 'c', clientSecret: 'long-enough', scopes: ['bad'] }] }))
  await t.rejects(build(t, { seedFile: file }), { message: /clients\.0\.scopes\.0: scope/ })
  writeFileSync(file, '{ not json')
  await t.rejects(build(t, { seedFile: file }), { message: /is not JSON/ })
  await t.rejects(build(t, { seedFile: join(dir, 'missing.json') }), { message: /cannot be read/ })
})
