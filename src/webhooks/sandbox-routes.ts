// The portal's operations as JSON under /_sandbox/webhooks, for scripts and the dashboard. Each
// call works on one organization, named by `organizationId` in the body or the query (the demo
// organization when neither is given); listing messages without one lists every organization's.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { entityNotFound } from '../errors.js'
import { callerOrganization, control } from '../kit/operation.js'
import { errorResponse } from '../../schemas/common.js'
import {
  EndpointIdParams, EndpointListResponse, EndpointResponse, MessageIdParams, MessageListResponse, MessageResponse,
  SandboxCreateEndpointRequest, SandboxMessageQuery, SandboxOrganizationBody, SandboxOrganizationQuery, SandboxUpdateEndpointRequest,
} from '../../schemas/webhooks.js'
import type { WebhooksService } from './service.js'
import { acceptEmptyJson } from './empty-json.js'

const ORGANIZATION = 'The organization is `organizationId` from the body or the query, else the demo organization; an unknown one is 404 `entity_not_found` (`organization`). ' +
  'An organization\'s control token acts on its own organization (naming another is 404).'

export default async function sandboxWebhookRoutes (app: FastifyInstance, { service }: { service: WebhooksService }): Promise<void> {
  acceptEmptyJson(app)

  /** The organization a call is about; it must exist. */
  async function organizationOf (request: FastifyRequest, named: { organizationId?: string } | null | undefined, query: { organizationId?: string }): Promise<string> {
    // An organization's control token acts on its own (naming another is 404).
    const organizationId = callerOrganization(request, named?.organizationId ?? query.organizationId) ?? app.config.demoClient.organizationId
    if (await app.storage.organizations.get(organizationId) === undefined) throw entityNotFound('organization')
    return organizationId
  }

  control(app, {
    id: 'sandboxListWebhookEndpoints',
    method: 'GET',
    url: '/_sandbox/webhooks/endpoints',
    acts: 'organization',
    summary: 'List webhook endpoints',
    description: `The endpoints of one organization, oldest first, with their signing secrets. ${ORGANIZATION}`,
    querystring: SandboxOrganizationQuery,
    responses: { 200: EndpointListResponse, 404: errorResponse('Unknown organization.') }
  }, async request => ({ endpoints: await service.listEndpoints(await organizationOf(request, undefined, request.query)) }))

  control(app, {
    id: 'sandboxCreateWebhookEndpoint',
    method: 'POST',
    url: '/_sandbox/webhooks/endpoints',
    acts: 'organization',
    summary: 'Add a webhook endpoint',
    description: 'Adds an endpoint as the portal does: an absolute http(s) `url`, optional `eventTypes` (from the event catalogue; empty or ' +
        `omitted: every event type), optional \`description\` and \`disabled\`. A signing secret (\`whsec_...\`) is generated. ${ORGANIZATION}`,
    querystring: SandboxOrganizationQuery,
    body: SandboxCreateEndpointRequest,
    responses: { 201: EndpointResponse, 404: errorResponse('Unknown organization.') }
  }, async (request, reply) => {
    const { organizationId: _, ...input } = request.body
    const endpoint = await service.createEndpoint(await organizationOf(request, request.body, request.query), input)
    return reply.code(201).send({ endpoint })
  })

  control(app, {
    id: 'sandboxUpdateWebhookEndpoint',
    method: 'PATCH',
    url: '/_sandbox/webhooks/endpoints/:id',
    acts: 'organization',
    summary: 'Change a webhook endpoint',
    description: 'Changes `url`, `description`, `eventTypes` or `disabled`. A disabled endpoint gets no new messages; its pending deliveries ' +
        `wait and go out once it is enabled again. ${ORGANIZATION} An endpoint of another organization is 404.`,
    params: EndpointIdParams,
    querystring: SandboxOrganizationQuery,
    body: SandboxUpdateEndpointRequest,
    responses: { 200: EndpointResponse, 404: errorResponse('Unknown organization or endpoint.') }
  }, async request => {
    const { id } = request.params
    const { organizationId: _, ...input } = request.body
    return { endpoint: await service.updateEndpoint(await organizationOf(request, request.body, request.query), id, input) }
  })

  control(app, {
    id: 'sandboxDeleteWebhookEndpoint',
    method: 'DELETE',
    url: '/_sandbox/webhooks/endpoints/:id',
    acts: 'organization',
    summary: 'Delete a webhook endpoint',
    description: `Deletes the endpoint with its messages and attempts. ${ORGANIZATION}`,
    params: EndpointIdParams,
    querystring: SandboxOrganizationQuery,
    body: SandboxOrganizationBody,
    responses: { 204: Type.Null({ description: 'Deleted.' }), 404: errorResponse('Unknown organization or endpoint.') }
  }, async (request, reply) => {
    const { id } = request.params
    await service.deleteEndpoint(await organizationOf(request, request.body, request.query), id)
    return reply.code(204).send()
  })

  control(app, {
    id: 'sandboxRotateWebhookEndpointSecret',
    method: 'POST',
    url: '/_sandbox/webhooks/endpoints/:id/rotate-secret',
    acts: 'organization',
    summary: 'Rotate a webhook endpoint\'s signing secret',
    description: 'Gives the endpoint a new signing secret (`secret` in the answer), as Standard Webhooks describes rotation: for ' +
        'WEBHOOK_SECRET_GRACE_SECONDS (default 24 hours, by the sandbox clock) the replaced secret keeps signing beside the new one, so ' +
        '`webhook-signature` carries two space-separated entries, `v1,<signature with the new secret> v1,<signature with the old one>`, ' +
        'and a receiver verifying with either accepts the delivery; `previousSecretExpiresAt` says until when. Afterwards only the new ' +
        'secret signs. Rotating again during the grace period drops the older secret at once. Disabled endpoints can be rotated. ' +
        `${ORGANIZATION} An endpoint of another organization is 404.`,
    params: EndpointIdParams,
    querystring: SandboxOrganizationQuery,
    body: SandboxOrganizationBody,
    responses: { 200: EndpointResponse, 404: errorResponse('Unknown organization or endpoint.') }
  }, async request => {
    const { id } = request.params
    return { endpoint: await service.rotateSecret(await organizationOf(request, request.body, request.query), id) }
  })

  control(app, {
    id: 'sandboxSendWebhookTestEvent',
    method: 'POST',
    url: '/_sandbox/webhooks/endpoints/:id/test',
    acts: 'organization',
    summary: 'Send a test event to an endpoint',
    description: 'Queues a `webhook.test` event (`data: { endpointId, message }`) for this endpoint only, whatever its filter, delivered, signed ' +
        `and retried like any event. ${ORGANIZATION}`,
    params: EndpointIdParams,
    querystring: SandboxOrganizationQuery,
    body: SandboxOrganizationBody,
    responses: { 202: MessageResponse, 404: errorResponse('Unknown organization or endpoint.'), 409: errorResponse('The endpoint is disabled (`endpoint_disabled`).') }
  }, async (request, reply) => {
    const { id } = request.params
    return reply.code(202).send({ message: await service.sendTestEvent(await organizationOf(request, request.body, request.query), id) })
  })

  control(app, {
    id: 'sandboxListWebhookMessages',
    method: 'GET',
    url: '/_sandbox/webhooks/messages',
    acts: 'organization',
    summary: 'List webhook messages',
    description: 'Recent messages, newest first, each with every delivery attempt (time, status code or error, duration, start of the answer). ' +
        'Without `organizationId`, every organization\'s messages.',
    querystring: SandboxMessageQuery,
    responses: { 200: MessageListResponse }
  }, async request => {
    const organizationId = callerOrganization(request, request.query.organizationId)
    return { messages: await service.listMessages({ ...request.query, ...(organizationId === undefined ? {} : { organizationId }) }) }
  })

  control(app, {
    id: 'sandboxReplayWebhookMessage',
    method: 'POST',
    url: '/_sandbox/webhooks/messages/:id/replay',
    acts: 'organization',
    summary: 'Replay a webhook message',
    description: 'Delivers the message again now, with the same `webhook-id` and a fresh retry schedule; the attempts follow in the message. ' +
        `${ORGANIZATION} The endpoint must be enabled (else 409 \`endpoint_disabled\`).`,
    params: MessageIdParams,
    querystring: SandboxOrganizationQuery,
    body: SandboxOrganizationBody,
    responses: { 202: MessageResponse, 404: errorResponse('Unknown organization or message.'), 409: errorResponse('The endpoint is disabled (`endpoint_disabled`).') }
  }, async (request, reply) => {
    const { id } = request.params
    return reply.code(202).send({ message: await service.replay(await organizationOf(request, request.body, request.query), id) })
  })
}
