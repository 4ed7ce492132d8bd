// The partner area's KYC sharing: POST /<partner>/kyc-sharing/identify-user.
import type { FastifyInstance } from 'fastify'
import { IdentifiedUser, IdentifyUserRequest } from '../../schemas/kyc-sharing.js'
import { operation } from '../kit/operation.js'
import { identifyUser } from './service.js'
import { defineArea } from '../kit/area.js'

async function kycSharingRoutes (app: FastifyInstance): Promise<void> {
  const partner = app.config.partnerArea
  const scope = `${partner}.kyc-sharing:identify-user`

  operation(app, {
    id: 'identifyKycSharingUser',
    method: 'POST',
    url: `/${partner}/kyc-sharing/identify-user`,
    tag: 'KYC sharing',
    scopes: [scope],
    subjects: ['client'],
    summary: 'Identify a user for KYC sharing',
    description: 'Finds the organization\'s user with this e-mail address (compared case-insensitively) and answers 200 with it; ' +
      'when there is none, creates an individual user whose address country and primary citizenship are `country`, records ' +
      '`core.user.created`, and answers 201. Identical concurrent requests create one user: the others answer 200 with it. ' +
      'A country listed in `UNSUPPORTED_COUNTRIES` (default CU, IR, KP, SY) is refused with 409 `country_not_supported`, ' +
      'for a known e-mail address too.',
    body: IdentifyUserRequest,
    responses: {
      200: { description: 'A known user.', ...IdentifiedUser },
      201: { description: 'A new user was created.', ...IdentifiedUser },
      409: 'The country is not supported (`country_not_supported`, `details: { context: "body", property: "country" }`).'
    }
  }, async (request, reply) => {
    const { email, country } = request.body
    const { user, created } = await identifyUser(app, request.auth!.organizationId, email, country)
    return reply.code(created ? 201 : 200).send({ user })
  })
}

export default defineArea({
  name: 'kyc-sharing',
  tags: [{ name: 'KYC sharing', description: 'Partner area: identify users for KYC sharing.' }],
  plugin: kycSharingRoutes
})
