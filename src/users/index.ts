// The users area: POST /core/users creates an individual user, with optional first metadata;
// GET and DELETE /core/users/me read and delete the acting user.
import type { FastifyInstance } from 'fastify'
import { operation } from '../kit/operation.js'
import { CreateUserRequest, CreateUserResponse, DeleteUserRequest, GetUserResponse } from '../../schemas/users.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import { noContent } from '../kit/operation.js'
import { deleteUser, getUser } from './me.js'
import { checkNewUser, createUser } from './service.js'
import { headerDisplayName, requireUserContext, userContext } from '../http/user-context.js'
import { defineArea } from '../kit/area.js'
import { usersFixture } from './fixtures.js'

const CREATE = 'core.users:create'
const READ = 'core.users:read'
const DELETE = 'core.users:delete'

async function usersRoutes (app: FastifyInstance): Promise<void> {
  const headers = UserContextHeaders(app.config.serviceName)
  const ipHeader = headerDisplayName(`x-${app.config.serviceName}-user-ip`)

  operation(app, {
    id: 'createUser',
    method: 'POST',
    url: '/core/users',
    tag: 'Users',
    scopes: [CREATE],
    subjects: ['client'],
    summary: 'Create a user',
    description: 'Creates an individual user of the organization and emits `core.user.created` (webhook payload `data: { user }`). ' +
        `It needs the end user's \`${ipHeader}\` (409 \`operation_not_allowed\`, \`missing-user-ip-header\`, before any other check of the body). ` +
        'The sandbox creates `individual` users only (`type` defaults to it); the terms-of-service version is checked, not kept on the user. ' +
        '`createdAt`, `updatedAt` and the `partnerOnboardedAt` and `birthdate` checks follow the sandbox clock; `partnerOnboardedAt` is answered in UTC. ' +
        'Then, the first that fails, in this order: countries restricted in their scope or listed in UNSUPPORTED_COUNTRIES (409 `country_not_supported`: ' +
        '`primaryCitizenship`, `address.country`, `phone.country`); a US address without a subdivision (`subdivision_required`); a subdivision of another ' +
        'country than `address.country`, one no country has (`US-ZZ`) or one closed to residents (`subdivision_not_supported`); terms of service other than ' +
        'the general terms of the country of residence (`terms_of_service_mismatch`: general-us-hq for US, general-gb-fca for GB, general-pt-bop for PT, ' +
        'general-lt-fcs for the rest of the EEA, general-bs-scb elsewhere); an e-mail address at a `.invalid` or `.localhost` domain ' +
        '(`email_incorrect_or_disallowed`); a full name with anything but letters, marks, spaces, apostrophes, dots and dashes (`invalid_characters`); ' +
        'a PO box in an address line (`po_boxes_not_allowed`); a postal code that does not fit the country (`postal_code_invalid`: US five digits or ' +
        'ZIP+4, elsewhere 2 to 10 letters, digits, spaces or dashes); a phone number of fewer than 7 digits (`phone_invalid`) or another user\'s ' +
        '(`phone_already_exists`); `partnerOnboardedAt` not in the past or a birthdate outside 18 to 100 years ago (`date_invalid`). ' +
        'The e-mail is unique in the organization, compared case-insensitively (`email_already_exists`). These are the checks the KYC updates make of the ' +
        'same data, with the same answers. `metadata` over 1024 characters does not stop the creation: ' +
        'the user is created without metadata and `errors.metadata` holds the 413 body the metadata operations would answer.',
    headers,
    body: CreateUserRequest,
    responses: {
      201: { description: 'Created; `errors` appears only when the metadata could not be stored.', ...CreateUserResponse },
      409: '`operation_not_allowed` (`missing-user-ip-header`), `country_not_supported`, `subdivision_required`, `subdivision_not_supported`, ' +
        '`terms_of_service_mismatch`, `email_incorrect_or_disallowed`, `invalid_characters`, `po_boxes_not_allowed`, `postal_code_invalid`, `phone_invalid`, ' +
        '`phone_already_exists`, `date_invalid` or `email_already_exists` (`details: { context, property }` where a property is named).',
      413: '`content_too_large`: the body is over the server\'s body limit.',
      415: '`media_type_unsupported`: the body is not `application/json`.'
    }
  }, async (request, reply) => {
    const { organizationId } = request.auth
    requireUserContext(userContext(request, app.config.serviceName), ['ip'], app.config.serviceName)
    await checkNewUser(app, organizationId, request.body)
    const created = await createUser(app, organizationId, request.body)
    return reply.code(201).send(created)
  })

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
    const { organizationId, userId } = request.auth
    return await getUser(app, organizationId, userId)
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
    const { organizationId, userId } = request.auth
    await deleteUser(app, organizationId, userId)
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
