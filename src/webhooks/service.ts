// The webhook operations the portal and the sandbox control API share, always for one
// organization: a foreign endpoint or message id is a 404, as if it did not exist.
import { randomBytes, randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ApiError, entityNotFound, requestInvalid } from '../errors.js'
import { sha256Hex } from '../sha256.js'
import type { MessageStatus, WebhookEndpointRecord, WebhookMessageWithAttempts, WebhooksStore } from './store.js'
import type {
  CreateEndpointRequest, UpdateEndpointRequest, WebhookEndpoint, WebhookMessage
} from '../../schemas/webhooks.js'
import { TEST_EVENT_TYPE } from '../../schemas/webhooks.js'
import type { Dispatcher } from './dispatcher.js'
import { newMessageId, newSecret } from './signing.js'

export const PORTAL_PATH = '/webhooks/portal'

/** An endpoint as the portal and the control API show it at `now` (sandbox clock). */
export const toEndpointJson = (e: WebhookEndpointRecord, now: number): WebhookEndpoint => ({
  id: e.id,
  organizationId: e.organizationId,
  url: e.url,
  description: e.description,
  eventTypes: e.eventTypes,
  disabled: e.disabled,
  secret: e.secret,
  previousSecretExpiresAt: e.previousSecret !== null && e.previousSecretExpiresAt !== null && now < e.previousSecretExpiresAt
    ? new Date(e.previousSecretExpiresAt).toISOString()
    : null,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt
})

export const toMessageJson = (m: WebhookMessageWithAttempts): WebhookMessage => ({
  id: m.id,
  organizationId: m.organizationId,
  endpointId: m.endpointId,
  eventId: m.eventId,
  eventType: m.eventType,
  payload: JSON.parse(m.body) as Record<string, unknown>,
  status: m.status,
  nextAttemptAt: m.nextAttemptAt === null ? null : new Date(m.nextAttemptAt).toISOString(),
  createdAt: m.createdAt,
  attempts: m.attempts.map(a => ({
    id: a.id,
    attemptedAt: a.attemptedAt,
    url: a.url,
    statusCode: a.statusCode,
    error: a.error,
    durationMs: a.durationMs,
    responseBody: a.responseBody
  }))
})

const endpointDisabled = (): ApiError => new ApiError(409, 'endpoint_disabled', 'The endpoint is disabled')

/** The schema already refuses other schemes; this also refuses what `URL` cannot parse. */
function assertEndpointUrl (url: string | undefined): void {
  if (url === undefined) return
  let parsed: URL | undefined
  try { parsed = new URL(url) } catch { parsed = undefined }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    throw requestInvalid('body', [{ property: 'url', rule: 'format', ruleParams: { format: 'uri' } }])
  }
}

export const hashLinkToken = (token: string): string => sha256Hex(token)
const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/

export type LinkState = { state: 'valid', organizationId: string, expiresAt: number } | { state: 'invalid' } | { state: 'expired', expiresAt: number }

export class WebhooksService {
  readonly #app: FastifyInstance
  readonly #dispatcher: Dispatcher
  readonly #store: WebhooksStore

  constructor (app: FastifyInstance, dispatcher: Dispatcher, store: WebhooksStore) {
    this.#app = app
    this.#dispatcher = dispatcher
    this.#store = store
  }

  /** A new link to the portal; only the token's hash is stored. */
  async createManagementLink (organizationId: string, baseUrl: string): Promise<{ url: string, expiresAt: string }> {
    const { clock, config } = this.#app
    const token = randomBytes(32).toString('base64url')
    const expiresAt = clock.now() + config.managementLinkTtlSeconds * 1000
    await this.#store.createManagementLink({ tokenHash: hashLinkToken(token), organizationId, expiresAt, createdAt: clock.iso() })
    return { url: `${baseUrl}${PORTAL_PATH}/${token}`, expiresAt: new Date(expiresAt).toISOString() }
  }

  /** Whether a link token opens the portal now, by the sandbox clock. */
  async linkState (token: string): Promise<LinkState> {
    if (!LINK_TOKEN.test(token)) return { state: 'invalid' }
    const link = await this.#store.findManagementLink(hashLinkToken(token))
    if (link === undefined) return { state: 'invalid' }
    if (this.#app.clock.nowFor(link.organizationId) >= link.expiresAt) return { state: 'expired', expiresAt: link.expiresAt }
    return { state: 'valid', organizationId: link.organizationId, expiresAt: link.expiresAt }
  }

  async listEndpoints (organizationId: string): Promise<WebhookEndpoint[]> {
    const now = this.#app.clock.now()
    return (await this.#store.listEndpoints(organizationId)).map(e => toEndpointJson(e, now))
  }

  async createEndpoint (organizationId: string, input: CreateEndpointRequest): Promise<WebhookEndpoint> {
    assertEndpointUrl(input.url)
    const now = this.#app.clock.iso()
    const endpoint = await this.#store.createEndpoint({
      id: randomUUID(),
      organizationId,
      url: input.url,
      description: input.description ?? '',
      eventTypes: input.eventTypes ?? [],
      disabled: input.disabled ?? false,
      secret: newSecret(),
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now
    })
    return toEndpointJson(endpoint, this.#app.clock.now())
  }

  async updateEndpoint (organizationId: string, id: string, input: UpdateEndpointRequest): Promise<WebhookEndpoint> {
    assertEndpointUrl(input.url)
    const { url, description, eventTypes, disabled } = input
    const endpoint = await this.#store.updateEndpoint(organizationId, id, {
      ...(url === undefined ? {} : { url }),
      ...(description === undefined ? {} : { description }),
      ...(eventTypes === undefined ? {} : { eventTypes }),
      ...(disabled === undefined ? {} : { disabled }),
      updatedAt: this.#app.clock.iso()
    })
    if (endpoint === undefined) throw entityNotFound('endpoint')
    // Enabling an endpoint releases the deliveries that waited for it.
    if (disabled === false) this.#dispatcher.kick()
    return toEndpointJson(endpoint, this.#app.clock.now())
  }

  /**
   * A new signing secret (Standard Webhooks rotation): the replaced one keeps signing beside it for
   * WEBHOOK_SECRET_GRACE_SECONDS, by the sandbox clock, so receivers can switch without losing a
   * delivery. A previous secret still in its grace period stops at once.
   */
  async rotateSecret (organizationId: string, id: string): Promise<WebhookEndpoint> {
    const { clock, config } = this.#app
    const now = clock.now()
    const endpoint = await this.#store.rotateSecret(organizationId, id, {
      secret: newSecret(),
      previousSecretExpiresAt: now + config.webhookSecretGraceSeconds * 1000,
      updatedAt: clock.iso()
    })
    if (endpoint === undefined) throw entityNotFound('endpoint')
    return toEndpointJson(endpoint, now)
  }

  async deleteEndpoint (organizationId: string, id: string): Promise<void> {
    if (!await this.#store.deleteEndpoint(organizationId, id)) throw entityNotFound('endpoint')
  }

  /** Sends a `webhook.test` event to one endpoint, whatever its filter, through the normal delivery path. */
  async sendTestEvent (organizationId: string, endpointId: string): Promise<WebhookMessage> {
    const { clock, events } = this.#app
    const endpoint = await this.#store.getEndpoint(organizationId, endpointId)
    if (endpoint === undefined) throw entityNotFound('endpoint')
    if (endpoint.disabled) throw endpointDisabled()
    const event = events.build(organizationId, TEST_EVENT_TYPE, {
      endpointId,
      message: 'A test event sent from the webhooks portal.'
    })
    const message = await this.#store.createMessage({
      id: newMessageId(),
      organizationId,
      endpointId,
      eventId: event.id,
      eventType: event.type,
      body: JSON.stringify(event.payload),
      status: 'pending',
      attemptCount: 0,
      nextAttemptAt: clock.nowFor(organizationId),
      createdAt: event.createdAt
    })
    this.#dispatcher.kick()
    return toMessageJson({ ...message, attempts: [] })
  }

  async listMessages (filter: { organizationId?: string, endpointId?: string, status?: MessageStatus, limit?: number }): Promise<WebhookMessage[]> {
    const messages = await this.#store.listMessages({ ...filter, limit: filter.limit ?? 50 })
    return messages.map(toMessageJson)
  }

  /** Starts a new delivery cycle now (same `webhook-id`, a fresh retry schedule). */
  async replay (organizationId: string, id: string): Promise<WebhookMessage> {
    const { clock } = this.#app
    const existing = await this.#store.getMessage(organizationId, id)
    if (existing === undefined) throw entityNotFound('message')
    const endpoint = await this.#store.getEndpoint(organizationId, existing.endpointId)
    if (endpoint === undefined) throw entityNotFound('message')
    if (endpoint.disabled) throw endpointDisabled()
    const message = await this.#store.replay(organizationId, id, clock.nowFor(organizationId))
    if (message === undefined) throw entityNotFound('message')
    this.#dispatcher.kick()
    return toMessageJson(message)
  }
}
