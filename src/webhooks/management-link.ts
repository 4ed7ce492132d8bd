// POST /core/webhooks/management-link: a link to the webhooks portal of the caller's organization.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ManagementLinkResponse } from '../../schemas/webhooks.js'
import { operation } from '../kit/operation.js'
import type { WebhooksService } from './service.js'
import { acceptEmptyJson } from './empty-json.js'

const SCOPE = 'core.webhooks:management-link'

/** PUBLIC_URL when set; otherwise the address the caller reached us at (the listening address without a Host header). */
function baseUrl (app: FastifyInstance, request: FastifyRequest): string {
  if (app.config.publicUrl !== '') return app.config.publicUrl
  const host = request.host !== undefined && request.host !== '' ? request.host : `${app.config.host}:${app.config.port}`
  return `${request.protocol}://${host}`
}

export default async function managementLinkRoutes (app: FastifyInstance, { service }: { service: WebhooksService }): Promise<void> {
  acceptEmptyJson(app)

  operation(app, {
    id: 'createWebhookManagementLink',
    method: 'POST',
    url: '/core/webhooks/management-link',
    tag: 'Webhooks',
    scopes: [SCOPE],
    subjects: ['client'],
    summary: 'Request a webhook management link',
    description: 'Creates a link to the webhooks portal of the caller\'s organization: a page served by this sandbox where a person adds ' +
        'endpoints (with event-type filters), sees their signing secrets, disables or deletes them, sends a test event (`webhook.test`), ' +
        'and sees recent messages with every delivery attempt and replays them. No request body. ' +
        'The link works until `expiresAt` (`MANAGEMENT_LINK_TTL_SECONDS`, default 3600, by the sandbox clock); afterwards the page answers 410. ' +
        'The URL starts with `PUBLIC_URL`, or with the scheme and `Host` of this request when none is set. ' +
        'The URL carries a secret token: anyone holding it manages the organization\'s webhooks until it expires.\n\n' +
        'Deliveries follow Standard Webhooks: `POST` with `content-type: application/json`, headers `webhook-id` (`msg_...`, the same on every ' +
        'attempt of a message), `webhook-timestamp` (sandbox-clock seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` ' +
        'keyed with the base64-decoded part of the endpoint\'s `whsec_` secret); body `{ id, type, createdAt, data }`. Any answer other than 2xx, ' +
        'a redirect included, or no answer within `WEBHOOK_TIMEOUT_MS` is retried after each delay of `WEBHOOK_RETRY_SCHEDULE` (sandbox-clock seconds), ' +
        'then the message has failed. Every attempt is kept, and deliveries pending at a restart resume. ' +
      'An endpoint gets its messages one at a time, in the order of their events: each waits until the one before it is delivered or has failed for good.',
    responses: {
      201: { description: 'Link created.', ...ManagementLinkResponse }
    }
  }, async (request, reply) => {
    const managementLink = await service.createManagementLink(request.auth.organizationId, baseUrl(app, request))
    return reply.code(201).send({ managementLink })
  })
}
