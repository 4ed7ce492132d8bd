// The webhooks portal behind a management link: GET /webhooks/portal/<token> serves the page, its
// assets sit under /webhooks/portal/assets/, and its JSON API under /webhooks/portal/<token>/api/.
// The token is checked on every call against the sandbox clock: unknown 401, expired 410.
//
// These routes are hidden from the OpenAPI document: the API is the page's own (authenticated by
// the link, not OAuth) and may change with it; the same operations are a documented contract under
// /_sandbox/webhooks/.
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { ApiError } from '../../errors.js'
import { errorResponse } from '../../../schemas/common.js'
import {
  CreateEndpointRequest, EndpointIdParams, EndpointListResponse, EndpointResponse, MessageIdParams, MessageListResponse,
  MessageQuery, MessageResponse, UpdateEndpointRequest
} from '../../../schemas/webhooks.js'
import { PORTAL_PATH, type WebhooksService } from '../service.js'
import { linkStatePage, portalPage } from './page.js'
import { PORTAL_CSS } from './styles.js'
import { PORTAL_JS } from './script.js'
import { onOrganizationClock } from '../../auth/guard.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The organization of the management link that opened the portal's API. */
    portalOrganizationId: string
  }
}

const linkInvalid = (): ApiError => new ApiError(401, 'management_link_invalid', 'The management link is invalid')
const linkExpired = (expiresAt: number): ApiError =>
  new ApiError(410, 'management_link_expired', 'The management link has expired', { expiresAt: new Date(expiresAt).toISOString() })

// Same origin only, nothing inline, no framing; no Referer, since the page's URL is a credential.
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store'
}

const TokenParams = Type.Object({ token: Type.String({ maxLength: 128 }) })
const linkErrors = {
  401: errorResponse('The management link is unknown (`management_link_invalid`).'),
  410: errorResponse('The management link has expired (`management_link_expired`).')
}
const common = { tags: ['Webhooks'], hide: true }

export default async function portalRoutes (app: FastifyInstance, { service }: { service: WebhooksService }): Promise<void> {
  app.addHook('onSend', async (_request, reply: FastifyReply, payload) => {
    reply.headers(PAGE_HEADERS)
    return payload
  })

  const asset = (name: string, type: string, body: string): void => {
    app.get(`${PORTAL_PATH}/assets/${name}`, { schema: { ...common, summary: `Portal ${name}` } }, async (_request, reply) =>
      reply.type(type).send(body))
  }
  asset('portal.css', 'text/css; charset=utf-8', PORTAL_CSS)
  asset('portal.js', 'text/javascript; charset=utf-8', PORTAL_JS)

  app.withTypeProvider<TypeBoxTypeProvider>().get(`${PORTAL_PATH}/:token`, {
    schema: { ...common, summary: 'Webhooks portal page', params: TokenParams }
  }, async (request, reply) => {
    const { token } = request.params
    const link = await service.linkState(token)
    reply.type('text/html; charset=utf-8')
    if (link.state === 'invalid') return reply.code(401).send(linkStatePage('invalid'))
    if (link.state === 'expired') return reply.code(410).send(linkStatePage('expired', new Date(link.expiresAt).toISOString()))
    return reply.send(portalPage(link.organizationId, new Date(link.expiresAt).toISOString()))
  })

  await app.register(async api => {
    api.decorateRequest('portalOrganizationId', '')
    // Before the params are validated: every route of this plugin has `:token` in its path. The
    // portal's calls run on the link's organization's clock.
    api.addHook<{ Params: { token?: string } }>('onRequest', (request, _reply, done) => {
      const { token } = request.params
      service.linkState(token ?? '').then(link => {
        if (link.state === 'invalid') throw linkInvalid()
        if (link.state === 'expired') throw linkExpired(link.expiresAt)
        request.portalOrganizationId = link.organizationId
        onOrganizationClock(app, request, link.organizationId, done)
      }).catch((error: unknown) => { done(error as Error) })
    })

    const base = `${PORTAL_PATH}/:token/api`
    const withId = Type.Object({ ...TokenParams.properties, ...EndpointIdParams.properties })
    const withMessageId = Type.Object({ ...TokenParams.properties, ...MessageIdParams.properties })
    // Handlers read params, query and body with the types of their schemas.
    const typed = api.withTypeProvider<TypeBoxTypeProvider>()

    typed.get(`${base}/endpoints`, {
      schema: { ...common, summary: 'List endpoints', params: TokenParams, response: { 200: EndpointListResponse, ...linkErrors } }
    }, async request => ({ endpoints: await service.listEndpoints(request.portalOrganizationId) }))

    typed.post(`${base}/endpoints`, {
      schema: {
        ...common,
        summary: 'Add an endpoint',
        params: TokenParams,
        body: CreateEndpointRequest,
        response: { 201: EndpointResponse, 400: errorResponse('Invalid endpoint.'), ...linkErrors }
      }
    }, async (request, reply) => {
      const endpoint = await service.createEndpoint(request.portalOrganizationId, request.body)
      return reply.code(201).send({ endpoint })
    })

    typed.patch(`${base}/endpoints/:id`, {
      schema: {
        ...common,
        summary: 'Change an endpoint',
        params: withId,
        body: UpdateEndpointRequest,
        response: { 200: EndpointResponse, 400: errorResponse('Invalid change.'), 404: errorResponse('No such endpoint.'), ...linkErrors }
      }
    }, async request => {
      const { id } = request.params
      return { endpoint: await service.updateEndpoint(request.portalOrganizationId, id, request.body) }
    })

    typed.delete(`${base}/endpoints/:id`, {
      schema: {
        ...common,
        summary: 'Delete an endpoint',
        params: withId,
        response: { 204: Type.Null({ description: 'Deleted with its messages.' }), 404: errorResponse('No such endpoint.'), ...linkErrors }
      }
    }, async (request, reply) => {
      const { id } = request.params
      await service.deleteEndpoint(request.portalOrganizationId, id)
      return reply.code(204).send(null)
    })

    typed.post(`${base}/endpoints/:id/rotate-secret`, {
      schema: {
        ...common,
        summary: 'Rotate the signing secret',
        params: withId,
        response: { 200: EndpointResponse, 404: errorResponse('No such endpoint.'), ...linkErrors }
      }
    }, async request => {
      const { id } = request.params
      return { endpoint: await service.rotateSecret(request.portalOrganizationId, id) }
    })

    typed.post(`${base}/endpoints/:id/test`, {
      schema: {
        ...common,
        summary: 'Send a test event',
        params: withId,
        response: { 202: MessageResponse, 404: errorResponse('No such endpoint.'), 409: errorResponse('The endpoint is disabled.'), ...linkErrors }
      }
    }, async (request, reply) => {
      const { id } = request.params
      return reply.code(202).send({ message: await service.sendTestEvent(request.portalOrganizationId, id) })
    })

    typed.get(`${base}/messages`, {
      schema: { ...common, summary: 'List recent messages', params: TokenParams, querystring: MessageQuery, response: { 200: MessageListResponse, ...linkErrors } }
    }, async request => {
      return { messages: await service.listMessages({ ...request.query, organizationId: request.portalOrganizationId }) }
    })

    typed.post(`${base}/messages/:id/replay`, {
      schema: {
        ...common,
        summary: 'Replay a message',
        params: withMessageId,
        response: { 202: MessageResponse, 404: errorResponse('No such message.'), 409: errorResponse('The endpoint is disabled.'), ...linkErrors }
      }
    }, async (request, reply) => {
      const { id } = request.params
      return reply.code(202).send({ message: await service.replay(request.portalOrganizationId, id) })
    })
  })
}
