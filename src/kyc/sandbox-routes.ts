// Sandbox controls of KYC: force a process's outcome (what the service's review, or a partner,
// would decide), set a user's KYB onboarding status, and list users with their KYC for the
// dashboard. Not part of the real service.
import type { FastifyInstance } from 'fastify'
import { KybAnswer, KybChange, KybParams, KycControlParams, KycForce, KycForced, KycOverview, KycUserParams, KycUsers, KycUsersQuery } from '../../schemas/kyc.js'
import { callerOrganization, control, onOrganizationOf } from '../kit/operation.js'
import { entityNotFound } from '../errors.js'
import { summary } from './model.js'

export default async function kycControls (app: FastifyInstance): Promise<void> {
  const userOrganization = async (userId: string): Promise<string | undefined> => await app.storage.admin.userOrganization(userId)
  const userNotFound = (): Error => entityNotFound('user')

  control(app, {
    id: 'sandboxForceKyc',
    method: 'POST',
    url: '/_sandbox/users/:userId/kyc/:process',
    summary: 'Force a KYC process\'s outcome',
    description: 'Sets the process\'s status (`ok`, `failed`, `running`, `pending` or `exempt`) at once, drops any review the service still owed for it, ' +
      'emits `core.kyc.<process>.status-changed` when the status changes, and runs what follows (identity or profile `ok` runs screening; ' +
      'customer due diligence `ok` runs risk). `reason` is kept and shown as the summary\'s reason while the process fails. ' +
      'An organization\'s control token reaches its own organization\'s users only.',
    acts: 'organization',
    params: KycControlParams,
    body: KycForce,
    responses: {
      200: { description: 'The process and the user\'s summary.', ...KycForced },
      404: '`entity_not_found`: no such user (`details.entity: "user"`).'
    }
  }, async (request) => await onOrganizationOf(app, request, await userOrganization(request.params.userId), userNotFound,
    async () => await app.kyc.force(request.params.userId, request.params.process, request.body.status, request.body.reason)))

  control(app, {
    id: 'sandboxForceAllKyc',
    method: 'POST',
    url: '/_sandbox/users/:userId/kyc',
    summary: 'Force every KYC process\'s outcome',
    description: 'Sets every process of the user, screening and risk included, to the status at once (`{ "status": "ok" }` makes the user ' +
      'KYC-ready in one call), as one write: each forced process drops any review the service still owed, and ' +
      '`core.kyc.<process>.status-changed` is emitted for each process whose status changes, as the per-process route does. ' +
      'An organization\'s control token reaches its own organization\'s users only.',
    acts: 'organization',
    params: KycUserParams,
    body: KycForce,
    responses: {
      200: { description: 'The user\'s KYC, as `GET /core/kyc` shows it.', ...KycOverview },
      404: '`entity_not_found`: no such user (`details.entity: "user"`).'
    }
  }, async (request) => await onOrganizationOf(app, request, await userOrganization(request.params.userId), userNotFound,
    async () => await app.kyc.forceAll(request.params.userId, request.body.status, request.body.reason)))

  control(app, {
    id: 'sandboxSetKyb',
    method: 'POST',
    url: '/_sandbox/users/:userId/kyb',
    summary: 'Set the KYB onboarding status',
    description: 'Sets the user\'s KYB onboarding status (`running`, `ok` or `failed`) and emits `core.kyb.onboarding.status-changed` with it. ' +
      'An organization\'s control token reaches its own organization\'s users only.',
    acts: 'organization',
    params: KybParams,
    body: KybChange,
    responses: {
      200: { description: 'The KYB onboarding status.', ...KybAnswer },
      404: '`entity_not_found`: no such user (`details.entity: "user"`).'
    }
  }, async (request) => await onOrganizationOf(app, request, await userOrganization(request.params.userId), userNotFound,
    async () => ({ kyb: await app.kyc.kyb(request.params.userId, request.body.status) })))

  control(app, {
    id: 'sandboxListKyc',
    method: 'GET',
    url: '/_sandbox/kyc',
    summary: 'List users with their KYC',
    description: 'The newest 200 users (of `organizationId`, or of every organization) with their KYC summary, each process\'s status and their KYB status. ' +
      'An organization\'s control token lists its own organization\'s users.',
    acts: 'organization',
    querystring: KycUsersQuery,
    responses: { 200: { description: 'The users.', ...KycUsers } }
  }, async (request) => {
    const list = await app.kyc.store.list(await app.storage.users.recent(callerOrganization(request, request.query.organizationId), 200))
    return {
      users: list.map(s => ({
        id: s.user.id,
        organizationId: s.user.organizationId,
        email: s.user.email,
        summary: summary(s.processes),
        processes: Object.fromEntries(Object.entries(s.processes).map(([code, state]) => [code, state.status])),
        ...(s.kyb === undefined ? {} : { kyb: s.kyb })
      }))
    }
  })
}
