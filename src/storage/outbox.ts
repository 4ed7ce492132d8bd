// The event outbox: every event the API records is written by `recordEvent`, inside the write of
// the change it reports, so the event exists exactly when the change does. After each commit that
// recorded any, the listeners (the webhooks area's dispatcher) are told to deliver them.
//
// Replicas (PostgreSQL): the statement that records an event also sends a notification (NOTIFY,
// delivered only if the transaction commits), which the other replicas listening on the database
// hear a few milliseconds later: they wake their listeners too, a moment after, so that the
// replica that recorded the event, woken at once, usually takes it first, and a replica that
// cannot (busy, or stopping) leaves it to the others without a poll interval's wait.
import { randomUUID } from 'node:crypto'
import { afterCommit, type Db, type PostgresDb } from './db.js'
import type { NewEvent } from './types.js'

const CHANNEL = 'sandbox_outbox'
/** How long a replica waits after another replica's events before it wakes its listeners. */
const REMOTE_WAKE_MS = 100

interface Outbox {
  record: (event: NewEvent) => Promise<void>
  listeners: Array<() => void>
  listening: boolean
  /** This process's outbox on the database: its own notifications are not heard again. */
  origin: string
}

const outboxes = new WeakMap<Db, Outbox>()

function outboxOf (db: Db): Outbox {
  let outbox = outboxes.get(db)
  if (outbox !== undefined) return outbox
  const origin = randomUUID()
  // PostgreSQL: the notification goes in the same statement, as a CTE the INSERT reads from (one
  // round trip); notifications of one transaction with one payload are delivered once.
  const insert = db.prepare({
    sqlite: 'INSERT INTO events (id, organization_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)',
    postgres: `WITH wake AS (SELECT pg_notify('${CHANNEL}', CAST(? AS TEXT)))
      INSERT INTO events (id, organization_id, type, payload, created_at)
      SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT) FROM wake`
  })
  let recorded = false
  const created: Outbox = {
    listeners: [],
    listening: false,
    origin,
    async record (e) {
      recorded = true
      const values = [e.id, e.organizationId, e.type, JSON.stringify(e.payload), e.createdAt]
      // Nothing reads the insert's answer: on PostgreSQL the write goes on without waiting for it.
      await insert.runUnanswered(...(db.dialect === 'postgres' ? [origin, ...values] : values))
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

/** Hears the other replicas' events (PostgreSQL), once per database, from the first listener on. */
function listen (db: Db, outbox: Outbox): void {
  if (db.dialect !== 'postgres' || outbox.listening) return
  outbox.listening = true
  let timer: NodeJS.Timeout | undefined
  const wake = (): void => {
    timer = undefined
    for (const listener of outbox.listeners) listener()
  }
  // postgres.js keeps the listening connection apart from the pool and reconnects it by itself.
  // A replica that could not listen still polls the outbox (the dispatcher's poll).
  const { sql } = db as PostgresDb
  sql.listen(CHANNEL, origin => {
    if (origin === outbox.origin || timer !== undefined) return
    timer = setTimeout(wake, REMOTE_WAKE_MS).unref()
  }).catch(() => {})
}

/**
 * Records an event in the outbox. Call it only inside a write (a group commit's work, or a store's
 * transaction), together with the change it reports.
 */
export async function recordEvent (db: Db, event: NewEvent): Promise<void> {
  if (!db.inTransaction) throw new Error('recordEvent must run inside the write of the change it reports')
  await outboxOf(db).record(event)
}

/**
 * Calls `listener` after each commit that recorded events, and (PostgreSQL) shortly after another
 * replica's commit that did.
 */
export function onEventsCommitted (db: Db, listener: () => void): void {
  const outbox = outboxOf(db)
  outbox.listeners.push(listener)
  listen(db, outbox)
}
