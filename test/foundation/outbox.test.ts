// The one way to record an event: inside the write of the change it reports, the listeners told
// once the commit is on disk, and nothing recorded when the write is refused.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { groupCommit } from '../../src/storage/db.js'
import { recordEvent } from '../../src/storage/outbox.js'
import type { NewEvent } from '../../src/storage/types.js'
import type { Storage } from '../../src/storage/index.js'
import { openTestStorage } from '../helpers.js'

const ORG = '00000000-0000-4000-8000-000000000001'
const event = (type: string): NewEvent => {
  const id = randomUUID()
  const createdAt = new Date(0).toISOString()
  return { id, organizationId: ORG, type, createdAt, payload: { id, type, createdAt, data: {} } }
}

async function open (t: { teardown: (fn: () => unknown) => void }): Promise<Storage> {
  const storage = await openTestStorage(t)
  t.teardown(() => storage.close())
  return storage
}

t.test('an event is written with its change, and the listeners hear of it after the commit', async t => {
  const storage = await open(t)
  await storage.organizations.ensure(ORG, 'Org', new Date(0).toISOString())
  const heard: boolean[] = []
  storage.onEventsCommitted(() => { heard.push(storage.db.inTransaction) })
  const insert = storage.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  await groupCommit(storage.db)(async () => {
    await insert.run('change', 'made')
    await recordEvent(storage.db, event('test.changed'))
  })
  t.strictSame(heard, [false], 'told once, after the commit')
  t.strictSame((await storage.events.pending(10)).map(e => e.type), ['test.changed'])
})

t.test('a refused write records no event', async t => {
  const storage = await open(t)
  await storage.organizations.ensure(ORG, 'Org', new Date(0).toISOString())
  await t.rejects(groupCommit(storage.db)(async () => {
    await recordEvent(storage.db, event('test.refused'))
    throw new Error('refused')
  }), /refused/)
  t.strictSame(await storage.events.pending(10), [])
})

t.test('an event outside a write is a mistake in the code', async t => {
  const storage = await open(t)
  await t.rejects(recordEvent(storage.db, event('test.loose')), /inside the write/)
})
