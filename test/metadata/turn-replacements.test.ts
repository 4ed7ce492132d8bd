// Metadata replacements asked for in one turn of the event loop go to the database as one write on
// PostgreSQL (src/storage/metadata.ts, turnReplacements): each ends as it would have alone, in some
// order of arrival within the turn. The first replacement of each entity whose revision is still
// the one expected is written by one statement for all of them; a second replacement of an entity
// in the turn, one whose revision changed and one of a revision that is gone run alone after it. A
// write that fails fails each replacement it carried. The batching itself runs here on both
// backends (its statement is written for each); the store uses it on PostgreSQL.
import t, { type Test } from 'tap'
import { backend, openTestStorage } from '../helpers.js'
import { groupCommit } from '../../src/storage/db.js'
import { turnReplacements, type MetadataRef, type MetadataRevision } from '../../src/storage/metadata.js'

const ORGS = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222']
const AT = '2030-01-01T00:00:00.000Z'
const LATER = '2030-01-02T00:00:00.000Z'
const rev = (value: Record<string, unknown>, at = AT): MetadataRevision =>
  ({ value, json: JSON.stringify(value), etag: `"${JSON.stringify(value).length}-${String(value.n)}"`, updatedAt: at })

// Two organizations, two entity types, four ids each (an entity's id is its own across organizations).
const refs: MetadataRef[] = ORGS.flatMap((organizationId, o) => ['users', 'accounts'].flatMap(entity =>
  Array.from({ length: 4 }, (_, i) => ({ organizationId, entity, entityId: `e${o}-${i}` }))))
const valueOf = (ref: MetadataRef): Record<string, unknown> => ({ org: ref.organizationId.slice(0, 1), entity: ref.entity, n: ref.entityId })
// What a body holds that JSON and the statement's own encoding must carry as they are.
const tricky = (ref: MetadataRef): Record<string, unknown> =>
  ({ n: `${ref.entityId}-next`, quote: 'a "b" \\ c', line: 'one\ntwo', accents: 'déjà vu', emoji: '🙂', nested: { list: [1, null, true] } })

type Storage = Awaited<ReturnType<typeof openTestStorage>>

async function filled (t: Test): Promise<Storage> {
  const storage = await openTestStorage(t)
  t.teardown(async () => { if (storage.db.open) await storage.close() })
  for (const org of ORGS) await storage.organizations.ensure(org, 'Org', AT)
  for (const ref of refs) t.same(await storage.metadata.replaceIf(ref, null, rev(valueOf(ref))), { written: true, created: true })
  return storage
}

/** The batching on this backend, with a count of the replacements that ran alone. */
function batching (storage: Storage): { replace: ReturnType<typeof turnReplacements>, alone: () => number } {
  let alone = 0
  const replace = turnReplacements(storage.db, groupCommit(storage.db), async r => {
    alone++
    // Inside the batch's write: the store's own replacement joins it.
    return await storage.metadata.replaceIf(r.ref, r.expectedEtag, r.next)
  })
  return { replace, alone: () => alone }
}

t.test('replacements of one turn are written together, each as it would have been alone', async t => {
  const storage = await filled(t)
  const { replace, alone } = batching(storage)
  const results = await Promise.all(refs.map(async ref => await replace({ ref, expectedEtag: rev(valueOf(ref)).etag, next: rev(tricky(ref), LATER) })))
  t.same(results, refs.map(() => ({ written: true, created: false })))
  t.equal(alone(), 0, 'one statement wrote every one of them')
  for (const ref of refs) {
    const stored = await storage.metadata.get(ref)
    t.same(stored?.value, tricky(ref), `${ref.organizationId.slice(0, 1)} ${ref.entity} ${ref.entityId}: the new body, as it was sent`)
    t.equal(stored?.etag, rev(tricky(ref)).etag)
    t.equal(stored?.updatedAt, LATER)
  }
})

t.test('a second replacement of an entity in the turn, a stale one and one of a revision gone each end as alone', async t => {
  const storage = await filled(t)
  const { replace, alone } = batching(storage)
  const [a, b, c, gone] = refs
  t.same(await storage.metadata.deleteIf(gone, rev(valueOf(gone)).etag), { deleted: true })
  const first = rev({ n: 'first' }, LATER)
  const second = rev({ n: 'second' }, LATER)
  const results = await Promise.all([
    replace({ ref: a, expectedEtag: rev(valueOf(a)).etag, next: first }),
    // The same entity, expecting the revision the first one replaces: it comes second.
    replace({ ref: a, expectedEtag: rev(valueOf(a)).etag, next: second }),
    replace({ ref: b, expectedEtag: '"stale"', next: rev({ n: 'never' }) }),
    replace({ ref: c, expectedEtag: rev(valueOf(c)).etag, next: rev({ n: 'c' }) }),
    replace({ ref: gone, expectedEtag: rev(valueOf(gone)).etag, next: rev({ n: 'never' }) })
  ])
  t.same(results[0], { written: true, created: false })
  t.equal(results[1].written, false, 'the second replacement of the entity finds the first one\'s revision')
  t.same(results[1].written ? undefined : results[1].current?.value, { n: 'first' })
  t.equal(results[2].written, false, 'a stale ETag writes nothing')
  t.same(results[2].written ? undefined : results[2].current?.value, valueOf(b), 'and is told what is stored')
  t.same(results[3], { written: true, created: false })
  t.same(results[4], { written: false, current: undefined }, 'a revision that is gone is not created again')
  t.equal(alone(), 3, 'the second, the stale and the gone one ran alone')
  t.same((await storage.metadata.get(a))?.value, { n: 'first' })
  t.same((await storage.metadata.get(b))?.value, valueOf(b))
  t.same((await storage.metadata.get(c))?.value, { n: 'c' })
  t.equal(await storage.metadata.get(gone), undefined)
})

t.test('through the store, concurrent replacements of one entity: one wins, the others see its revision', async t => {
  const storage = await filled(t)
  const ref = refs[5]
  const expected = rev(valueOf(ref)).etag
  const results = await Promise.all(Array.from({ length: 5 }, async (_, i) =>
    await storage.metadata.replaceIf(ref, expected, rev({ n: `writer-${i}` }, LATER))))
  const winners = results.flatMap((r, i) => r.written ? [i] : [])
  t.equal(winners.length, 1, 'exactly one writer holding the ETag succeeds')
  const won = { n: `writer-${winners[0]}` }
  for (const r of results) if (!r.written) t.same(r.current?.value, won, 'a loser is told the winner\'s revision')
  t.same((await storage.metadata.get(ref))?.value, won)
})

t.test('a write that fails fails each replacement it carried', async t => {
  const storage = await filled(t)
  const { replace } = batching(storage)
  await storage.close()
  const results = await Promise.allSettled(refs.slice(0, 4).map(async ref => await replace({ ref, expectedEtag: rev(valueOf(ref)).etag, next: rev({ n: 'x' }) })))
  t.same(results.map(r => r.status), ['rejected', 'rejected', 'rejected', 'rejected'])
})

t.comment(`backend: ${backend}`)
