// The partner area's KYC sharing: POST /<partner>/kyc-sharing/identify-user.
import type { FastifyInstance } from 'fastify'
import { commonErrorResponses, errorResponse } from '../../schemas/common.js'
import { IdentifiedUser, IdentifyUserRequest } from '../../schemas/kyc-sharing.js'
import { oauthSecurity } from '../auth/guard.js'
import { identifyUser } from './service.js'

export default async function kycSharingArea (app: FastifyInstance): Promise<void> {
  const partner = app.config.partnerArea
  const scope = `${partner}.kyc-sharing:identify-user`

  app.post(`/${partner}/kyc-sharing/identify-user`, {
    config: { auth: { scopes: [scope], subjects: ['client'] } },
    schema: {
      tags: ['KYC sharing'],
      summary: 'Identify a user for KYC sharing',
      operationId: 'identifyKycSharingUser',
      description: 'Finds the organization\'s user with this e-mail address (compared case-insensitively) and answers 200 with it; ' +
        'when there is none, creates an individual user whose address country and primary citizenship are `country`, records ' +
        '`core.user.created`, and answers 201. Identical concurrent requests create one user: the others answer 200 with it. ' +
        'A country listed in `UNSUPPORTED_COUNTRIES` (default CU, IR, KP, SY) is refused with 409 `country_not_supported`, ' +
        'for a known e-mail address too.',
      security: oauthSecurity([scope]),
      body: IdentifyUserRequest,
      response: {
        200: { description: 'A known user.', ...IdentifiedUser },
        201: { description: 'A new user was created.', ...IdentifiedUser },
        400: commonErrorResponses[400],
        401: commonErrorResponses[401],
        403: commonErrorResponses[403],
        409: errorResponse('The country is not supported (`country_not_supported`, `details: { context: "body", property: "country" }`).'),
        429: commonErrorResponses[429]
      }
    }
  }, async (request, reply) => {
    const { email, country } = request.body as IdentifyUserRequest
    const { user, created } = await identifyUser(app, request.auth!.organizationId, email, country)
    return reply.code(created ? 201 : 200).send({ user })
  })
}
