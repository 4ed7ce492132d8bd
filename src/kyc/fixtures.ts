// The KYC area's fixture key: each organization's KYC configuration (which model verifies each
// process, the submission types allowed, where CRA and SCS are required, what is exempt).
import { Type } from 'typebox'
import { Uuid } from '../../schemas/common.js'
import { MANUAL_PROCESSES, MODELS } from '../../schemas/kyc.js'
import { defineFixtureKey } from '../kit/area.js'
import { kycStore } from './store.js'
import type { KycConfig } from './model.js'

const SubmissionTypes = Type.Array(Type.Enum(['document-submission', 'electronic-verification']), { uniqueItems: true })

export const KycModelsItem = Type.Object({
  organizationId: Type.Optional({ ...Uuid, description: 'Default: the demo organization.' }),
  models: Type.Optional(Type.Object(Object.fromEntries(MANUAL_PROCESSES.map(p => [p, Type.Optional(Type.Enum([...MODELS]))])), {
    additionalProperties: false,
    description: 'The verification model of each process; the others keep the default (the reference\'s examples).'
  })),
  identityTypes: Type.Optional(SubmissionTypes),
  proofOfAddressTypes: Type.Optional(SubmissionTypes),
  formsRequiredIn: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z]{2}$' }), { uniqueItems: true, description: 'Residence countries whose users must complete CRA and SCS (default GB).' })),
  exempt: Type.Optional(Type.Array(Type.Enum([...MANUAL_PROCESSES]), { uniqueItems: true, description: 'Processes exempt for every user of the organization.' })),
  kycSharing: Type.Optional(Type.Boolean({ description: 'Whether KYC sharing sessions may be opened (default true).' }))
}, { additionalProperties: false })

export const kycFixture = defineFixtureKey({
  key: 'kycModels',
  after: ['organizations'],
  schema: Type.Array(KycModelsItem, { description: 'KYC configuration per organization.' }),
  summary: Type.Array(Type.Object({ organizationId: Uuid })),
  async check (context, items) {
    const store = context.app.storage.store(kycStore)
    const seen = new Set<string>()
    const summary: Array<{ organizationId: string }> = []
    for (const [i, item] of items.entries()) {
      const organizationId = item.organizationId ?? context.demoOrganizationId
      if (!await context.organizationExists(organizationId)) { context.bad(`kycModels.${i}.organizationId`, 'exists', { entity: 'organization' }); continue }
      if (seen.has(organizationId)) { context.bad(`kycModels.${i}.organizationId`, 'unique'); continue }
      seen.add(organizationId)
      const { organizationId: _org, ...config } = item
      context.load(async () => { await store.fixtureConfig(organizationId, config as Partial<KycConfig>) })
      summary.push({ organizationId })
    }
    context.summarize('kycModels', summary)
  }
})
