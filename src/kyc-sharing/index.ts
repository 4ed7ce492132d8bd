// The partner area's KYC sharing: POST /<partner>/kyc-sharing/identify-user.
import type { FastifyInstance } from 'fastify'
import { IdentifiedUser, IdentifyUserRequest } from '../../schemas/kyc-sharing.js'
import { KycSharingSession, KycSharingSessionRequest } from '../../schemas/kyc.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import { operation } from '../kit/operation.js'
import { createSession, SESSION_TTL_SECONDS } from './sessions.js'
import { identifyUser } from './service.js'
import { defineArea } from '../kit/area.js'
import { config } from './config.js'

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
    const { user, created } = await identifyUser(app, request.auth.organizationId, email, country)
    return reply.code(created ? 201 : 200).send({ user })
  })

  operation(app, {
    id: 'createKycSharingSession',
    method: 'POST',
    url: `/${partner}/kyc-sharing/sessions`,
    tag: 'KYC sharing',
    scopes: [`${partner}.kyc-sharing:create-session`],
    subjects: ['client'],
    summary: 'Create a KYC sharing session',
    description: 'Lists the shareable KYC processes (profile, address, email, phone, identity) the organization\'s user has not completed (neither `ok` nor `exempt`), ' +
      `and answers 201 with a ${SESSION_TTL_SECONDS} s access token of that user whose scopes are exactly the updates of those processes (\`core.kyc.<process>:update\`), ` +
      'for the partner to send what it verified. A user missing none answers 200 `{ processes: [] }` without a token. ' +
      'An organization configured without KYC sharing (fixture `kycModels`, `kycSharing: false`) is refused.',
    body: KycSharingSessionRequest,
    headers: UserContextHeaders(app.config.serviceName),
    responses: {
      200: { description: 'Nothing to share: the user misses none of the processes.', ...KycSharingSession },
      201: { description: 'The session: the missing processes and the user\'s token.', ...KycSharingSession },
      404: '`entity_not_found`: no such user in the organization (`details.entity: "user"`).',
      409: '`operation_not_allowed` (`permission-denied`): KYC sharing is not configured for the organization.'
    }
  }, async (request, reply) => {
    const session = await createSession(app, request.auth.organizationId, request.auth.clientId, request.body.userId)
    return reply.code(session.userToken === undefined ? 200 : 201).send({ kycSharing: session })
  })
}

export default defineArea({
  config,
  name: 'kyc-sharing',
  tags: [{ name: 'KYC sharing', description: 'Partner area: identify users for KYC sharing, and open sessions to share their KYC.' }],
  plugin: kycSharingRoutes
})
