// The users area: POST /core/users creates an individual user, with optional first metadata.
import type { FastifyInstance } from 'fastify'
import { operation } from '../kit/operation.js'
import { CreateUserRequest, CreateUserResponse } from '../../schemas/users.js'
import { createUser } from './service.js'
import { defineArea } from '../kit/area.js'
import { usersFixture } from './fixtures.js'

const CREATE = 'core.users:create'

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
}

export default defineArea({
  name: 'users',
  tags: [{ name: 'Users', description: 'Users of an organization.' }],
  fixtures: [usersFixture],
  // A user's metadata is reached by the acting user only: `me` or their own id.
  metadataEntities: [{ segment: 'users', name: 'user', param: 'userId', title: 'user', operation: 'User' }],
  plugin: usersRoutes
})
