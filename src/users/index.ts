// The users area: POST /core/users creates an individual user, with optional first metadata;
// GET and DELETE /core/users/me read and delete the acting user.
import type { FastifyInstance } from 'fastify'
import { operation } from '../kit/operation.js'
import { CreateUserRequest, CreateUserResponse, DeleteUserRequest, GetUserResponse } from '../../schemas/users.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import { noContent } from '../kit/operation.js'
import { deleteUser, getUser } from './me.js'
import { createUser } from './service.js'
import { defineArea } from '../kit/area.js'
import { usersFixture } from './fixtures.js'

const CREATE = 'core.users:create'
const READ = 'core.users:read'
const DELETE = 'core.users:delete'

async function usersRoutes (app: FastifyInstance): Promise<void> {
  operation(app, {
    id: 'createUser',
    method: 'POST',
    url: '/core/users',
    tag: 'Users',
    scopes: [CREATE],
    subjects: ['client'],
    summary: 'Create a user',
    description: 'Creates an individual user of the organization and emits `core.user.created` (webhook payload `data: { user }`). ' +
        'The sandbox creates `individual` users only (`type` defaults to it); the terms-of-service version is checked, not kept on the user. ' +
        '`createdAt`, `updatedAt` and the `partnerOnboardedAt` and `birthdate` checks follow the sandbox clock; `partnerOnboardedAt` is answered in UTC. ' +
        'Countries listed in UNSUPPORTED_COUNTRIES are 409 `country_not_supported`; a subdivision of another country than `address.country` is 409 `subdivision_not_supported`. ' +
        'The e-mail is unique in the organization, compared case-insensitively. `metadata` over 1024 characters does not stop the creation: ' +
        'the user is created without metadata and `errors.metadata` holds the 413 body the metadata operations would answer.',
    body: CreateUserRequest,
    responses: {
      201: { description: 'Created; `errors` appears only when the metadata could not be stored.', ...CreateUserResponse },
      409: '`email_already_exists`, `country_not_supported` or `subdivision_not_supported` (`details: { context, property }`), or `date_invalid` (`partnerOnboardedAt` not in the past, or `birthdate` outside 18 to 100 years ago).',
      413: '`content_too_large`: the body is over the server\'s body limit.',
      415: '`media_type_unsupported`: the body is not `application/json`.'
    }
  }, async (request, reply) => {
    const created = await createUser(app, request.auth!.organizationId, request.body)
    return reply.code(201).send(created)
  })

  const headers = UserContextHeaders(app.config.serviceName)

  operation(app, {
    id: 'getUser',
    method: 'GET',
    url: '/core/users/me',
    tag: 'Users',
    scopes: [READ],
    subjects: ['user:business', 'user:individual'],
    summary: 'Get the user',
    description: 'The acting user (`X-On-Behalf-Of`, or the user a token is bound to) as stored: the fields given at creation, and the profile ' +
        'fields KYC updates write (`fullName`, `birthdate`, `address`, `phone`, ...). Individual or business, by `type`.',
    headers,
    responses: {
      200: { description: 'The user.', ...GetUserResponse },
      404: '`entity_not_found` (`details.entity: "user"`): the acting user no longer exists.'
    }
  }, async (request) => {
    const { organizationId, userId } = request.auth!
    return await getUser(app, organizationId, userId!)
  })

  operation(app, {
    id: 'deleteUser',
    method: 'DELETE',
    url: '/core/users/me',
    tag: 'Users',
    scopes: [DELETE],
    subjects: ['user:business', 'user:individual'],
    summary: 'Delete the user',
    description: 'Deletes the acting user and emits `core.user.deleted` (webhook payload `data: { user }`, the user as it was), in the same write. ' +
        'The user\'s metadata, files (with their bytes and metadata), other entities (with their metadata) and refresh tokens go with it; ' +
        'then every token bound to the user, and `X-On-Behalf-Of` the user, answer 404 `entity_not_found` (`user`). Clients bound to the user are kept. ' +
        'A user holding a balance is 409 `user_has_balance`, one with pending transactions 409 `user_has_pending_transactions` (as the ledger reports them; ' +
        'with no accounts or transactions in the sandbox yet, no user has either). The `review` is checked, not kept.',
    headers,
    body: DeleteUserRequest,
    responses: {
      204: noContent('Deleted.'),
      404: '`entity_not_found` (`details.entity: "user"`): the user was deleted already.',
      409: '`user_has_balance` or `user_has_pending_transactions`.',
      413: '`content_too_large`: the body is over the server\'s body limit.',
      415: '`media_type_unsupported`: the body is not `application/json`.'
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth!
    await deleteUser(app, organizationId, userId!)
    return reply.code(204).send()
  })
}

export default defineArea({
  name: 'users',
  tags: [{ name: 'Users', description: 'Users of an organization.' }],
  fixtures: [usersFixture],
  // A user's metadata is reached by the acting user only: `me` or their own id.
  metadataEntities: [{ segment: 'users', name: 'user', param: 'userId', title: 'user', operation: 'User' }],
  plugin: usersRoutes
})
