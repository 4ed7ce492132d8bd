// The portal's operations as JSON under /_sandbox/webhooks, for scripts and the dashboard. Each
// call works on one organization, named by `organizationId` in the body or the query (the demo
// organization when neither is given); listing messages without one lists every organization's.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { entityNotFound } from '../errors.js'
import { adminSecurity } from '../auth/guard.js'
import { errorResponse } from '../../schemas/common.js'
import {
  EndpointIdParams, EndpointListResponse, EndpointResponse, MessageIdParams, MessageListResponse, MessageResponse,
  SandboxCreateEndpointRequest, SandboxMessageQuery, SandboxOrganizationBody, SandboxOrganizationQuery, SandboxUpdateEndpointRequest,
  type CreateEndpointRequest, type UpdateEndpointRequest
} from '../../schemas/webhooks.js'
import type { WebhooksService } from './service.js'
import { acceptEmptyJson } from './empty-json.js'

const ORGANIZATION = 'The organization is `organizationId` from the body or the query, else the demo organization; an unknown one is 404 `entity_not_found` (`organization`).'
const admin = { admin: true }
const common = { tags: ['Sandbox'], security: adminSecurity }
const adminErrors = {
  400: errorResponse('Invalid parameters (`request_invalid`).'),
  401: errorResponse('The sandbox admin token is missing or wrong (only when SANDBOX_ADMIN_TOKEN is set).')
}

export default async function sandboxWebhookRoutes (app: FastifyInstance, { service }: { service: WebhooksService }): Promise<void> {
  acceptEmptyJson(app)

  /** The organization a call is about; it must exist. */
  async function organizationOf (request: FastifyRequest): Promise<string> {
    const body = request.body as { organizationId?: string } | null | undefined
    const query = request.query as { organizationId?: string } | undefined
    const organizationId = body?.organizationId ?? query?.organizationId ?? app.config.demoClient.organizationId
    if (await app.storage.organizations.get(organizationId) === undefined) throw entityNotFound('organization')
    return organizationId
  }

  app.get('/_sandbox/webhooks/endpoints', {
    config: admin,
    schema: {
      ...common,
      summary: 'List webhook endpoints',
      operationId: 'sandboxListWebhookEndpoints',
      description: `The endpoints of one organization, oldest first, with their signing secrets. ${ORGANIZATION}`,
      querystring: SandboxOrganizationQuery,
      response: { 200: EndpointListResponse, ...adminErrors, 404: errorResponse('Unknown organization.') }
    }
  }, async request => ({ endpoints: await service.listEndpoints(await organizationOf(request)) }))

  app.post('/_sandbox/webhooks/endpoints', {
    config: admin,
    schema: {
      ...common,
      summary: 'Add a webhook endpoint',
      operationId: 'sandboxCreateWebhookEndpoint',
      description: 'Adds an endpoint as the portal does: an absolute http(s) `url`, optional `eventTypes` (from the event catalogue; empty or ' +
        `omitted: every event type), optional \`description\` and \`disabled\`. A signing secret (\`whsec_...\`) is generated. ${ORGANIZATION}`,
      querystring: SandboxOrganizationQuery,
      body: SandboxCreateEndpointRequest,
      response: { 201: EndpointResponse, ...adminErrors, 404: errorResponse('Unknown organization.') }
    }
  }, async (request, reply) => {
    const { organizationId: _, ...input } = request.body as CreateEndpointRequest & { organizationId?: string }
    const endpoint = await service.createEndpoint(await organizationOf(request), input)
    return reply.code(201).send({ endpoint })
  })

  app.patch('/_sandbox/webhooks/endpoints/:id', {
    config: admin,
    schema: {
      ...common,
      summary: 'Change a webhook endpoint',
      operationId: 'sandboxUpdateWebhookEndpoint',
      description: 'Changes `url`, `description`, `eventTypes` or `disabled`. A disabled endpoint gets no new messages; its pending deliveries ' +
        `wait and go out once it is enabled again. ${ORGANIZATION} An endpoint of another organization is 404.`,
      params: EndpointIdParams,
      querystring: SandboxOrganizationQuery,
      body: SandboxUpdateEndpointRequest,
      response: { 200: EndpointResponse, ...adminErrors, 404: errorResponse('Unknown organization or endpoint.') }
    }
  }, async request => {
    const { id } = request.params as { id: string }
    const { organizationId: _, ...input } = request.body as UpdateEndpointRequest & { organizationId?: string }
    return { endpoint: await service.updateEndpoint(await organizationOf(request), id, input) }
  })

  app.delete('/_sandbox/webhooks/endpoints/:id', {
    config: admin,
    schema: {
      ...common,
      summary: 'Delete a webhook endpoint',
      operationId: 'sandboxDeleteWebhookEndpoint',
      description: `Deletes the endpoint with its messages and attempts. ${ORGANIZATION}`,
      params: EndpointIdParams,
      querystring: SandboxOrganizationQuery,
      body: SandboxOrganizationBody,
      response: { 204: Type.Null({ description: 'Deleted.' }), ...adminErrors, 404: errorResponse('Unknown organization or endpoint.') }
    }
  }, async (request, reply) => {
    const { id } = request.params as { id: string }
    await service.deleteEndpoint(await organizationOf(request), id)
    return reply.code(204).send()
  })

  app.post('/_sandbox/webhooks/endpoints/:id/rotate-secret', {
    config: admin,
    schema: {
      ...common,
      summary: 'Rotate a webhook endpoint\'s signing secret',
      operationId: 'sandboxRotateWebhookEndpointSecret',
      description: 'Gives the endpoint a new signing secret (`secret` in the answer), as Standard Webhooks describes rotation: for ' +
        'WEBHOOK_SECRET_GRACE_SECONDS (default 24 hours, by the sandbox clock) the replaced secret keeps signing beside the new one, so ' +
        '`webhook-signature` carries two space-separated entries, `v1,<signature with the new secret> v1,<signature with the old one>`, ' +
        'and a receiver verifying with either accepts the delivery; `previousSecretExpiresAt` says until when. Afterwards only the new ' +
        'secret signs. Rotating again during the grace period drops the older secret at once. Disabled endpoints can be rotated. ' +
        `${ORGANIZATION} An endpoint of another organization is 404.`,
      params: EndpointIdParams,
      querystring: SandboxOrganizationQuery,
      body: SandboxOrganizationBody,
      response: { 200: EndpointResponse, ...adminErrors, 404: errorResponse('Unknown organization or endpoint.') }
    }
  }, async request => {
    const { id } = request.params as { id: string }
    return { endpoint: await service.rotateSecret(await organizationOf(request), id) }
  })

  app.post('/_sandbox/webhooks/endpoints/:id/test', {
    config: admin,
    schema: {
      ...common,
      summary: 'Send a test event to an endpoint',
      operationId: 'sandboxSendWebhookTestEvent',
      description: 'Queues a `webhook.test` event (`data: { endpointId, message }`) for this endpoint only, whatever its filter, delivered, signed ' +
        `and retried like any event. ${ORGANIZATION}`,
      params: EndpointIdParams,
      querystring: SandboxOrganizationQuery,
      body: SandboxOrganizationBody,
      response: { 202: MessageResponse, ...adminErrors, 404: errorResponse('Unknown organization or endpoint.'), 409: errorResponse('The endpoint is disabled (`endpoint_disabled`).') }
    }
  }, async (request, reply) => {
    const { id } = request.params as { id: string }
    return reply.code(202).send({ message: await service.sendTestEvent(await organizationOf(request), id) })
  })

  app.get('/_sandbox/webhooks/messages', {
    config: admin,
    schema: {
      ...common,
      summary: 'List webhook messages',
      operationId: 'sandboxListWebhookMessages',
      description: 'Recent messages, newest first, each with every delivery attempt (time, status code or error, duration, start of the answer). ' +
        'Without `organizationId`, every organization\'s messages.',
      querystring: SandboxMessageQuery,
      response: { 200: MessageListResponse, ...adminErrors }
    }
  }, async request => {
    const query = request.query as { organizationId?: string, endpointId?: string, status?: 'pending' | 'delivered' | 'failed', limit?: number }
    return { messages: await service.listMessages(query) }
  })

  app.post('/_sandbox/webhooks/messages/:id/replay', {
    config: admin,
    schema: {
      ...common,
      summary: 'Replay a webhook message',
      operationId: 'sandboxReplayWebhookMessage',
      description: 'Delivers the message again now, with the same `webhook-id` and a fresh retry schedule; the attempts follow in the message. ' +
        `${ORGANIZATION} The endpoint must be enabled (else 409 \`endpoint_disabled\`).`,
      params: MessageIdParams,
      querystring: SandboxOrganizationQuery,
      body: SandboxOrganizationBody,
      response: { 202: MessageResponse, ...adminErrors, 404: errorResponse('Unknown organization or message.'), 409: errorResponse('The endpoint is disabled (`endpoint_disabled`).') }
    }
  }, async (request, reply) => {
    const { id } = request.params as { id: string }
    return reply.code(202).send({ message: await service.replay(await organizationOf(request), id) })
  })
}
