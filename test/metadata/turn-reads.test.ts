// Metadata reads asked for in one turn of the event loop are answered together on PostgreSQL
// (src/storage/metadata.ts, turnReads): each read gets its own entity's revision, or none, whatever
// the mix of organizations, entity types, missing and repeated ids in the turn; a read sees a write
// acknowledged before it was asked; a failed statement fails each read it carried. The batching
// itself runs here on both backends (its statement is written for each).
import t, { type Test } from 'tap'
import { backend, openTestStorage } from '../helpers.js'
import { turnReads, type MetadataRef, type MetadataRevision } from '../../src/storage/metadata.js'

const ORGS = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222']
const AT = '2030-01-01T00:00:00.000Z'
const rev = (value: Record<string, unknown>): MetadataRevision => ({ value, json: JSON.stringify(value), etag: `"${JSON.stringify(value).length}-${String(value.n)}"`, updatedAt: AT })

// Two organizations, two entity types, six ids each (an entity's id is its own across
// organizations), of which the odd ones have metadata.
const refs: MetadataRef[] = ORGS.flatMap((organizationId, o) => ['users', 'accounts'].flatMap(entity =>
  Array.from({ length: 6 }, (_, i) => ({ organizationId, entity, entityId: `e${o}-${i}` }))))
const stored = (ref: MetadataRef): boolean => Number(ref.entityId.split('-')[1]) % 2 === 1
const valueOf = (ref: MetadataRef): Record<string, unknown> => ({ org: ref.organizationId.slice(0, 1), entity: ref.entity, n: ref.entityId })

async function filled (t: Test): Promise<Awaited<ReturnType<typeof openTestStorage>>> {
  const storage = await openTestStorage(t)
  t.teardown(async () => { if (storage.db.open) await storage.close() })
  for (const org of ORGS) await storage.organizations.ensure(org, 'Org', AT)
  for (const ref of refs.filter(stored)) t.same(await storage.metadata.replaceIf(ref, null, rev(valueOf(ref))), { written: true, created: true })
  return storage
}

// Every ref twice, in one turn, in an order that mixes the groups.
const asked = [...refs, ...refs.slice().reverse()]

t.test('reads asked in one turn each get their own entity\'s revision, or none', async t => {
  const storage = await filled(t)
  // Through the store: on PostgreSQL, in groups; on SQLite, one by one.
  const got = await Promise.all(asked.map(async ref => await storage.metadata.get(ref)))
  t.same(got.map(r => r?.value), asked.map(ref => stored(ref) ? valueOf(ref) : undefined))
  t.same(got.map(r => r?.etag), asked.map(ref => stored(ref) ? rev(valueOf(ref)).etag : undefined))

  // The batching itself, on this backend, with a read of its own for a group of one.
  let alone = 0
  const read = turnReads(storage.db, async ref => { alone++; return await storage.metadata.get(ref) })
  const batched = await Promise.all(asked.map(async ref => await read(ref)))
  t.same(batched.map(r => r?.value), asked.map(ref => stored(ref) ? valueOf(ref) : undefined))
  t.equal(alone, 0, 'no group of this turn was alone')
  const single = { organizationId: ORGS[1], entity: 'files', entityId: 'e1-1' }
  t.equal(await read(single), undefined)
  t.equal(alone, 1, 'a read alone in its group goes as one read')
})

t.test('a read sees the write acknowledged before it was asked', async t => {
  const storage = await filled(t)
  const ref = refs[1]
  const read = turnReads(storage.db, async r => await storage.metadata.get(r))
  const before = await read(ref)
  t.same(before?.value, valueOf(ref))
  t.same(await storage.metadata.replaceIf(ref, before!.etag, rev({ n: 'next' })), { written: true, created: false })
  const [after, other, elsewhere] = await Promise.all([read(ref), read(refs[3]), read({ ...ref, organizationId: ORGS[1] })])
  t.same(after?.value, { n: 'next' })
  t.same(other?.value, valueOf(refs[3]))
  t.equal(elsewhere, undefined, 'another organization does not read it')
})

t.test('a read inside a write sees the write\'s own changes', async t => {
  const storage = await filled(t)
  const ref = refs[1]
  const seen = await storage.db.write(async () => {
    const before = await storage.metadata.get(ref)
    t.same(await storage.metadata.replaceIf(ref, before!.etag, rev({ n: 'inside' })), { written: true, created: false })
    return await storage.metadata.get(ref)
  })
  t.same(seen?.value, { n: 'inside' }, 'read on the write\'s transaction, not on another connection')
})

t.test('a statement that fails fails each read it carried', async t => {
  const storage = await filled(t)
  const read = turnReads(storage.db, async r => await storage.metadata.get(r))
  await storage.close()
  const results = await Promise.allSettled(refs.slice(0, 4).map(async ref => await read(ref)))
  t.same(results.map(r => r.status), ['rejected', 'rejected', 'rejected', 'rejected'])
})

t.comment(`backend: ${backend}`)
