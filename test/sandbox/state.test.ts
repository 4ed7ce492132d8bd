import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { accessToken, bearer, build, DEMO_ID, DEMO_ORG, DEMO_SECRET, makeClient, makeUser } from '../helpers.js'
import { ACCOUNT, ORG, goodFixture } from './fixture-data.js'
import { filesStore } from '../../src/files/store.js'
import { ledgerStore } from '../../src/transactions/store.js'
import { accountsStore } from '../../src/accounts/store.js'
import { externalAccountsStore } from '../../src/external-accounts/store.js'

const KEPT = new Set(['settings', 'migrations'])

function tables (app: FastifyInstance): string[] {
  return (app.storage.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>)
    .map(r => r.name).filter(n => !KEPT.has(n))
}
const count = (app: FastifyInstance, table: string, organizationId?: string): number =>
  (app.storage.db.prepare(`SELECT COUNT(*) AS n FROM "${table}"${organizationId === undefined ? '' : ' WHERE organization_id = ?'}`)
    .get(...(organizationId === undefined ? [] : [organizationId])) as { n: number }).n

const withProbe = {
  plugins: [async (p: FastifyInstance) => {
    p.get('/probe/protected', { config: { auth: { scopes: [], subjects: ['client', 'user'] } } }, async () => ({ ok: true }))
  }]
}

t.test('every table of organization data is reached from its organization, so a reset of one organization leaves nothing behind', async t => {
  const app = await build(t)
  const reached = new Set(['organizations'])
  // Fixed point: a table is reached if it has organization_id, or cascades from a reached table.
  let changed = true
  while (changed) {
    changed = false
    for (const table of tables(app)) {
      if (reached.has(table)) continue
      const columns = app.storage.db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>
      const keys = app.storage.db.prepare(`PRAGMA foreign_key_list("${table}")`).all() as Array<{ table: string, on_delete: string }>
      if (columns.some(c => c.name === 'organization_id') || keys.some(k => reached.has(k.table) && k.on_delete === 'CASCADE')) {
        reached.add(table)
        changed = true
      }
    }
  }
  // Sandbox-wide state: seeds, and the catalogue (its fixture entries and pinned prices).
  const global = new Set(['sandbox_seeds', 'catalogue_entries', 'catalogue_pins', 'catalogue_version', 'cooldown_scan'])
  for (const table of tables(app)) {
    if (!global.has(table)) t.ok(reached.has(table), `${table} is reached from organizations`)
  }
  for (const table of tables(app)) {
    const keys = app.storage.db.prepare(`PRAGMA foreign_key_list("${table}")`).all() as Array<{ table: string, on_delete: string }>
    for (const k of keys.filter(k => k.table === 'organizations')) t.equal(k.on_delete, 'CASCADE', `${table} cascades from organizations`)
  }
})

t.test('a full reset wipes every table but settings, re-creates the demo client and revokes earlier tokens', async t => {
  const app = await build(t, {}, withProbe)
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: goodFixture })).statusCode, 201)
  await makeClient(app)
  const demoToken = await accessToken(app)
  const key = await app.storage.settings.get('jwt.hs256.key')
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: true } })

  const res = await app.inject({ method: 'POST', url: '/_sandbox/reset' })
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')

  for (const table of tables(app)) {
    const expected = table === 'organizations' || table === 'clients' ? 1 : 0
    t.equal(count(app, table), expected, `${table} holds ${expected}`)
  }
  t.equal(await app.storage.settings.get('jwt.hs256.key'), key, 'the signing key is kept')
  t.match(await app.clients.get(DEMO_ID), { organizationId: DEMO_ORG, refreshTokens: true })
  const revoked = await app.inject({ method: 'GET', url: '/probe/protected', headers: bearer(demoToken) })
  t.equal(revoked.statusCode, 401)
  t.equal(revoked.json().code, 'token_revoked')
  const fresh = await accessToken(app, { clientId: DEMO_ID, secret: DEMO_SECRET })
  t.equal((await app.inject({ method: 'GET', url: '/probe/protected', headers: bearer(fresh) })).statusCode, 200)
  t.equal(app.clock.frozen, false, 'the clock is back to real time')
})

t.test('a reset of one organization removes it and everything in it, and nothing else', async t => {
  const app = await build(t)
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: goodFixture })).statusCode, 201)
  const token = await accessToken(app, { clientId: 'acme-ci', secret: 'acme-ci-secret' })
  t.ok(token)
  t.ok(count(app, 'refresh_tokens', ORG) > 0, 'a refresh token is stored for the organization')
  const other = await makeClient(app)
  await makeUser(app, other.organizationId)
  const demoUsers = count(app, 'users', DEMO_ORG)

  const res = await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { organizationId: ORG } })
  t.equal(res.statusCode, 204)
  for (const table of tables(app)) {
    const columns = app.storage.db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>
    if (columns.some(c => c.name === 'organization_id')) t.equal(count(app, table, ORG), 0, `${table} has nothing of the organization`)
  }
  t.notOk(await app.storage.organizations.get(ORG))
  t.notOk(await app.clients.get('acme-ci'), 'the client cache forgot it too')
  t.ok(await app.clients.get(other.clientId), 'another organization is untouched')
  t.equal(count(app, 'users', other.organizationId), 1)
  t.equal(count(app, 'users', DEMO_ORG), demoUsers)
  t.ok(await app.clients.get(DEMO_ID))

  const demo = await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { organizationId: DEMO_ORG } })
  t.equal(demo.statusCode, 204)
  t.equal(count(app, 'users', DEMO_ORG), 0)
  t.ok(await app.clients.get(DEMO_ID), 'resetting the demo organization brings the demo client back')
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { organizationId: randomUUID() } })).statusCode, 204)
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { organizationId: 'nope' } })).statusCode, 400)
})

t.test('POST /_sandbox/entities/{entity} creates an entity owned by a user, in the user\'s organization', async t => {
  const app = await build(t)
  const org = randomUUID()
  const user = await makeUser(app, org)
  for (const entity of ['accounts', 'files', 'external-accounts', 'transactions']) {
    const res = await app.inject({ method: 'POST', url: `/_sandbox/entities/${entity}`, payload: { userId: user.id } })
    t.equal(res.statusCode, 201, entity)
    t.match(res.json(), { type: entity, userId: user.id, organizationId: org, createdAt: app.clock.iso() })
    // Each is a real record of the area that holds it.
    const id = res.json().id as string
    const stored = entity === 'files'
      ? await app.storage.store(filesStore).get(org, id)
      : entity === 'accounts'
        ? await app.storage.store(accountsStore).get(org, id)
        : entity === 'external-accounts' ? await app.storage.store(externalAccountsStore).get(org, id) : await app.storage.store(ledgerStore).get(org, id)
    t.match(stored, { userId: user.id })
  }
  const id = randomUUID()
  const given = await app.inject({ method: 'POST', url: '/_sandbox/entities/accounts', payload: { userId: user.id, id } })
  t.equal(given.json().id, id)
  const again = await app.inject({ method: 'POST', url: '/_sandbox/entities/files', payload: { userId: user.id, id } })
  t.equal(again.statusCode, 409)
  t.equal(again.json().code, 'entity_already_exists')
  const unknown = await app.inject({ method: 'POST', url: '/_sandbox/entities/accounts', payload: { userId: randomUUID() } })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json().details, { entity: 'user' })
  const badType = await app.inject({ method: 'POST', url: '/_sandbox/entities/planets', payload: { userId: user.id } })
  t.equal(badType.statusCode, 400)
  t.equal(badType.json().details.context, 'params')
  const badBody = await app.inject({ method: 'POST', url: '/_sandbox/entities/accounts', payload: { user: user.id } })
  t.equal(badBody.statusCode, 400)
})

t.test('entities from fixtures and the control API carry metadata through the metadata API', async t => {
  const app = await build(t)
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: goodFixture })).statusCode, 201)
  const token = await accessToken(app, { clientId: 'alice-app', secret: 'alice-app-secret' })
  const res = await app.inject({ method: 'GET', url: `/core/accounts/${ACCOUNT}/metadata`, headers: bearer(token) })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { metadata: { label: 'Main' } })
})

t.test('GET /_sandbox/organizations lists organizations', async t => {
  const app = await build(t)
  const { organizationId } = await makeClient(app)
  const res = await app.inject({ method: 'GET', url: '/_sandbox/organizations' })
  t.equal(res.statusCode, 200)
  t.same(res.json().organizations.map((o: { id: string }) => o.id).sort(), [DEMO_ORG, organizationId].sort())
})
