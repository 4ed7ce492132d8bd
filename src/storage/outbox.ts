// The event outbox: every event the API records is written by `recordEvent`, inside the write of
// the change it reports, so the event exists exactly when the change does. After each commit that
// recorded any, the listeners (the webhooks area's dispatcher) are told to deliver them.
import { afterCommit, type Db } from './db.js'
import type { NewEvent } from './types.js'

interface Outbox {
  record: (event: NewEvent) => Promise<void>
  listeners: Array<() => void>
}

const outboxes = new WeakMap<Db, Outbox>()

function outboxOf (db: Db): Outbox {
  let outbox = outboxes.get(db)
  if (outbox !== undefined) return outbox
  const insert = db.prepare('INSERT INTO events (id, organization_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)')
  let recorded = false
  const created: Outbox = {
    listeners: [],
    async record (e) {
      recorded = true
      await insert.run(e.id, e.organizationId, e.type, JSON.stringify(e.payload), e.createdAt)
    }
  }
  // A group that was rolled back and run again may wake the listeners for nothing: they find
  // nothing new, which costs a read.
  afterCommit(db, () => {
    if (!recorded) return
    recorded = false
    for (const listener of created.listeners) listener()
  })
  outboxes.set(db, outbox = created)
  return outbox
}

/**
 * Records an event in the outbox. Call it only inside a write (a group commit's work, or a store's
 * transaction), together with the change it reports.
 */
export async function recordEvent (db: Db, event: NewEvent): Promise<void> {
  if (!db.inTransaction) throw new Error('recordEvent must run inside the write of the change it reports')
  await outboxOf(db).record(event)
}

export function onEventsCommitted (db: Db, listener: () => void): void {
  outboxOf(db).listeners.push(listener)
}
