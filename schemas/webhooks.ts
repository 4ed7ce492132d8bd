// The webhooks contract: the management link, the event catalogue, and the endpoints, messages
// and attempts that the portal and the sandbox control API show.
import { Type, type Static } from 'typebox'
import { Timestamp, Uuid } from './common.js'

/** Event types an endpoint can subscribe to (the Core API's event catalogue). */
export const EVENT_TYPES: Record<string, string> = {
  'core.user.created': 'A user was created',
  'core.user.deleted': 'A user was deleted',
  'core.kyc.profile.status-changed': 'Profile KYC status changed',
  'core.kyc.email.status-changed': 'E-mail KYC status changed',
  'core.kyc.phone.status-changed': 'Phone KYC status changed',
  'core.kyc.address.status-changed': 'Address KYC status changed',
  'core.kyc.identity.status-changed': 'Identity KYC status changed',
  'core.kyc.proof-of-address.status-changed': 'Proof-of-address KYC status changed',
  'core.kyc.tax-details.status-changed': 'Tax details KYC status changed',
  'core.kyc.customer-due-diligence.status-changed': 'Customer due diligence status changed',
  'core.kyc.enhanced-due-diligence.status-changed': 'Enhanced due diligence status changed',
  'core.kyc.crypto-risk-assessment.status-changed': 'Crypto risk assessment status changed',
  'core.kyc.self-categorization-statement.status-changed': 'Self-categorization statement status changed',
  'core.kyc.screening.status-changed': 'Screening status changed',
  'core.kyc.risk.status-changed': 'Risk status changed',
  'core.kyb.onboarding.status-changed': 'KYB onboarding status changed',
  'core.assets.cooldown-ended': 'An assets cooldown ended',
  'core.account.created': 'An account was created',
  'core.account.balance-changed': 'An account balance changed',
  'core.account.archived': 'An account was archived',
  'core.account.unarchived': 'An account was unarchived',
  'core.external-account.created': 'An external account was created',
  'core.external-account.status-changed': 'An external account status changed',
  'core.external-account.deleted': 'An external account was deleted',
  'core.transaction.created': 'A transaction was created',
  'core.transaction.status-changed': 'A transaction status changed'
}

/** The type of the test event sent from the portal: delivered to one endpoint, whatever its filter. */
export const TEST_EVENT_TYPE = 'webhook.test'

export const ManagementLinkResponse = Type.Object({
  managementLink: Type.Object({
    url: Type.String({ format: 'uri', description: 'Address of the webhooks portal page for the organization. It carries a secret: treat it as a credential.' }),
    expiresAt: { ...Timestamp, description: 'When the link stops working (ISO 8601, UTC, fractional seconds).' }
  }, { description: 'The management link.' })
}, { description: 'A new webhook management link.' })

// An enum (not a union of literals) so a wrong value is one `enum` violation listing the allowed types.
const EventType = Type.Unsafe<string>({ type: 'string', enum: Object.keys(EVENT_TYPES), description: 'An event type of the catalogue.' })
const EventTypes = Type.Array(EventType, {
  uniqueItems: true,
  maxItems: Object.keys(EVENT_TYPES).length,
  description: 'Event types delivered to the endpoint; empty means every event type.'
})
// Absolute http(s) URLs only: the pattern refuses other schemes, the format refuses malformed ones.
const EndpointUrl = Type.String({
  format: 'uri',
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]+',
  maxLength: 2048,
  description: 'Absolute http(s) URL that receives the POSTed events.'
})
const Description = Type.String({ maxLength: 255, description: 'A free label for the endpoint.' })
const OrganizationId = { ...Uuid, description: 'The organization; defaults to the demo organization.' }

export const WebhookEndpoint = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  url: Type.String({ description: 'Where events are POSTed.' }),
  description: Type.String({ description: 'A free label.' }),
  eventTypes: Type.Array(Type.String(), { description: 'Event types delivered; empty means every event type.' }),
  disabled: Type.Boolean({ description: 'A disabled endpoint gets no new messages; its pending deliveries wait until it is enabled again.' }),
  secret: Type.String({ description: 'Signing secret, `whsec_<base64>`: the HMAC-SHA256 key (base64-decoded) of the `webhook-signature` header.' }),
  previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description: 'After a rotation, until when the replaced secret still signs deliveries beside `secret` (two space-separated `v1,<signature>` ' +
      'entries in `webhook-signature`); null when no replaced secret signs.'
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { $id: 'WebhookEndpoint', description: 'A webhook endpoint.' })
export type WebhookEndpoint = Static<typeof WebhookEndpoint>

export const WebhookAttempt = Type.Object({
  id: Uuid,
  attemptedAt: { ...Timestamp, description: 'When the attempt finished, by the sandbox clock.' },
  url: Type.String({ description: 'The URL the attempt was sent to.' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the answer; null when there was none (timeout, connection error).' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed without an answer, or null.' }),
  durationMs: Type.Integer({ description: 'Milliseconds the attempt took (real time).' }),
  responseBody: Type.String({ description: 'The start of the answer\'s body (at most 1024 characters).' })
}, { $id: 'WebhookAttempt', description: 'One delivery attempt.' })
export type WebhookAttempt = Static<typeof WebhookAttempt>

export const WebhookMessage = Type.Object({
  id: Type.String({ description: 'The message id, sent as `webhook-id` on every attempt (`msg_...`).' }),
  organizationId: Uuid,
  endpointId: Uuid,
  eventId: Uuid,
  eventType: Type.String(),
  payload: Type.Record(Type.String(), Type.Unknown(), { description: 'The body delivered: `{ id, type, createdAt, data }`.' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
    description: '`pending` while attempts remain, `delivered` after a 2xx, `failed` once the retry schedule is spent.'
  }),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'When the next attempt is due, on the message\'s organization\'s sandbox clock (moving or freezing that clock moves or holds it), or null.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When the message was made, on its organization\'s sandbox clock (UTC).' }),
  attempts: Type.Array(Type.Ref('WebhookAttempt'), { description: 'Every attempt, oldest first.' })
}, { $id: 'WebhookMessage', description: 'An event delivered to one endpoint, with its attempts.' })
export type WebhookMessage = Omit<Static<typeof WebhookMessage>, 'attempts'> & { attempts: WebhookAttempt[] }

/** Registered on the webhooks area so responses refer to them by name. */
export const WEBHOOK_SCHEMAS = [WebhookEndpoint, WebhookAttempt, WebhookMessage]

export const EndpointIdParams = Type.Object({ id: Uuid })
export const MessageIdParams = Type.Object({ id: Type.String({ pattern: '^msg_[A-Za-z0-9]{1,64}$', description: 'A message id.' }) })

export const CreateEndpointRequest = Type.Object({
  url: EndpointUrl,
  description: Type.Optional(Description),
  eventTypes: Type.Optional(EventTypes),
  disabled: Type.Optional(Type.Boolean({ description: 'Create it disabled (default false).' }))
}, { additionalProperties: false, description: 'A new endpoint.' })
export type CreateEndpointRequest = Static<typeof CreateEndpointRequest>

export const UpdateEndpointRequest = Type.Object({
  url: Type.Optional(EndpointUrl),
  description: Type.Optional(Description),
  eventTypes: Type.Optional(EventTypes),
  disabled: Type.Optional(Type.Boolean({ description: 'Disable or enable the endpoint.' }))
}, { additionalProperties: false, minProperties: 1, description: 'The fields to change.' })
export type UpdateEndpointRequest = Static<typeof UpdateEndpointRequest>

export const EndpointResponse = Type.Object({ endpoint: Type.Ref('WebhookEndpoint') }, { description: 'The endpoint.' })
export const EndpointListResponse = Type.Object({ endpoints: Type.Array(Type.Ref('WebhookEndpoint'), { description: 'Oldest first.' }) }, { description: 'The endpoints.' })
export const MessageResponse = Type.Object({ message: Type.Ref('WebhookMessage') }, { description: 'The message.' })
export const MessageListResponse = Type.Object({ messages: Type.Array(Type.Ref('WebhookMessage'), { description: 'Newest first.' }) }, { description: 'Recent messages.' })

export const MessageQuery = Type.Object({
  endpointId: Type.Optional({ ...Uuid, description: 'Only messages to this endpoint.' }),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], { description: 'Only messages in this state.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'At most this many messages (default 50).' }))
})

// The sandbox control API names the organization in the query or the body.
export const SandboxOrganizationQuery = Type.Object({ organizationId: Type.Optional(OrganizationId) })
export const SandboxMessageQuery = Type.Object({
  ...MessageQuery.properties,
  organizationId: Type.Optional({ ...Uuid, description: 'Only this organization\'s messages; omitted: every organization.' })
})
export const SandboxCreateEndpointRequest = Type.Object({
  ...CreateEndpointRequest.properties,
  organizationId: Type.Optional(OrganizationId)
}, { additionalProperties: false, description: 'A new endpoint for an organization.', examples: [{ url: 'https://example.com/webhooks', description: 'Orders service', eventTypes: ['core.transaction.created', 'core.transaction.status-changed'] }] })
export const SandboxUpdateEndpointRequest = Type.Object({
  ...UpdateEndpointRequest.properties,
  organizationId: Type.Optional(OrganizationId)
}, { additionalProperties: false, minProperties: 1, description: 'The fields to change.', examples: [{ disabled: true }] })
export const SandboxOrganizationBody = Type.Union([
  Type.Object({ organizationId: Type.Optional(OrganizationId) }, { additionalProperties: false }),
  Type.Null()
], { description: 'Optional: the organization (also accepted as a query parameter).', examples: [{ organizationId: '00000000-0000-4000-8000-000000000001' }] })
