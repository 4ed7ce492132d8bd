// The metadata store's compare-and-swap: a write lands only on the revision it expects.
import t from 'tap'
import { openTestStorage } from '../helpers.js'
import type { MetadataRevision } from '../../src/storage/metadata.js'

const ORG = '11111111-1111-4111-8111-111111111111'
const rev = (value: Record<string, unknown>, tag: string): MetadataRevision => ({ value, json: JSON.stringify(value), etag: tag, updatedAt: '2030-01-01T00:00:00.000Z' })

t.test('replaceIf and deleteIf write only over the expected revision', async t => {
  const storage = await openTestStorage(t)
  t.teardown(() => storage.close())
  await storage.organizations.ensure(ORG, 'Org', '2030-01-01T00:00:00.000Z')
  const ref = { organizationId: ORG, entity: 'users', entityId: 'u1' }

  t.same(await storage.metadata.replaceIf(ref, '"x"', rev({ a: 1 }, '"1"')), { written: false, current: undefined }, 'nothing to replace')
  t.same(await storage.metadata.replaceIf(ref, null, rev({ a: 1 }, '"1"')), { written: true, created: true })
  t.same(await storage.metadata.replaceIf(ref, null, rev({ a: 2 }, '"2"')), { written: false, current: rev({ a: 1 }, '"1"') }, 'create-only fails when one exists')
  t.same(await storage.metadata.replaceIf(ref, '"1"', rev({ a: 2 }, '"2"')), { written: true, created: false })
  t.same(await storage.metadata.replaceIf(ref, '"1"', rev({ a: 3 }, '"3"')), { written: false, current: rev({ a: 2 }, '"2"') }, 'a stale tag loses')
  t.same(await storage.metadata.deleteIf(ref, '"1"'), { deleted: false, current: rev({ a: 2 }, '"2"') })
  t.same(await storage.metadata.get(ref), rev({ a: 2 }, '"2"'))
  t.same(await storage.metadata.deleteIf(ref, '"2"'), { deleted: true })
  t.equal(await storage.metadata.get(ref), undefined)
  t.same(await storage.metadata.deleteIf(ref, '"2"'), { deleted: false, current: undefined })
})

t.test('metadata is per organization and per entity type', async t => {
  const storage = await openTestStorage(t)
  t.teardown(() => storage.close())
  await storage.organizations.ensure(ORG, 'Org', '2030-01-01T00:00:00.000Z')
  await storage.metadata.replaceIf({ organizationId: ORG, entity: 'accounts', entityId: 'e1' }, null, rev({ a: 1 }, '"1"'))
  t.equal(await storage.metadata.get({ organizationId: ORG, entity: 'files', entityId: 'e1' }), undefined)
  t.equal(await storage.metadata.get({ organizationId: '22222222-2222-4222-8222-222222222222', entity: 'accounts', entityId: 'e1' }), undefined)
})

t.test('change decides on the stored revision inside the write; a refusal writes nothing and leaves the rest of its group alone', async t => {
  const storage = await openTestStorage(t)
  t.teardown(() => storage.close())
  await storage.organizations.ensure(ORG, 'Org', '2030-01-01T00:00:00.000Z')
  const ref = { organizationId: ORG, entity: 'users', entityId: 'u1' }
  const other = { organizationId: ORG, entity: 'users', entityId: 'u2' }

  const seen: Array<MetadataRevision | undefined> = []
  t.same(await storage.metadata.change(ref, current => { seen.push(current); return rev({ a: 1 }, '"1"') }), { created: true, revision: rev({ a: 1 }, '"1"') }, 'none stored: created')
  t.same(await storage.metadata.change(ref, current => { seen.push(current); return rev({ a: 2 }, '"2"') }), { created: false, revision: rev({ a: 2 }, '"2"') }, 'replaced')
  t.same(seen, [undefined, rev({ a: 1 }, '"1"')], 'each decision saw what was stored')

  // In one group: a change that writes, one that sees it and refuses, one of another entity. The
  // refusal is its caller's error; the other two are committed.
  const refusal = new Error('refused')
  const [replaced, refused, changed] = await Promise.allSettled([
    storage.metadata.change(ref, () => rev({ a: 3 }, '"3"')),
    storage.metadata.change(ref, current => { if (current?.etag === '"3"') throw refusal; return rev({ a: 9 }, '"9"') }),
    storage.metadata.change(other, () => rev({ b: 1 }, '"b"'))
  ])
  t.same(replaced, { status: 'fulfilled', value: { created: false, revision: rev({ a: 3 }, '"3"') } })
  t.same(refused, { status: 'rejected', reason: refusal }, 'the decision saw the write before it, and its error is the answer')
  t.same(changed, { status: 'fulfilled', value: { created: true, revision: rev({ b: 1 }, '"b"') } })
  t.same(await storage.metadata.get(ref), rev({ a: 3 }, '"3"'))
  t.same(await storage.metadata.get(other), rev({ b: 1 }, '"b"'))

  t.same(await storage.metadata.change(ref, () => null), { created: false, revision: null }, 'null deletes')
  t.equal(await storage.metadata.get(ref), undefined)
  t.same(await storage.metadata.change(ref, () => null), { created: false, revision: null }, 'deleting nothing is no error')
})
