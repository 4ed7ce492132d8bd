// The external accounts area: a user's cards and ACH bank accounts (add, list, get, relabel,
// delete), the card check finished on the sandbox clock, external accounts as owners of metadata
// and as sandbox entities.
import type { FastifyInstance } from 'fastify'
import { defineArea } from '../kit/area.js'
import { config } from './config.js'
import { noContent, operation } from '../kit/operation.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import {
  CreateExternalAccountAnswer, CreateExternalAccountRequest, EXTERNAL_ACCOUNT_SCHEMAS, ExternalAccountAnswer, ExternalAccountList,
  ExternalAccountParams, UpdateExternalAccountRequest
} from '../../schemas/external-accounts.js'
import { migrations } from './migrations.js'
import {
  createExternalAccount, deleteExternalAccount, externalAccountNotFound, externalAccountView, externalAccountsOf, followCardChecks, ownExternalAccount
} from './service.js'
import { cardLimitsOf, checkExternalAccountUpdatable, organizationPermissionsFixture } from './permissions.js'
import externalAccountControls, { externalAccountsSandboxEntity } from './sandbox.js'

const TAG = 'External accounts'
const USERS = ['user:business', 'user:individual'] as const
const NOT_FOUND = '`entity_not_found` (`details.entity: "external-account"`): no such external account of the acting user.'

async function externalAccountsRoutes (app: FastifyInstance): Promise<void> {
  for (const schema of EXTERNAL_ACCOUNT_SCHEMAS) app.addSchema(schema)
  const headers = UserContextHeaders(app.config.serviceName)
  const store = externalAccountsOf(app)
  const stop = followCardChecks(app)
  app.addHook('onClose', async () => { await stop() })

  operation(app, {
    id: 'createExternalAccount',
    method: 'POST',
    url: '/core/external-accounts',
    tag: TAG,
    scopes: ['core.external-accounts:create'],
    subjects: USERS,
    summary: 'Create an external account',
    description: 'Adds a card or an ACH bank account of the acting user and emits `core.external-account.created`. A type the organization is not ' +
      'configured for (`organizationPermissions` fixture key) is 409 `operation_not_allowed` (`permission-denied`). A card is then checked in this order: ' +
      'Luhn (409 `number_invalid`), expiry on the sandbox clock (`date_invalid`), the rail of its brand and currency (404 `rail`), duplicate ' +
      '(`duplicate`), credit (`card_type_not_allowed`), issuer country and declines (`operation_not_allowed`), then the organization\'s card limits ' +
      '(`organizationPermissions.cardLimits`, default 10 distinct cards ever added and 5 held: `user_capability_failure` with the restriction ' +
      '`user-unique-card-limit-reached`, which deleting a card does not lift, or the requirement `user-must-delete-card`) and the `cards` ' +
      'capability (`user_capability_failure`). It starts `processing` with no features and turns `ok` once the service\'s check ends ' +
      '(`CARD_CHECK_DELAY_SECONDS` later on the sandbox clock, or `POST /_sandbox/external-accounts/{externalAccountId}/status`); the number is ' +
      'never stored: answers show its brand, type, last four digits and expiry. Test card numbers decide the outcome (README). An ACH bank ' +
      'account is `ok` at once. `metadata` over 1024 characters does not stop the creation: `errors.metadata` holds the 413 body.',
    headers,
    body: CreateExternalAccountRequest,
    responses: {
      201: { description: 'Created; `errors` appears only when the metadata could not be stored.', ...CreateExternalAccountAnswer },
      404: '`entity_not_found` (`details.entity: "rail"`): no rail for the card\'s brand and currency.',
      409: '`duplicate`, `number_invalid`, `country_not_supported`, `subdivision_not_supported`, `postal_code_invalid`, `date_invalid`, ' +
        '`card_type_not_allowed`, `operation_not_allowed` (`permission-denied`, `card-issuer-country-mismatch`, `card-declined`, `card-permanently-declined`), ' +
        '`user_capability_failure` (`cards`) or `rail_feature_not_available`.'
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    return reply.code(201).send(await createExternalAccount(app, organizationId, userId, request.body))
  })

  operation(app, {
    id: 'listExternalAccounts',
    method: 'GET',
    url: '/core/external-accounts',
    tag: TAG,
    scopes: ['core.external-accounts:read'],
    subjects: USERS,
    summary: 'List external accounts',
    description: 'The acting user\'s external accounts, newest first.',
    headers,
    responses: { 200: { description: 'The external accounts.', ...ExternalAccountList } }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    return { externalAccounts: (await store.list(organizationId, userId)).map(externalAccountView) }
  })

  operation(app, {
    id: 'getExternalAccount',
    method: 'GET',
    url: '/core/external-accounts/:externalAccountId',
    tag: TAG,
    scopes: ['core.external-accounts:read'],
    subjects: USERS,
    summary: 'Get an external account',
    description: 'One external account of the acting user.',
    params: ExternalAccountParams,
    headers,
    responses: { 200: { description: 'The external account.', ...ExternalAccountAnswer }, 404: NOT_FOUND }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    return { externalAccount: externalAccountView(await ownExternalAccount(app, organizationId, userId, request.params.externalAccountId)) }
  })

  operation(app, {
    id: 'updateExternalAccount',
    method: 'PATCH',
    url: '/core/external-accounts/:externalAccountId',
    tag: TAG,
    scopes: ['core.external-accounts:update'],
    subjects: USERS,
    summary: 'Update an external account',
    description: 'Changes the label of one external account of the acting user: nothing else can be changed.',
    params: ExternalAccountParams,
    headers,
    body: UpdateExternalAccountRequest,
    responses: {
      200: { description: 'The external account as updated.', ...ExternalAccountAnswer },
      404: NOT_FOUND,
      409: '`operation_not_allowed` (`permission-denied`): the organization\'s external accounts cannot be updated (`organizationPermissions` fixture key).'
    }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const found = await ownExternalAccount(app, organizationId, userId, request.params.externalAccountId)
    await checkExternalAccountUpdatable(app, organizationId)
    const updated = await store.updateLabel(organizationId, found.id, request.body.label ?? found.label, app.clock.iso())
    if (updated === undefined) throw externalAccountNotFound()
    return { externalAccount: externalAccountView(updated) }
  })

  operation(app, {
    id: 'deleteExternalAccount',
    method: 'DELETE',
    url: '/core/external-accounts/:externalAccountId',
    tag: TAG,
    scopes: ['core.external-accounts:delete'],
    subjects: USERS,
    summary: 'Delete an external account',
    description: 'Deletes one external account of the acting user, with its metadata, and emits `core.external-account.deleted`.',
    params: ExternalAccountParams,
    headers,
    responses: { 204: noContent('Deleted.'), 404: NOT_FOUND }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    await deleteExternalAccount(app, organizationId, userId, request.params.externalAccountId)
    return reply.code(204).send()
  })

  await app.register(externalAccountControls)
}

export default defineArea({
  config,
  name: 'external-accounts',
  tags: [{ name: TAG, description: 'A user\'s cards and bank accounts outside the service, which funds come from and go to.' }],
  migrations,
  metadataEntities: [{
    segment: 'external-accounts',
    name: 'external-account',
    param: 'externalAccountId',
    title: 'external account',
    operation: 'ExternalAccount',
    ownerOf: async (app, organizationId, id) => (await externalAccountsOf(app).get(organizationId, id))?.userId
  }],
  fixtures: [organizationPermissionsFixture],
  sandboxEntities: [externalAccountsSandboxEntity],
  userCards: async (app, organizationId, userId) => {
    const { active, unique } = await externalAccountsOf(app).cardCounts(organizationId, userId)
    return { active, unique, limits: await cardLimitsOf(app, organizationId) }
  },
  // A deleted user's external accounts go with them, their metadata too.
  removeUser: app => {
    const store = externalAccountsOf(app)
    return async (organizationId, userId) => { await store.removeUserAccounts(organizationId, userId) }
  },
  plugin: externalAccountsRoutes
})
