// OAuth clients of the sandbox: create, list, read, delete, rotate the secret. All changes go
// through the client registry, so its caches (and the tokens they vouch for) stay right.
import type { FastifyInstance } from 'fastify'
import { randomBytes } from 'node:crypto'
import { ClientCreate, ClientList, ClientListQuery, ClientParams, RotateSecret, type ClientView } from '../../schemas/sandbox.js'
import { errorResponse } from '../../schemas/common.js'
import { conflict, entityNotFound, requestInvalid, type Violation } from '../errors.js'
import { generateSecret } from '../auth/clients.js'
import type { ClientRecord } from '../storage/index.js'
import { control, emptyBodyAsObject, noContent, ref } from '../kit/operation.js'
import { scopeViolation } from '../auth/scopes.js'

const view = (c: ClientRecord, clientSecret?: string): ClientView => ({
  clientId: c.id,
  ...(clientSecret === undefined ? {} : { clientSecret }),
  name: c.name,
  organizationId: c.organizationId,
  scopes: c.scopes,
  refreshTokens: c.refreshTokens,
  userId: c.userId,
  createdAt: c.createdAt
})

const notFound = (): Error => entityNotFound('client')

export default async function clients (app: FastifyInstance): Promise<void> {
  const clientNotFound = errorResponse('No client has this id (`entity_not_found`, `details.entity: "client"`).')

  control(app, {
    id: 'sandboxListClients',
    method: 'GET',
    url: '/_sandbox/clients',
    acts: 'global',
    summary: 'List clients',
    description: 'Every OAuth client (secrets are never shown again), oldest first; `organizationId` narrows to one organization.',
    querystring: ClientListQuery,
    responses: { 200: { description: 'The clients.', ...ClientList } }
  }, async (request) => ({ clients: (await app.storage.clients.list(request.query.organizationId)).map(c => view(c)) }))

  control(app, {
    id: 'sandboxCreateClient',
    method: 'POST',
    url: '/_sandbox/clients',
    acts: 'global',
    summary: 'Create a client',
    description: 'Creates an OAuth client. Without `clientId` or `clientSecret`, random ones are made; the secret is shown in this answer only. ' +
        'Without `organizationId` the client joins the demo organization; an organization id the sandbox does not know yet is created. ' +
        'With `userId` (a user of that organization) the client\'s tokens act as that user (subject `user`). ' +
        '`refreshTokens` (default false) makes client-credentials grants also issue refresh tokens.',
    body: ClientCreate,
    responses: {
      201: ref('SandboxClient', 'Created; carries `clientSecret`.'),
      404: errorResponse('`userId` is not a user of the organization (`entity_not_found`, `details.entity: "user"`).'),
      409: errorResponse('A client with this id exists (`client_already_exists`).')
    }
  }, async (request, reply) => {
    const body = request.body
    const violations: Violation[] = []
    for (const [i, s] of body.scopes.entries()) {
      const v = scopeViolation(app.config.partnerArea, s)
      if (v !== undefined) violations.push({ property: `scopes.${i}`, ...v })
    }
    if (violations.length > 0) throw requestInvalid('body', violations)

    const clientId = body.clientId ?? `client-${randomBytes(9).toString('base64url')}`
    const clientSecret = body.clientSecret ?? generateSecret()
    const organizationId = body.organizationId ?? app.config.demoClient.organizationId
    const exists = (): Error => conflict('client_already_exists', 'A client with this id already exists')
    if (await app.clients.get(clientId) !== undefined) throw exists()
    const userId = body.userId ?? null
    if (userId !== null && await app.storage.users.get(organizationId, userId) === undefined) throw entityNotFound('user')
    await app.storage.organizations.ensure(organizationId, `Organization ${organizationId.slice(0, 8)}`, app.clock.iso())
    const created = await app.clients.create({
      clientId,
      clientSecret,
      organizationId,
      name: body.name,
      scopes: body.scopes,
      refreshTokens: body.refreshTokens ?? false,
      userId
    })
    if (created === undefined) throw exists()
    return reply.code(201).send(view(created, clientSecret))
  })

  control(app, {
    id: 'sandboxGetClient',
    method: 'GET',
    url: '/_sandbox/clients/:clientId',
    acts: 'global',
    summary: 'Get a client',
    description: 'One client, without its secret.',
    params: ClientParams,
    responses: { 200: ref('SandboxClient', 'The client.'), 404: clientNotFound }
  }, async (request) => {
    const client = await app.clients.get(request.params.clientId)
    if (client === undefined) throw notFound()
    return view(client)
  })

  control(app, {
    id: 'sandboxDeleteClient',
    method: 'DELETE',
    url: '/_sandbox/clients/:clientId',
    acts: 'global',
    summary: 'Delete a client',
    description: 'Deletes the client and its refresh tokens; its access tokens are refused from now on (401 `token_revoked`). ' +
        'The demo client may be deleted too; a full reset creates it again.',
    params: ClientParams,
    responses: { 204: noContent('Deleted.'), 404: clientNotFound }
  }, async (request, reply) => {
    if (!await app.clients.delete(request.params.clientId)) throw notFound()
    return reply.code(204).send()
  })

  control(app, {
    id: 'sandboxRotateClientSecret',
    method: 'POST',
    url: '/_sandbox/clients/:clientId/rotate-secret',
    preValidation: emptyBodyAsObject,
    acts: 'global',
    summary: 'Rotate a client secret',
    description: 'Gives the client a new secret (the one in the body, else a random one, shown in this answer only). ' +
        'Every access and refresh token issued before is revoked (401 `token_revoked`, `invalid_grant`).',
    params: ClientParams,
    body: RotateSecret,
    responses: { 200: ref('SandboxClient', 'Rotated; carries the new `clientSecret`.'), 404: clientNotFound }
  }, async (request) => {
    const clientSecret = request.body?.clientSecret ?? generateSecret()
    const rotated = await app.clients.rotateSecret(request.params.clientId, clientSecret)
    if (rotated === undefined) throw notFound()
    return view(rotated, clientSecret)
  })
}
