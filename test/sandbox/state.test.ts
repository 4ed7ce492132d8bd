import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { accessToken, bearer, build, DEMO_ID, DEMO_ORG, DEMO_SECRET, makeClient, makeUser } from '../helpers.js'
import { ACCOUNT, ORG, goodFixture } from './fixture-data.js'

// Kept by a reset: the signing key and friends, the migration record, the replicas' shared state,
// the request log (a reset keeps it).
const KEPT = new Set(['settings', 'migrations', 'shared_state', 'sandbox_request_log'])

// The schema as each backend describes it: SQLite's own catalogue, PostgreSQL's (the current schema).
async function tables (app: FastifyInstance): Promise<string[]> {
  const names = await app.storage.db.prepare<[], string>({
    sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    postgres: "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
  }).pluck().all()
  return names.filter(n => !KEPT.has(n))
}
const columns = async (app: FastifyInstance, table: string): Promise<string[]> =>
  await app.storage.db.prepare<[string], string>({
    sqlite: 'SELECT name FROM pragma_table_info(?)',
    postgres: 'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?'
  }).pluck().all(table)
/** The table's foreign keys: the table each refers to, and what a delete there does here. */
const foreignKeys = async (app: FastifyInstance, table: string): Promise<Array<{ table: string, on_delete: string }>> =>
  await app.storage.db.prepare<[string], { table: string, on_delete: string }>({
    sqlite: 'SELECT "table", on_delete FROM pragma_foreign_key_list(?)',
    postgres: `SELECT f.relname AS "table",
        CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' WHEN 'r' THEN 'RESTRICT' ELSE 'NO ACTION' END AS on_delete
      FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid JOIN pg_class f ON f.oid = c.confrelid
      WHERE c.contype = 'f' AND r.relname = ? AND r.relnamespace = CAST(current_schema() AS regnamespace)`
  }).all(table)
const count = async (app: FastifyInstance, table: string, organizationId?: string): Promise<number | undefined> =>
  await app.storage.db.prepare<unknown[], number>(`SELECT COUNT(*) AS n FROM "${table}"${organizationId === undefined ? '' : ' WHERE organization_id = ?'}`)
    .pluck().get(...(organizationId === undefined ? [] : [organizationId]))

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
    for (const table of await tables(app)) {
      if (reached.has(table)) continue
      const keys = await foreignKeys(app, table)
      if ((await columns(app, table)).includes('organization_id') || keys.some(k => reached.has(k.table) && k.on_delete === 'CASCADE')) {
        reached.add(table)
        changed = true
      }
    }
  }
  // Sandbox-wide state: seeds, fault rules, and the catalogue (its fixture entries and pinned prices).
  const global = new Set(['sandbox_seeds', 'sandbox_faults', 'catalogue_entries', 'catalogue_pins', 'catalogue_version', 'cooldown_scan'])
  const all = await tables(app)
  t.ok(all.includes('users') && all.includes('organizations'), 'the tables are listed')
  for (const table of all) {
    if (!global.has(table)) t.ok(reached.has(table), `${table} is reached from organizations`)
  }
  for (const table of all) {
    const keys = await foreignKeys(app, table)
    for (const k of keys.filter(k => k.table === 'organizations')) t.equal(k.on_delete, 'CASCADE', `${table} cascades from organizations`)
  }
})

t.test('a full reset wipes every table but settings and the shared state, re-creates the demo client and revokes earlier tokens', async t => {
  const app = await build(t, {}, withProbe)
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: goodFixture })).statusCode, 201)
  await makeClient(app)
  const demoToken = await accessToken(app)
  const key = await app.storage.settings.get('jwt.hs256.key')
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: true } })

  const res = await app.inject({ method: 'POST', url: '/_sandbox/reset' })
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')

  for (const table of await tables(app)) {
    const expected = table === 'organizations' || table === 'clients' ? 1 : 0
    t.equal(await count(app, table), expected, `${table} holds ${expected}`)
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
  t.ok(((await count(app, 'refresh_tokens', ORG)) ?? 0) > 0, 'a refresh token is stored for the organization')
  const other = await makeClient(app)
  await makeUser(app, other.organizationId)
  const demoUsers = await count(app, 'users', DEMO_ORG)

  const res = await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { organizationId: ORG } })
  t.equal(res.statusCode, 204)
  for (const table of await tables(app)) {
    if ((await columns(app, table)).includes('organization_id')) t.equal(await count(app, table, ORG), 0, `${table} has nothing of the organization`)
  }
  t.notOk(await app.storage.organizations.get(ORG))
  t.notOk(await app.clients.get('acme-ci'), 'the client cache forgot it too')
  t.ok(await app.clients.get(other.clientId), 'another organization is untouched')
  t.equal(await count(app, 'users', other.organizationId), 1)
  t.equal(await count(app, 'users', DEMO_ORG), demoUsers)
  t.ok(await app.clients.get(DEMO_ID))

  const demo = await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { organizationId: DEMO_ORG } })
  t.equal(demo.statusCode, 204)
  t.equal(await count(app, 'users', DEMO_ORG), 0)
  t.ok(await app.clients.get(DEMO_ID), 'resetting the demo organization brings the demo client back')
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { organizationId: randomUUID() } })).statusCode, 204)
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { organizationId: 'nope' } })).statusCode, 400)
})

t.test('POST /_sandbox/entities/{entity} creates an entity owned by a user, in the user\'s organization', async t => {
  const app = await build(t)
  const org = randomUUID()
  const user = await makeUser(app, org)
  const types = app.areas.sandboxEntities()
  t.ok(types.length >= 4, 'every type an area holds')
  for (const { segment: entity, find } of types) {
    const res = await app.inject({ method: 'POST', url: `/_sandbox/entities/${entity}`, payload: { userId: user.id } })
    t.equal(res.statusCode, 201, entity)
    t.match(res.json(), { type: entity, userId: user.id, organizationId: org, createdAt: app.clock.iso() })
    // Each is a real record of the area that holds it, found in that area's store.
    t.match(await find(app, res.json().id as string), { organizationId: org, userId: user.id }, `${entity} is stored by its area`)
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
