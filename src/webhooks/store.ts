// SQLite implementation of the webhooks store: management links, endpoints, messages and delivery
// attempts. Every statement is prepared once, here.
import { groupCommit, type Db } from '../storage/db.js'
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
   * Creates one pending message, due at `now`, for each enabled endpoint of the event's
   * organization whose filter takes the event type. Idempotent per (event, endpoint).
   */
  fanOut (event: EventRecord, now: number, newMessageId: () => string): Promise<WebhookMessageRecord[]>
  /** A message to one endpoint outside the outbox (the test event). */
  createMessage (message: WebhookMessageRecord): Promise<WebhookMessageRecord>
  getMessage (organizationId: string, id: string): Promise<WebhookMessageWithAttempts | undefined>
  /** Newest first, each with its attempts oldest first. */
  listMessages (filter: MessageFilter): Promise<WebhookMessageWithAttempts[]>
  /** Pending messages of enabled endpoints due at `now`, oldest due first. */
  due (now: number, limit: number): Promise<DueDelivery[]>
  /** The earliest next attempt of a pending message of an enabled endpoint, or undefined. */
  nextDueAt (): Promise<number | undefined>
  /** Saves an attempt and its outcome; false (nothing saved) when the message is gone. */
  recordAttempt (attempt: WebhookAttemptRecord, outcome: AttemptOutcome): Promise<boolean>
  /** Starts a fresh delivery cycle due at `now`; undefined when the message is not in the organization. */
  replay (organizationId: string, id: string, now: number): Promise<WebhookMessageWithAttempts | undefined>

  /** Deletes up to `limit` messages settled (delivered or failed for good) at or before `before`, with their attempts; how many. */
  pruneSettledMessages (before: number, limit: number): Promise<number>
  /** Deletes up to `limit` management links that expired at or before `before`; how many. */
  pruneExpiredManagementLinks (before: number, limit: number): Promise<number>
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

interface AttemptRow {
  id: string
  organization_id: string
  message_id: string
  url: string
  attempted_at: string
  status_code: number | null
  error: string | null
  duration_ms: number
  response_body: string
}
const toAttempt = (r: AttemptRow): WebhookAttemptRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  messageId: r.message_id,
  url: r.url,
  attemptedAt: r.attempted_at,
  statusCode: r.status_code,
  error: r.error,
  durationMs: r.duration_ms,
  responseBody: r.response_body
})

const MESSAGE_COLUMNS = 'm.id, m.organization_id, m.endpoint_id, m.event_id, m.event_type, m.body, m.status, m.attempt_count, m.next_attempt_at, m.created_at'

// Each endpoint gets its messages in the order of their events: only its oldest pending message
// (messages are inserted in event order, so the lowest rowid) is due; the next waits until it is
// delivered or has failed for good, retries included.
const OLDEST_PENDING = `NOT EXISTS (SELECT 1 FROM webhook_messages o
  WHERE o.endpoint_id = m.endpoint_id AND o.status = 'pending' AND o.rowid < m.rowid)`

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

  const insertMessage = db.prepare(`INSERT OR IGNORE INTO webhook_messages
    (id, organization_id, endpoint_id, event_id, event_type, body, status, attempt_count, next_attempt_at, created_at)
    VALUES (@id, @organizationId, @endpointId, @eventId, @eventType, @body, @status, @attemptCount, @nextAttemptAt, @createdAt)`)
  const getMessage = db.prepare<[string, string], MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM webhook_messages m WHERE m.organization_id = ? AND m.id = ?`)
  const existsMessage = db.prepare<[string], { id: string }>('SELECT id FROM webhook_messages WHERE id = ?')
  // One statement for every filter combination: a NULL parameter switches its condition off.
  const listMessages = db.prepare<{ organizationId: string | null, endpointId: string | null, status: string | null, limit: number }, MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM webhook_messages m
     WHERE (@organizationId IS NULL OR m.organization_id = @organizationId)
       AND (@endpointId IS NULL OR m.endpoint_id = @endpointId)
       AND (@status IS NULL OR m.status = @status)
     ORDER BY m.rowid DESC LIMIT @limit`)
  const attemptsOf = db.prepare<[string], AttemptRow>(
    'SELECT * FROM webhook_attempts WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY rowid')
  const due = db.prepare<[number, number], MessageRow & { endpoint_url: string, endpoint_secret: string, previous_secret: string | null, previous_secret_expires_at: number | null }>(
    `SELECT ${MESSAGE_COLUMNS}, e.url AS endpoint_url, e.secret AS endpoint_secret, e.previous_secret, e.previous_secret_expires_at
     FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
     WHERE m.status = 'pending' AND m.next_attempt_at <= ? AND e.disabled = 0 AND ${OLDEST_PENDING}
     ORDER BY m.next_attempt_at, m.rowid LIMIT ?`)
  const nextDue = db.prepare<[], { at: number | null }>(
    `SELECT MIN(m.next_attempt_at) AS at FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
     WHERE m.status = 'pending' AND e.disabled = 0 AND ${OLDEST_PENDING}`)
  const insertAttempt = db.prepare(`INSERT INTO webhook_attempts (id, organization_id, message_id, url, attempted_at, status_code, error, duration_ms, response_body)
    VALUES (@id, @organizationId, @messageId, @url, @attemptedAt, @statusCode, @error, @durationMs, @responseBody)`)
  const updateOutcome = db.prepare('UPDATE webhook_messages SET status = ?, attempt_count = ?, next_attempt_at = ?, settled_at = ? WHERE id = ?')
  const restart = db.prepare("UPDATE webhook_messages SET status = 'pending', attempt_count = 0, next_attempt_at = ?, settled_at = NULL WHERE organization_id = ? AND id = ?")
  // Retention, in bounded batches (attempts go with their message: ON DELETE CASCADE).
  const pruneMessages = db.prepare(`DELETE FROM webhook_messages WHERE rowid IN
    (SELECT rowid FROM webhook_messages WHERE settled_at IS NOT NULL AND settled_at <= ? LIMIT ?)`)
  const pruneLinks = db.prepare('DELETE FROM management_links WHERE rowid IN (SELECT rowid FROM management_links WHERE expires_at <= ? LIMIT ?)')

  const withAttempts = (rows: MessageRow[]): WebhookMessageWithAttempts[] => {
    if (rows.length === 0) return []
    const byMessage = new Map<string, WebhookAttemptRecord[]>()
    for (const a of attemptsOf.all(JSON.stringify(rows.map(r => r.id)))) {
      const list = byMessage.get(a.message_id) ?? []
      list.push(toAttempt(a))
      byMessage.set(a.message_id, list)
    }
    return rows.map(r => ({ ...toMessage(r), attempts: byMessage.get(r.id) ?? [] }))
  }
  const messageWithAttempts = (organizationId: string, id: string): WebhookMessageWithAttempts | undefined => {
    const row = getMessage.get(organizationId, id)
    return row === undefined ? undefined : withAttempts([row])[0]
  }
  const saveMessage = (m: WebhookMessageRecord): boolean => insertMessage.run(m).changes > 0
  // Every write goes through the group commit: atomic on its own, committed with the turn's others.
  const write = groupCommit(db)

  return {
    async createManagementLink (link) { await write(() => insertLink.run(link)) },
    async findManagementLink (tokenHash) {
      const row = getLink.get(tokenHash)
      return row === undefined
        ? undefined
        : { tokenHash: row.token_hash, organizationId: row.organization_id, expiresAt: row.expires_at, createdAt: row.created_at }
    },

    async listEndpoints (organizationId) { return listEndpoints.all(organizationId).map(toEndpoint) },
    async getEndpoint (organizationId, id) {
      const row = getEndpoint.get(organizationId, id)
      return row === undefined ? undefined : toEndpoint(row)
    },
    async createEndpoint (e) {
      return await write(() => {
        insertEndpoint.run({ ...e, eventTypes: JSON.stringify(e.eventTypes), disabled: e.disabled ? 1 : 0 })
        return toEndpoint(getEndpoint.get(e.organizationId, e.id)!)
      })
    },
    async updateEndpoint (organizationId, id, changes) {
      return await write(() => {
        const row = getEndpoint.get(organizationId, id)
        if (row === undefined) return undefined
        const current = toEndpoint(row)
        const next = { ...current, ...changes }
        updateEndpoint.run({
          id,
          organizationId,
          url: next.url,
          description: next.description,
          eventTypes: JSON.stringify(next.eventTypes),
          disabled: next.disabled ? 1 : 0,
          updatedAt: next.updatedAt
        })
        return toEndpoint(getEndpoint.get(organizationId, id)!)
      })
    },
    async deleteEndpoint (organizationId, id) { return await write(() => deleteEndpoint.run(organizationId, id).changes > 0) },
    async rotateSecret (organizationId, id, rotation) {
      return await write(() => rotateSecret.run({ organizationId, id, ...rotation }).changes === 0
        ? undefined
        : toEndpoint(getEndpoint.get(organizationId, id)!))
    },

    async fanOut (event, now, newMessageId) {
      return await write(() => {
        const created: WebhookMessageRecord[] = []
        const body = JSON.stringify(event.payload)
        for (const endpoint of enabledEndpoints.all(event.organizationId).map(toEndpoint)) {
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
          if (saveMessage(message)) created.push(message)
        }
        return created
      })
    },
    async createMessage (m) {
      await write(() => saveMessage(m))
      return m
    },
    async getMessage (organizationId, id) { return messageWithAttempts(organizationId, id) },
    async listMessages (filter) {
      return withAttempts(listMessages.all({
        organizationId: filter.organizationId ?? null,
        endpointId: filter.endpointId ?? null,
        status: filter.status ?? null,
        limit: filter.limit
      }))
    },
    async due (now, limit) {
      return due.all(now, limit).map(r => ({
        message: toMessage(r),
        url: r.endpoint_url,
        secret: r.endpoint_secret,
        previousSecret: r.previous_secret,
        previousSecretExpiresAt: r.previous_secret_expires_at
      }))
    },
    async nextDueAt () { return nextDue.get()?.at ?? undefined },
    async recordAttempt (a, outcome) {
      return await write(() => {
        if (existsMessage.get(a.messageId) === undefined) return false
        insertAttempt.run(a)
        updateOutcome.run(outcome.status, outcome.attemptCount, outcome.nextAttemptAt, outcome.settledAt, a.messageId)
        return true
      })
    },
    async replay (organizationId, id, now) {
      return await write(() => restart.run(now, organizationId, id).changes > 0)
        ? messageWithAttempts(organizationId, id)
        : undefined
    },
    async pruneSettledMessages (before, limit) { return await write(() => pruneMessages.run(before, limit).changes) },
    async pruneExpiredManagementLinks (before, limit) { return await write(() => pruneLinks.run(before, limit).changes) }
  }
}
