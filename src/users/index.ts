// The users area: POST /core/users creates an individual user, with optional first metadata.
import type { FastifyInstance } from 'fastify'
import { oauthSecurity } from '../auth/guard.js'
import { commonErrorResponses, errorResponse } from '../../schemas/common.js'
import { CreateUserRequest, CreateUserResponse } from '../../schemas/users.js'
import { createUser, type NewUser } from './service.js'

const CREATE = 'core.users:create'

export default async function usersArea (app: FastifyInstance): Promise<void> {
  app.post('/core/users', {
    config: { auth: { scopes: [CREATE], subjects: ['client'] } },
    schema: {
      tags: ['Users'],
      summary: 'Create a user',
      operationId: 'createUser',
      description: 'Creates an individual user of the organization and emits `core.user.created` (webhook payload `data: { user }`). ' +
        'The sandbox creates `individual` users only (`type` defaults to it); the terms-of-service version is checked, not kept on the user. ' +
        '`createdAt`, `updatedAt` and the `partnerOnboardedAt` and `birthdate` checks follow the sandbox clock; `partnerOnboardedAt` is answered in UTC. ' +
        'Countries listed in UNSUPPORTED_COUNTRIES are 409 `country_not_supported`; a subdivision of another country than `address.country` is 409 `subdivision_not_supported`. ' +
        'The e-mail is unique in the organization, compared case-insensitively. `metadata` over 1024 characters does not stop the creation: ' +
        'the user is created without metadata and `errors.metadata` holds the 413 body the metadata operations would answer.',
      security: oauthSecurity([CREATE]),
      body: CreateUserRequest,
      response: {
        201: { description: 'Created; `errors` appears only when the metadata could not be stored.', ...CreateUserResponse },
        400: commonErrorResponses[400],
        401: commonErrorResponses[401],
        403: commonErrorResponses[403],
        409: errorResponse('`email_already_exists`, `country_not_supported` or `subdivision_not_supported` (`details: { context, property }`), or `date_invalid` (`partnerOnboardedAt` not in the past, or `birthdate` outside 18 to 100 years ago).'),
        413: errorResponse('`content_too_large`: the body is over the server\'s body limit.'),
        415: errorResponse('`media_type_unsupported`: the body is not `application/json`.'),
        429: commonErrorResponses[429]
      }
    }
  }, async (request, reply) => {
    const created = await createUser(app, request.auth!.organizationId, request.body as NewUser)
    return reply.code(201).send(created)
  })
}
