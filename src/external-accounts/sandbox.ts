// External accounts made by the sandbox: `POST /_sandbox/entities/external-accounts` and the
// `entities` fixture key with type `external-accounts` create real ACH bank accounts of this area
// (`ok`, labelled "Sandbox external account", with their `core.external-account.created`; none from
// a fixture, which records no events). They own metadata, and the external accounts operations
// answer them. Also the control that sets an external account's status at once.
import type { FastifyInstance } from 'fastify'
import type { SandboxEntity, SandboxEntityInput } from '../kit/area.js'
import { control, onOrganizationOf } from '../kit/operation.js'
import { ExternalAccountAnswer, ExternalAccountParams, ExternalAccountStatusChange } from '../../schemas/external-accounts.js'
import type { ExternalAccountRecord } from './store.js'
import { externalAccountEvents, externalAccountNotFound, externalAccountView, externalAccountsOf } from './service.js'
import { cardLimitsOf } from './permissions.js'

const record = (e: SandboxEntityInput): ExternalAccountRecord => ({
  id: e.id,
  organizationId: e.organizationId,
  userId: e.userId,
  type: 'bank',
  status: 'ok',
  statusReason: null,
  label: 'Sandbox external account',
  asset: 'USD',
  network: 'ach',
  features: ['withdraw'],
  details: {
    address: { country: 'US', subdivision: 'US-NY', city: 'New York', line1: '1 Sandbox Street', postalCode: '10001' },
    routingNumber: '021000021',
    accountNumber: e.id.replace(/\D/g, '').slice(0, 12).padEnd(4, '1'),
    accountType: 'checking'
  },
  // Unique per entity, so two sandbox accounts of one user are never duplicates.
  fingerprint: `sandbox:${e.id}`,
  behaviour: null,
  checkDueAt: null,
  expiresAt: null,
  createdAt: e.createdAt,
  updatedAt: e.createdAt
})

export const externalAccountsSandboxEntity: SandboxEntity = {
  segment: 'external-accounts',
  description: 'an external account is a real ACH bank account of the external accounts area, `ok`, labelled `Sandbox external account`',
  async find (app: FastifyInstance, id: string) {
    const found = await externalAccountsOf(app).find(id)
    return found === undefined ? undefined : { organizationId: found.organizationId, userId: found.userId }
  },
  async create (app, entity) {
    return (await externalAccountsOf(app).create(record(entity), externalAccountEvents(app), await cardLimitsOf(app, entity.organizationId))).ok
  },
  async fixtureRow (app, entity) {
    await externalAccountsOf(app).fixtureRow(record(entity))
  }
}

export default async function externalAccountControls (app: FastifyInstance): Promise<void> {
  control(app, {
    id: 'sandboxSetExternalAccountStatus',
    method: 'POST',
    url: '/_sandbox/external-accounts/:externalAccountId/status',
    summary: 'Set an external account\'s status',
    description: 'Sets the status (and `statusDetails.reason`) of an external account of any organization at once, as the service\'s card check ' +
      'would, ends any check still running, and emits `core.external-account.status-changed` when either changes. ' +
      'An organization\'s control token reaches its own organization\'s external accounts only.',
    acts: 'organization',
    params: ExternalAccountParams,
    body: ExternalAccountStatusChange,
    responses: {
      200: { description: 'The external account as it is now.', ...ExternalAccountAnswer },
      404: '`entity_not_found` (`details.entity: "external-account"`): no such external account.'
    }
  }, async (request) => {
    const { status, reason } = request.body
    const id = request.params.externalAccountId
    const found = await externalAccountsOf(app).find(id)
    return await onOrganizationOf(app, request, found?.organizationId, externalAccountNotFound, async () => {
      const updated = await externalAccountsOf(app).setStatus(id, status, reason ?? null, app.clock.iso(), externalAccountEvents(app))
      if (updated === undefined) throw externalAccountNotFound()
      return { externalAccount: externalAccountView(updated) }
    })
  })
}
