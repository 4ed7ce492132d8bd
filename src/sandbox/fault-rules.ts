// Fault injection rules' routes: list, add, delete one, delete all.
import type { FastifyInstance } from 'fastify'
import { FaultCreate, FaultList, FaultParams } from '../../schemas/sandbox.js'
import { errorResponse } from '../../schemas/common.js'
import { entityNotFound, requestInvalid, type Violation } from '../errors.js'
import { callerOrganization, control, noContent, ref } from '../kit/operation.js'
import { OrganizationQuery } from '../../schemas/sandbox.js'

export default async function faultRules (app: FastifyInstance): Promise<void> {
  control(app, {
    id: 'sandboxListFaults',
    method: 'GET',
    url: '/_sandbox/faults',
    summary: 'List fault rules',
    description: 'The active fault rules in the order they are tried. Spent rules (count reached) are gone. ' +
        'An organization\'s control token (or the admin\'s `?organizationId=`) lists that organization\'s rules only.',
    acts: 'organization',
    querystring: OrganizationQuery,
    responses: { 200: { description: 'The rules.', ...FaultList } }
  }, async (request) => ({ faults: await app.faults.list(callerOrganization(request, request.query.organizationId)) }))

  control(app, {
    id: 'sandboxCreateFault',
    method: 'POST',
    url: '/_sandbox/faults',
    summary: 'Add a fault rule',
    description: 'Makes matching API requests misbehave, before authentication. A request matches when its method (if given) and path ' +
        '(without query; exact or with `*` for any characters) match; rules are tried oldest first and the first that applies wins. ' +
        '`/_sandbox/...` is never affected. The rule answers with `status` and the API\'s own error body ' +
        '(429 `too_many_requests` "Try again later" with `Retry-After`, default 1 s; 500 `internal_server_error`; 503 `service_unavailable`; ' +
        'other codes a code named after the status; on the token endpoint, 4xx other than 429 get an OAuth 2.0 body), after `delayMs` (real time); ' +
        'or closes the connection without an answer (`drop`); or, with `delayMs` alone, only slows the request down. ' +
        '`count` limits it to the next N matching requests; `probability` (0..1) makes it apply to that share of them. ' +
        'The request-id header is always sent. Rules are kept in the database, shared by every replica (a `count` is spent once across them); a full reset removes them.\n\n' +
        'A rule added with an organization\'s control token (or the admin\'s `?organizationId=`) affects only the requests made with that organization\'s ' +
        'access tokens (`organizationId` in the answer), and a reset of the organization removes it; the admin\'s other rules affect every request.',
    acts: 'organization',
    querystring: OrganizationQuery,
    body: FaultCreate,
    responses: { 201: ref('SandboxFault', 'The rule, with its `id` and `remaining` count.') }
  }, async (request, reply) => {
    const rule = request.body
    const violations: Violation[] = []
    if (rule.status === undefined && rule.drop !== true && (rule.delayMs ?? 0) === 0) {
      violations.push({ property: 'status', rule: 'required', ruleParams: { unless: ['drop', 'delayMs'] } })
    }
    if (rule.drop === true && rule.status !== undefined) violations.push({ property: 'drop', rule: 'not', ruleParams: { with: 'status' } })
    if (rule.path.startsWith('/_sandbox')) violations.push({ property: 'path', rule: 'not', ruleParams: { prefix: '/_sandbox' } })
    if (violations.length > 0) throw requestInvalid('body', violations)
    return reply.code(201).send(await app.faults.add(rule, app.clock.iso(), callerOrganization(request, request.query.organizationId) ?? null))
  })

  control(app, {
    id: 'sandboxClearFaults',
    method: 'DELETE',
    url: '/_sandbox/faults',
    summary: 'Delete every fault rule',
    description: 'Back to normal service. An organization\'s control token (or the admin\'s `?organizationId=`) deletes that organization\'s rules only.',
    acts: 'organization',
    querystring: OrganizationQuery,
    responses: { 204: noContent('Deleted.') }
  }, async (request, reply) => {
    await app.faults.clear(callerOrganization(request, request.query.organizationId))
    return reply.code(204).send()
  })

  control(app, {
    id: 'sandboxDeleteFault',
    method: 'DELETE',
    url: '/_sandbox/faults/:id',
    summary: 'Delete a fault rule',
    description: 'Removes one rule. An organization\'s control token reaches its own rules only (another\'s is 404).',
    acts: 'organization',
    params: FaultParams,
    responses: { 204: noContent('Deleted.'), 404: errorResponse('No active rule has this id (`entity_not_found`, `details.entity: "fault"`).') }
  }, async (request, reply) => {
    if (!await app.faults.delete(request.params.id, callerOrganization(request))) throw entityNotFound('fault')
    return reply.code(204).send()
  })
}
