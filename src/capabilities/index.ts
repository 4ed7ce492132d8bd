// The capabilities area: the acting user's capabilities (derived by the evaluator), accepting the
// vIBAN terms of service, and the financial-promotions cooldown with its test helper.
import type { FastifyInstance } from 'fastify'
import { defineArea } from '../kit/area.js'
import { emptyBodyAsObject, noContent, operation } from '../kit/operation.js'
import { userContext } from '../http/user-context.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import { AcceptTermsParams, Capability, CapabilityAnswer, CapabilityList, CapabilityParams } from '../../schemas/capabilities.js'
import { TermsOfService } from '../../schemas/catalogue.js'
import { Type } from 'typebox'
import { migrations } from './migrations.js'
import { acceptTerms, assetCooldowns, followCooldowns, getCapability, listCapabilities, skipCooldowns, termsAcceptedAt } from './service.js'

const USERS = ['user:individual', 'user:business'] as const
/** The accepted terms: the catalogue's shape, inlined (its `$id` lives in the catalogue's context). */
const AcceptedTerms = Type.Object({ termsOfService: Type.Object(TermsOfService.properties) })

async function capabilitiesRoutes (app: FastifyInstance): Promise<void> {
  app.addSchema(Capability)
  const headers = UserContextHeaders(app.config.serviceName)
  const stop = followCooldowns(app)
  app.addHook('onClose', async () => { await stop() })

  operation(app, {
    id: 'listCapabilities',
    method: 'GET',
    url: '/core/capabilities',
    tag: 'Capabilities',
    scopes: ['core.capabilities:read'],
    subjects: USERS,
    summary: 'List capabilities',
    description: 'The acting user\'s 17 capabilities, derived from their KYC, terms of service, country of residence, cooldown and cards ' +
      '(the rules are the README\'s table). `enabled` is false only while a restriction is active; operations that need a capability answer ' +
      '409 `user_capability_failure` while it has restrictions or requirements.',
    headers,
    responses: { 200: { description: 'The capabilities.', ...CapabilityList } }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    return { capabilities: await listCapabilities(app, organizationId, userId) }
  })

  operation(app, {
    id: 'getCapability',
    method: 'GET',
    url: '/core/capabilities/:capability',
    tag: 'Capabilities',
    scopes: ['core.capabilities:read'],
    subjects: USERS,
    summary: 'Get a capability',
    description: 'One capability of the acting user by code; an unknown code is 400.',
    params: CapabilityParams,
    headers,
    responses: { 200: { description: 'The capability.', ...CapabilityAnswer } }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    return { capability: await getCapability(app, organizationId, userId, request.params.capability) }
  })

  operation(app, {
    id: 'acceptTermsOfService',
    method: 'POST',
    url: '/core/terms-of-service/:termsOfService/accept',
    tag: 'Terms of service',
    scopes: ['core.terms-of-service:accept'],
    subjects: ['user:business', 'user:individual'],
    summary: 'Accept terms of service',
    description: 'Records that the acting user accepted the terms (only the vIBAN terms are accepted through the API; the general ones at the user\'s creation). ' +
      'Needs the user\'s IP header; the terms must apply to the user\'s type and country of residence, and not be accepted yet. ' +
      'Once accepted, `acceptedAt` shows in the terms-of-service operations acting for the user.',
    params: AcceptTermsParams,
    headers,
    preValidation: emptyBodyAsObject,
    responses: {
      201: { description: 'Accepted.', ...AcceptedTerms },
      409: '`operation_not_allowed` with `details.reasons`: `missing-user-ip-header`, `terms-of-service-not-applicable` (user type or country) ' +
        'or `terms-of-service-already-accepted`.'
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    const ip = userContext(request, app.config.serviceName).ip
    return reply.code(201).send({ termsOfService: await acceptTerms(app, organizationId, userId, request.params.termsOfService, ip) })
  })

  operation(app, {
    id: 'skipAssetsCooldowns',
    method: 'PUT',
    url: '/core/assets/test-helpers/skip-assets-cooldowns',
    tag: 'Assets',
    scopes: ['core.assets:use-test-helpers'],
    subjects: USERS,
    summary: 'Skip assets cooldowns (test helper)',
    description: 'Ends the acting user\'s financial-promotions cooldown now, with `core.assets.cooldown-ended`: `buy` and `deposit` of the crypto assets ' +
      'and the capabilities it restricted come back. Without a running cooldown it does nothing. New individual users residing in GB have one ' +
      'for 24 hours from their creation, ended by the sandbox clock otherwise.',
    headers,
    preValidation: emptyBodyAsObject,
    responses: { 204: noContent('Cooldowns skipped.') }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    await skipCooldowns(app, organizationId, userId)
    return reply.code(204).send()
  })
}

export default defineArea({
  name: 'capabilities',
  tags: [{ name: 'Capabilities', description: 'What a user can do now, and what they must still provide.' }],
  migrations,
  userTerms: termsAcceptedAt,
  userCooldowns: assetCooldowns,
  plugin: capabilitiesRoutes
})
