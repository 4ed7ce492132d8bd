// The storage answers the acting user's existence and metadata revisions from memory once read:
// nothing it remembers outlives a write, whichever way the write comes (the API, a group commit
// still queued, a fixture, a reset).
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { accessToken, bearer, build, DEMO_ORG, fileDatabasePath, makeUser, onBehalfOf, openTestStorage, writeLockHeldElsewhere } from '../helpers.js'
import { ALICE, goodFixture } from '../sandbox/fixture-data.js'
import type { Storage } from '../../src/storage/index.js'
import type { MetadataRevision } from '../../src/storage/metadata.js'

const SCOPES = 'core.users.metadata:read core.users.metadata:write core.users:act-on-behalf-of'

t.test('a read after a write through the API answers the new revision, never the remembered one', async t => {
  const app = await build(t)
  const token = await accessToken(app, { scope: SCOPES })
  const user = await makeUser(app)
  const headers = { ...bearer(token), ...onBehalfOf(user.id) }
  const get = () => app.inject({ method: 'GET', url: '/core/users/me/metadata', headers })

  t.equal((await app.inject({ method: 'PUT', url: '/core/users/me/metadata', headers, payload: { a: 1 } })).statusCode, 201)
  const first = await get()
  t.same(first.json(), { metadata: { a: 1 } })
  t.same((await get()).json(), { metadata: { a: 1 } }, 'read again, from memory')

  const put = await app.inject({ method: 'PUT', url: '/core/users/me/metadata', headers, payload: { a: 2 } })
  t.equal(put.statusCode, 200)
  const afterPut = await get()
  t.same(afterPut.json(), { metadata: { a: 2 } })
  t.equal(afterPut.headers.etag, put.headers.etag)
  t.equal((await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...headers, 'if-none-match': first.headers.etag } })).statusCode, 200, 'the old ETag no longer matches')

  const patch = await app.inject({ method: 'PATCH', url: '/core/users/me/metadata', headers: { ...headers, 'content-type': 'application/json-patch+json' }, payload: JSON.stringify([{ op: 'add', path: '/b', value: true }]) })
  t.equal(patch.statusCode, 200)
  t.same((await get()).json(), { metadata: { a: 2, b: true } })

  t.equal((await app.inject({ method: 'DELETE', url: '/core/users/me/metadata', headers })).statusCode, 204)
  const gone = await get()
  t.equal(gone.statusCode, 404)
  t.match(gone.json(), { code: 'entity_not_found', details: { entity: 'metadata' } })
})

t.test('a fixture replacing remembered metadata is what the next read answers', async t => {
  const app = await build(t)
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: goodFixture })).statusCode, 201)
  const token = await accessToken(app, { clientId: 'acme-ci', secret: 'acme-ci-secret' })
  const headers = { ...bearer(token), ...onBehalfOf(ALICE) }
  t.same((await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers })).json(), { metadata: { tier: 'gold' } })

  const again = { metadata: [{ entity: 'users', entityId: ALICE, metadata: { tier: 'platinum' } }] }
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: again })).statusCode, 201)
  t.same((await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers })).json(), { metadata: { tier: 'platinum' } })
})

t.test('after a reset, a remembered user is gone for the client created again', async t => {
  const app = await build(t)
  const user = await makeUser(app)
  const before = await accessToken(app, { scope: SCOPES })
  t.equal((await app.inject({ method: 'PUT', url: '/core/users/me/metadata', headers: { ...bearer(before), ...onBehalfOf(user.id) }, payload: { a: 1 } })).statusCode, 201)
  t.equal((await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(before), ...onBehalfOf(user.id) } })).statusCode, 200)

  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: { organizationId: DEMO_ORG } })).statusCode, 204)
  const after = await accessToken(app, { scope: SCOPES })
  const res = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(after), ...onBehalfOf(user.id) } })
  t.equal(res.statusCode, 404)
  t.match(res.json(), { code: 'entity_not_found', details: { entity: 'user' } })
})

t.test('after a restart the first read comes from the database and the next from memory: both answer alike', async t => {
  const overrides = { databasePath: fileDatabasePath(t) }
  const first = await build(t, overrides)
  const token = await accessToken(first, { scope: SCOPES })
  const user = await makeUser(first)
  const bare = await makeUser(first)
  const headers = { ...bearer(token), ...onBehalfOf(user.id) }
  const put = await first.inject({ method: 'PUT', url: '/core/users/me/metadata', headers, payload: { tier: 'gold' } })
  t.equal(put.statusCode, 201)
  const etag = put.headers.etag as string
  await first.close()

  // Each check on a fresh start: its first request reads the revision, its second finds it in memory.
  const checks: Record<string, (t: Test, get: Get) => Promise<void>> = {
    200: async (t, get) => {
      const byMe = await get('/core/users/me/metadata')
      t.equal(byMe.statusCode, 200)
      t.equal(byMe.headers.etag, etag)
      t.equal(byMe.headers['content-type'], 'application/json; charset=utf-8')
      t.same(byMe.json(), { metadata: { tier: 'gold' } })
      t.same((await get(`/core/users/${user.id}/metadata`)).json(), { metadata: { tier: 'gold' } }, 'by the user\'s own id')
    },
    304: async (t, get) => {
      const notModified = await get('/core/users/me/metadata', { 'if-none-match': etag })
      t.equal(notModified.statusCode, 304)
      t.equal(notModified.headers.etag, etag)
      t.equal(notModified.body, '')
      t.equal((await get('/core/users/me/metadata', { 'if-none-match': '"other"' })).statusCode, 200)
    },
    412: async (t, get) => {
      const failed = await get('/core/users/me/metadata', { 'if-match': '"other"' })
      t.equal(failed.statusCode, 412)
      t.equal(failed.json().code, 'precondition_failed')
    },
    404: async (t, get) => {
      const other = await get(`/core/users/${randomUUID()}/metadata`)
      t.equal(other.statusCode, 404, 'another user\'s id')
      t.match(other.json(), { code: 'entity_not_found', details: { entity: 'user' } })
      const none = await get('/core/users/me/metadata', {}, bare.id)
      t.equal(none.statusCode, 404, 'no metadata')
      t.match(none.json(), { code: 'entity_not_found', details: { entity: 'metadata' } })
    }
  }
  for (const [name, check] of Object.entries(checks)) {
    const app = await build(t, overrides)
    const get: Get = (url, extra = {}, as = user.id) =>
      app.inject({ method: 'GET', url, headers: { ...bearer(token), ...onBehalfOf(as), ...extra } })
    await t.test(`${name}, read`, async t => check(t, get))
    await t.test(`${name}, in memory`, async t => check(t, get))
    await app.close()
  }
})

type Get = (url: string, extra?: Record<string, string>, as?: string) => Promise<LightMyRequestResponse>

/** A store on a database of its own with one organization; closed when the test ends. */
async function storeWithOrganization (t: { teardown: (fn: () => unknown) => void }): Promise<{ storage: Storage, org: string }> {
  const storage = await openTestStorage(t)
  t.teardown(() => storage.close())
  const org = '11111111-1111-4111-8111-111111111111'
  await storage.organizations.ensure(org, 'Org', '2030-01-01T00:00:00.000Z')
  return { storage, org }
}

const rev = (a: number): MetadataRevision => ({ value: { a }, json: JSON.stringify({ a }), etag: `"${a}"`, updatedAt: '2030-01-01T00:00:00.000Z' })

t.test('a read while a write is queued answers what is committed, and the write then shows', async t => {
  const path = fileDatabasePath(t)
  const storage = await openTestStorage(t, path)
  t.teardown(() => storage.close())
  const org = '11111111-1111-4111-8111-111111111111'
  await storage.organizations.ensure(org, 'Org', '2030-01-01T00:00:00.000Z')
  const ref = { organizationId: org, entity: 'accounts', entityId: 'e1' }
  await storage.metadata.replaceIf(ref, null, rev(1))

  const release = await writeLockHeldElsewhere(t, path)
  const write = storage.metadata.replaceIf(ref, '"1"', rev(2))
  t.equal((await storage.metadata.get(ref))?.etag, '"1"', 'queued, not committed: the committed revision')
  release()
  t.same(await write, { written: true, created: false })
  t.equal((await storage.metadata.get(ref))?.etag, '"2"')

  const stale = await storage.metadata.replaceIf(ref, '"1"', rev(3))
  t.equal(stale.written, false)
  t.equal((await storage.metadata.get(ref))?.etag, '"2"', 'a refused write leaves the current revision')

  const releaseRemoval = await writeLockHeldElsewhere(t, path)
  const removal = storage.metadata.deleteIf(ref, '"2"')
  t.equal((await storage.metadata.get(ref))?.etag, '"2"', 'a queued removal: the committed revision')
  releaseRemoval()
  t.same(await removal, { deleted: true })
  t.equal(await storage.metadata.get(ref), undefined)
})

t.test('a write that fails inside its group commit leaves nothing remembered', async t => {
  const { storage, org } = await storeWithOrganization(t)
  const ok = { organizationId: org, entity: 'accounts', entityId: 'e1' }
  // No such organization: the insert breaks a foreign key, in the same group as a write that holds.
  const orphan = { organizationId: '99999999-9999-4999-8999-999999999999', entity: 'accounts', entityId: 'e2' }
  const [held, failed] = await Promise.allSettled([storage.metadata.replaceIf(ok, null, rev(1)), storage.metadata.replaceIf(orphan, null, rev(1))])
  t.same(held, { status: 'fulfilled', value: { written: true, created: true } })
  t.equal(failed.status, 'rejected')
  t.equal((await storage.metadata.get(ok))?.etag, '"1"')
  t.equal(await storage.metadata.get(orphan), undefined)
})
