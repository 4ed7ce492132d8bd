// The webhooks store: management links, endpoints, messages and delivery attempts. Every statement
// is prepared once, here.
import { randomUUID } from 'node:crypto'
import { groupCommit, type Db } from '../storage/db.js'
import { dueScopeParams, onDueScope, toDueAt, type DueAt, type DueScope } from '../storage/shared.js'
import type { EventRecord } from '../storage/types.js'

export interface ManagementLinkRecord {
  tokenHash: string
  organizationId: string
  /** Sandbox-clock milliseconds. */
  expiresAt: number
  createdAt: string
}

export interface WebhookEndpointRecord {
  id: string
  organizationId: string
  url: string
  description: string
  /** Empty: every event type. */
  eventTypes: string[]
  disabled: boolean
  secret: string
  /** The secret the last rotation replaced, which signs beside `secret` until `previousSecretExpiresAt`. */
  previousSecret: string | null
  /** Sandbox-clock milliseconds; null when no rotation happened. */
  previousSecretExpiresAt: number | null
  createdAt: string
  updatedAt: string
}

/** A rotation: the new secret, and until when the one it replaces keeps signing. */
export interface SecretRotation {
  secret: string
  /** Sandbox-clock milliseconds. */
  previousSecretExpiresAt: number
  updatedAt: string
}

export type MessageStatus = 'pending' | 'delivered' | 'failed'

export interface WebhookAttemptRecord {
  id: string
  organizationId: string
  messageId: string
  url: string
  attemptedAt: string
  statusCode: number | null
  error: string | null
  durationMs: number
  responseBody: string
}

export interface WebhookMessageRecord {
  id: string
  organizationId: string
  endpointId: string
  eventId: string
  eventType: string
  /** The serialized event, sent byte for byte on every attempt. */
  body: string
  status: MessageStatus
  attemptCount: number
  /** Sandbox-clock milliseconds; null once delivered or failed. */
  nextAttemptAt: number | null
  createdAt: string
}

export interface WebhookMessageWithAttempts extends WebhookMessageRecord {
  attempts: WebhookAttemptRecord[]
}

/** A message due for an attempt, with where and how to send it. */
export interface DueDelivery {
  message: WebhookMessageRecord
  url: string
  secret: string
  previousSecret: string | null
  previousSecretExpiresAt: number | null
  /**
   * The token of the claim that leases the message to this process (see `claimDue`): only its
   * holder saves the attempt's result. null where no lease is taken (SQLite, and `due`).
   */
  lease: string | null
}

export interface EndpointChanges {
  url?: string
  description?: string
  eventTypes?: string[]
  disabled?: boolean
  updatedAt: string
}

export interface MessageFilter {
  /** Omitted: every organization (sandbox control API only). */
  organizationId?: string
  endpointId?: string
  status?: MessageStatus
  limit: number
}

/** What an attempt leaves behind on its message. */
export interface AttemptOutcome {
  status: MessageStatus
  attemptCount: number
  nextAttemptAt: number | null
  /** Sandbox-clock milliseconds when the message was delivered or failed for good; null while pending. */
  settledAt: number | null
}

export interface WebhooksStore {
  createManagementLink (link: ManagementLinkRecord): Promise<void>
  findManagementLink (tokenHash: string): Promise<ManagementLinkRecord | undefined>

  listEndpoints (organizationId: string): Promise<WebhookEndpointRecord[]>
  getEndpoint (organizationId: string, id: string): Promise<WebhookEndpointRecord | undefined>
  createEndpoint (endpoint: WebhookEndpointRecord): Promise<WebhookEndpointRecord>
  /** undefined when the endpoint is not in the organization. */
  updateEndpoint (organizationId: string, id: string, changes: EndpointChanges): Promise<WebhookEndpointRecord | undefined>
  /** Deletes the endpoint with its messages and attempts; false when it is not in the organization. */
  deleteEndpoint (organizationId: string, id: string): Promise<boolean>
  /**
   * Replaces the signing secret; the replaced one becomes the previous secret until the rotation's
   * expiry (a previous secret before it is dropped). undefined when the endpoint is not in the organization.
   */
  rotateSecret (organizationId: string, id: string, rotation: SecretRotation): Promise<WebhookEndpointRecord | undefined>

  /**
   * Fans events out, in their order, in one write: for each event `claim` runs first, inside that
   * write (the outbox's conditional mark), and only an event it answers true for gets one pending
   * message, made and due at `nowOf(event.organizationId)` (its organization's clock), for each
   * enabled endpoint of its organization whose filter takes its type. So each event is fanned out
   * once, however many replicas try at the same time. Answers the messages made. Idempotent per
   * (event, endpoint) besides.
   */
  fanOut (events: EventRecord[], nowOf: (organizationId: string) => number, newMessageId: () => string, claim: (event: EventRecord) => Promise<boolean>): Promise<WebhookMessageRecord[]>
  /** A message to one endpoint outside the outbox (the test event). */
  createMessage (message: WebhookMessageRecord): Promise<WebhookMessageRecord>
  getMessage (organizationId: string, id: string): Promise<WebhookMessageWithAttempts | undefined>
  /** Newest first, each with its attempts oldest first. */
  listMessages (filter: MessageFilter): Promise<WebhookMessageWithAttempts[]>
  /**
   * Pending messages of enabled endpoints due at `now`, oldest due first (leased or not), of the
   * scope's organizations: one with a clock of its own, or (null) every other organization. A
   * message's times are on its organization's clock, so `now` is the scope's.
   */
  due (now: number, limit: number, scope: DueScope): Promise<DueDelivery[]>
  /**
   * Takes up to `limit` messages of the scope's organizations due at `now` (the scope's clock, as
   * `due`) for attempts by this process, oldest due first,
   * leaving out those `skip` answers true for (its attempts in flight). Where replicas share the
   * database (PostgreSQL), a message leased to another is not due, and each one taken is leased
   * for `leaseMs` (by the database's clock) in the same write, which holds the global write lock:
   * no other replica takes it until its attempt is saved, or the lease lapses. On SQLite, which
   * one process owns, this is a read, as `due`.
   */
  claimDue (now: number, limit: number, scope: DueScope, leaseMs: number, skip: (messageId: string) => boolean): Promise<DueDelivery[]>
  /** Gives a claimed message back (its attempt was abandoned at shutdown): another replica may take it at once. */
  releaseLease (messageId: string, lease: string): Promise<void>
  /**
   * Each organization's earliest next attempt of a pending message of an enabled endpoint (on its
   * clock), due or not: one query for every clock (see src/kit/due-work.ts).
   */
  earliestDue (): Promise<DueAt[]>
  /**
   * Saves an attempt and its outcome, and ends the claim `lease` (from `claimDue`); false, and
   * nothing saved, when the message is gone or the claim is no longer the message's (it lapsed
   * and another replica took the message).
   */
  recordAttempt (attempt: WebhookAttemptRecord, outcome: AttemptOutcome, lease: string | null): Promise<boolean>
  /** Starts a fresh delivery cycle due at `now`; undefined when the message is not in the organization. */
  replay (organizationId: string, id: string, now: number): Promise<WebhookMessageWithAttempts | undefined>

  /**
   * Deletes up to `limit` messages of the scope's organizations settled (delivered or failed for
   * good) at or before `before` (the scope's clock), with their attempts; how many.
   */
  pruneSettledMessages (before: number, limit: number, scope: DueScope): Promise<number>
  /** Deletes up to `limit` management links of the scope's organizations that expired at or before `before`; how many. */
  pruneExpiredManagementLinks (before: number, limit: number, scope: DueScope): Promise<number>
}

interface EndpointRow {
  id: string
  organization_id: string
  url: string
  description: string
  event_types: string
  disabled: number
  secret: string
  previous_secret: string | null
  previous_secret_expires_at: number | null
  created_at: string
  updated_at: string
}
const toEndpoint = (r: EndpointRow): WebhookEndpointRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  url: r.url,
  description: r.description,
  eventTypes: JSON.parse(r.event_types) as string[],
  disabled: r.disabled === 1,
  secret: r.secret,
  previousSecret: r.previous_secret,
  previousSecretExpiresAt: r.previous_secret_expires_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at
})

interface MessageRow {
  id: string
  organization_id: string
  endpoint_id: string
  event_id: string
  event_type: string
  body: string
  status: MessageStatus
  attempt_count: number
  next_attempt_at: number | null
  created_at: string
}
const toMessage = (r: MessageRow): WebhookMessageRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  endpointId: r.endpoint_id,
  eventId: r.event_id,
  eventType: r.event_type,
  body: r.body,
  status: r.status,
  attemptCount: r.attempt_count,
  nextAttemptAt: r.next_attempt_at,
  createdAt: r.created_at
})

const MESSAGE_COLUMNS = 'm.id, m.organization_id, m.endpoint_id, m.event_id, m.event_type, m.body, m.status, m.attempt_count, m.next_attempt_at, m.created_at'

// A message read with its attempts is one statement, a LEFT JOIN with a row per attempt (the
// attempt's columns NULL for a message without one): one statement reads one state of the
// database on both backends, so the message's status always agrees with its attempts (two reads
// may fall either side of a commit on PostgreSQL, whose reads run beside the writes).
const ATTEMPT_COLUMNS = 'a.id AS attempt_id, a.url AS attempt_url, a.attempted_at, a.status_code, a.error, a.duration_ms, a.response_body'
interface MessageAttemptRow extends MessageRow {
  attempt_id: string | null
  attempt_url: string | null
  attempted_at: string | null
  status_code: number | null
  error: string | null
  duration_ms: number | null
  response_body: string | null
}

/** Rows of messages with their attempts (a message's rows together, its attempts oldest first), as messages. */
function withAttempts (rows: MessageAttemptRow[]): WebhookMessageWithAttempts[] {
  const messages: WebhookMessageWithAttempts[] = []
  let last: WebhookMessageWithAttempts | undefined
  for (const r of rows) {
    if (last?.id !== r.id) messages.push(last = { ...toMessage(r), attempts: [] })
    if (r.attempt_id === null) continue
    last.attempts.push({
      id: r.attempt_id,
      organizationId: r.organization_id,
      messageId: r.id,
      url: r.attempt_url!,
      attemptedAt: r.attempted_at!,
      statusCode: r.status_code,
      error: r.error,
      durationMs: r.duration_ms!,
      responseBody: r.response_body!
    })
  }
  return messages
}

// Each endpoint gets its messages in the order of their events: only its oldest pending message
// (messages are inserted in event order, so the lowest rowid) is due; the next waits until it is
// delivered or has failed for good, retries included.
const OLDEST_PENDING = `NOT EXISTS (SELECT 1 FROM webhook_messages o
  WHERE o.endpoint_id = m.endpoint_id AND o.status = 'pending' AND o.rowid < m.rowid)`

const DUE_COLUMNS = `${MESSAGE_COLUMNS}, e.url AS endpoint_url, e.secret AS endpoint_secret, e.previous_secret, e.previous_secret_expires_at`
type DueRow = MessageRow & { endpoint_url: string, endpoint_secret: string, previous_secret: string | null, previous_secret_expires_at: number | null }
const dueSql = (condition: string): string => `SELECT ${DUE_COLUMNS}
  FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
  WHERE m.status = 'pending' AND m.next_attempt_at <= ? AND ${onDueScope('m.organization_id')} AND e.disabled = 0 AND ${OLDEST_PENDING}${condition}
  ORDER BY m.next_attempt_at, m.rowid LIMIT ?`
const toDue = (r: DueRow, lease: string | null): DueDelivery => ({
  message: toMessage(r),
  url: r.endpoint_url,
  secret: r.endpoint_secret,
  previousSecret: r.previous_secret,
  previousSecretExpiresAt: r.previous_secret_expires_at,
  lease
})

// Leases are real time, not sandbox time (which may stand still), read from the database's clock
// so that every replica measures them alike: milliseconds since the epoch.
const DB_NOW_MS = {
  sqlite: "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
  postgres: 'CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)'
}
const UNLEASED = (dialect: 'sqlite' | 'postgres'): string => ` AND (m.lease_until IS NULL OR m.lease_until < ${DB_NOW_MS[dialect]})`

export function webhooksStore (db: Db): WebhooksStore {
  const insertLink = db.prepare('INSERT INTO management_links (token_hash, organization_id, expires_at, created_at) VALUES (@tokenHash, @organizationId, @expiresAt, @createdAt)')
  const getLink = db.prepare<[string], { token_hash: string, organization_id: string, expires_at: number, created_at: string }>(
    'SELECT token_hash, organization_id, expires_at, created_at FROM management_links WHERE token_hash = ?')

  const listEndpoints = db.prepare<[string], EndpointRow>('SELECT * FROM webhook_endpoints WHERE organization_id = ? ORDER BY created_at, rowid')
  const enabledEndpoints = db.prepare<[string], EndpointRow>('SELECT * FROM webhook_endpoints WHERE organization_id = ? AND disabled = 0 ORDER BY created_at, rowid')
  const getEndpoint = db.prepare<[string, string], EndpointRow>('SELECT * FROM webhook_endpoints WHERE organization_id = ? AND id = ?')
  const insertEndpoint = db.prepare(`INSERT INTO webhook_endpoints (id, organization_id, url, description, event_types, disabled, secret, created_at, updated_at)
    VALUES (@id, @organizationId, @url, @description, @eventTypes, @disabled, @secret, @createdAt, @updatedAt)`)
  const updateEndpoint = db.prepare(`UPDATE webhook_endpoints SET url = @url, description = @description, event_types = @eventTypes, disabled = @disabled, updated_at = @updatedAt
    WHERE organization_id = @organizationId AND id = @id`)
  const deleteEndpoint = db.prepare('DELETE FROM webhook_endpoints WHERE organization_id = ? AND id = ?')
  // The right-hand sides read the row as it was: the current secret becomes the previous one.
  const rotateSecret = db.prepare(`UPDATE webhook_endpoints
    SET previous_secret = secret, previous_secret_expires_at = @previousSecretExpiresAt, secret = @secret, updated_at = @updatedAt
    WHERE organization_id = @organizationId AND id = @id`)

  const insertMessage = db.prepare(`INSERT INTO webhook_messages
    (id, organization_id, endpoint_id, event_id, event_type, body, status, attempt_count, next_attempt_at, created_at)
    VALUES (@id, @organizationId, @endpointId, @eventId, @eventType, @body, @status, @attemptCount, @nextAttemptAt, @createdAt)
    ON CONFLICT DO NOTHING`)
  const getMessage = db.prepare<[string, string], MessageAttemptRow>(`SELECT ${MESSAGE_COLUMNS}, ${ATTEMPT_COLUMNS}
    FROM webhook_messages m LEFT JOIN webhook_attempts a ON a.message_id = m.id
    WHERE m.organization_id = ? AND m.id = ? ORDER BY a.rowid`)
  // One statement for every filter combination: a NULL parameter switches its condition off. An
  // organization's list has its own, which goes by the organization's index (SQLite's carries the
  // rowid, so it is read newest first): it reads that organization's messages only.
  const messagesWhere = (organization: string): string => `SELECT ${MESSAGE_COLUMNS}, ${ATTEMPT_COLUMNS}
     FROM (SELECT m.*, m.rowid AS seq FROM webhook_messages m
       WHERE ${organization}
         AND (CAST(@endpointId AS TEXT) IS NULL OR m.endpoint_id = @endpointId)
         AND (CAST(@status AS TEXT) IS NULL OR m.status = @status)
       ORDER BY m.rowid DESC LIMIT @limit) m
     LEFT JOIN webhook_attempts a ON a.message_id = m.id
     ORDER BY m.seq DESC, a.rowid`
  type MessageQuery = { organizationId?: string, endpointId: string | null, status: string | null, limit: number }
  const listMessages = db.prepare<MessageQuery, MessageAttemptRow>(messagesWhere('TRUE'))
  const listOrganizationMessages = db.prepare<MessageQuery, MessageAttemptRow>(messagesWhere('m.organization_id = @organizationId'))
  type DueParams = [number, string | null, string | null, number]
  const due = db.prepare<DueParams, DueRow>(dueSql(''))
  // Claims (PostgreSQL): the due messages no live lease holds, then one statement that leases the
  // chosen ones. Both run in one write: under the global write lock no other replica's claim can
  // fall between them, so the read decides as a conditional UPDATE would (FOR UPDATE SKIP LOCKED
  // would be needed without that lock; under it, it adds nothing).
  const dueUnleased = db.prepare<DueParams, DueRow>({ sqlite: dueSql(UNLEASED('sqlite')), postgres: dueSql(UNLEASED('postgres')) })
  const lease = db.prepare<[string, number, string | string[]]>({
    sqlite: `UPDATE webhook_messages SET lease_owner = ?, lease_until = ${DB_NOW_MS.sqlite} + ? WHERE id IN (SELECT value FROM json_each(?))`,
    postgres: `UPDATE webhook_messages SET lease_owner = ?, lease_until = ${DB_NOW_MS.postgres} + ? WHERE id = ANY(?::text[])`
  })
  const release = db.prepare('UPDATE webhook_messages SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?')
  const earliestDue = db.prepare<[], { organization_id: string, at: number }>(
    `SELECT m.organization_id, MIN(m.next_attempt_at) AS at FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
     WHERE m.status = 'pending' AND e.disabled = 0 AND ${OLDEST_PENDING} GROUP BY m.organization_id`)
  const insertAttempt = db.prepare(`INSERT INTO webhook_attempts (id, organization_id, message_id, url, attempted_at, status_code, error, duration_ms, response_body)
    VALUES (@id, @organizationId, @messageId, @url, @attemptedAt, @statusCode, @error, @durationMs, @responseBody)`)
  // Only the claim's holder saves (a NULL lease: SQLite's one process, which takes none).
  const updateOutcome = db.prepare<{ id: string, lease: string | null } & AttemptOutcome>(`UPDATE webhook_messages
    SET status = @status, attempt_count = @attemptCount, next_attempt_at = @nextAttemptAt, settled_at = @settledAt, lease_owner = NULL, lease_until = NULL
    WHERE id = @id AND (CAST(@lease AS TEXT) IS NULL OR lease_owner = @lease)`)
  const restart = db.prepare("UPDATE webhook_messages SET status = 'pending', attempt_count = 0, next_attempt_at = ?, settled_at = NULL WHERE organization_id = ? AND id = ?")
  // Retention, in bounded batches (attempts go with their message: ON DELETE CASCADE).
  type PruneParams = [number, string | null, string | null, number]
  const pruneMessages = db.prepare<PruneParams>(`DELETE FROM webhook_messages WHERE rowid IN
    (SELECT rowid FROM webhook_messages WHERE settled_at IS NOT NULL AND settled_at <= ? AND ${onDueScope('organization_id')} LIMIT ?)`)
  const pruneLinks = db.prepare<PruneParams>(`DELETE FROM management_links WHERE rowid IN
    (SELECT rowid FROM management_links WHERE expires_at <= ? AND ${onDueScope('organization_id')} LIMIT ?)`)

  const messageWithAttempts = async (organizationId: string, id: string): Promise<WebhookMessageWithAttempts | undefined> =>
    withAttempts(await getMessage.all(organizationId, id))[0]
  const saveMessage = async (m: WebhookMessageRecord): Promise<boolean> => (await insertMessage.run(m)).changes > 0
  // Every write goes through the group commit: atomic on its own, committed with the turn's others.
  const write = groupCommit(db)
  // Replicas share a PostgreSQL database and take turns by leases; an SQLite database is opened
  // by one process only (locked exclusively), whose in-flight attempts are all there is to skip.
  const leases = db.dialect === 'postgres'

  return {
    async createManagementLink (link) { await write(async () => { await insertLink.run(link) }) },
    async findManagementLink (tokenHash) {
      const row = await getLink.get(tokenHash)
      return row === undefined
        ? undefined
        : { tokenHash: row.token_hash, organizationId: row.organization_id, expiresAt: row.expires_at, createdAt: row.created_at }
    },

    async listEndpoints (organizationId) { return (await listEndpoints.all(organizationId)).map(toEndpoint) },
    async getEndpoint (organizationId, id) {
      const row = await getEndpoint.get(organizationId, id)
      return row === undefined ? undefined : toEndpoint(row)
    },
    async createEndpoint (e) {
      return await write(async () => {
        await insertEndpoint.run({ ...e, eventTypes: JSON.stringify(e.eventTypes), disabled: e.disabled ? 1 : 0 })
        return toEndpoint((await getEndpoint.get(e.organizationId, e.id))!)
      })
    },
    async updateEndpoint (organizationId, id, changes) {
      return await write(async () => {
        const row = await getEndpoint.get(organizationId, id)
        if (row === undefined) return undefined
        const current = toEndpoint(row)
        const next = { ...current, ...changes }
        await updateEndpoint.run({
          id,
          organizationId,
          url: next.url,
          description: next.description,
          eventTypes: JSON.stringify(next.eventTypes),
          disabled: next.disabled ? 1 : 0,
          updatedAt: next.updatedAt
        })
        return toEndpoint((await getEndpoint.get(organizationId, id))!)
      })
    },
    async deleteEndpoint (organizationId, id) { return await write(async () => (await deleteEndpoint.run(organizationId, id)).changes > 0) },
    async rotateSecret (organizationId, id, rotation) {
      return await write(async () => (await rotateSecret.run({ organizationId, id, ...rotation })).changes === 0
        ? undefined
        : toEndpoint((await getEndpoint.get(organizationId, id))!))
    },

    async fanOut (events, nowOf, newMessageId, claim) {
      return await write(async () => {
        const created: WebhookMessageRecord[] = []
        // Read inside the write: no endpoint changes under it.
        const endpointsOf = new Map<string, WebhookEndpointRecord[]>()
        for (const event of events) {
          if (!await claim(event)) continue
          let endpoints = endpointsOf.get(event.organizationId)
          if (endpoints === undefined) endpointsOf.set(event.organizationId, endpoints = (await enabledEndpoints.all(event.organizationId)).map(toEndpoint))
          const body = JSON.stringify(event.payload)
          const now = nowOf(event.organizationId)
          for (const endpoint of endpoints) {
            if (endpoint.eventTypes.length > 0 && !endpoint.eventTypes.includes(event.type)) continue
            const message: WebhookMessageRecord = {
              id: newMessageId(),
              organizationId: event.organizationId,
              endpointId: endpoint.id,
              eventId: event.id,
              eventType: event.type,
              body,
              status: 'pending',
              attemptCount: 0,
              nextAttemptAt: now,
              createdAt: new Date(now).toISOString()
            }
            if (await saveMessage(message)) created.push(message)
          }
        }
        return created
      })
    },
    async createMessage (m) {
      await write(async () => await saveMessage(m))
      return m
    },
    async getMessage (organizationId, id) { return await messageWithAttempts(organizationId, id) },
    async listMessages (filter) {
      const query = { endpointId: filter.endpointId ?? null, status: filter.status ?? null, limit: filter.limit }
      return withAttempts(filter.organizationId === undefined
        ? await listMessages.all(query)
        : await listOrganizationMessages.all({ ...query, organizationId: filter.organizationId }))
    },
    async due (now, limit, scope) { return (await due.all(now, ...dueScopeParams(scope), limit)).map(r => toDue(r, null)) },
    async claimDue (now, limit, scope, leaseMs, skip) {
      if (!leases) return (await due.all(now, ...dueScopeParams(scope), limit)).filter(r => !skip(r.id)).map(r => toDue(r, null))
      // Nothing to take (most passes): no write, so no turn of the global write lock.
      if (!(await dueUnleased.all(now, ...dueScopeParams(scope), limit)).some(r => !skip(r.id))) return []
      const token = randomUUID()
      return await write(async () => {
        const rows = (await dueUnleased.all(now, ...dueScopeParams(scope), limit)).filter(r => !skip(r.id))
        const ids = rows.map(r => r.id)
        if (ids.length > 0) await lease.run(token, leaseMs, db.dialect === 'postgres' ? ids : JSON.stringify(ids))
        return rows.map(r => toDue(r, token))
      })
    },
    async releaseLease (messageId, token) { await write(async () => { await release.run(messageId, token) }) },
    async earliestDue () { return (await earliestDue.all()).map(toDueAt) },
    async recordAttempt (a, outcome, token) {
      return await write(async () => {
        const { status, attemptCount, nextAttemptAt, settledAt } = outcome
        if ((await updateOutcome.run({ id: a.messageId, lease: token, status, attemptCount, nextAttemptAt, settledAt })).changes === 0) return false
        await insertAttempt.run(a)
        return true
      })
    },
    async replay (organizationId, id, now) {
      return await write(async () => (await restart.run(now, organizationId, id)).changes > 0)
        ? await messageWithAttempts(organizationId, id)
        : undefined
    },
    async pruneSettledMessages (before, limit, scope) { return await write(async () => (await pruneMessages.run(before, ...dueScopeParams(scope), limit)).changes) },
    async pruneExpiredManagementLinks (before, limit, scope) { return await write(async () => (await pruneLinks.run(before, ...dueScopeParams(scope), limit)).changes) }
  }
}
