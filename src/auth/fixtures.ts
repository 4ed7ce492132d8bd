// The auth area's fixture key: OAuth clients, their secrets hashed before the fixture's transaction.
import { Type } from 'typebox'
import { Uuid } from '../../schemas/common.js'
import { FixtureClient } from '../../schemas/sandbox.js'
import { defineFixtureKey } from '../kit/area.js'
import { hashSecret } from './clients.js'
import { scopeViolation } from './scopes.js'

export const clientsFixture = defineFixtureKey({
  key: 'clients',
  after: ['organizations', 'users'],
  schema: Type.Array(FixtureClient),
  summary: Type.Array(Type.Object({ clientId: Type.String(), organizationId: Uuid })),
  async check (context, items) {
    const { app, bad } = context
    const ids = new Set<string>()
    const summary: Array<{ clientId: string, organizationId: string }> = []
    for (const [i, c] of items.entries()) {
      const organizationId = c.organizationId ?? context.demoOrganizationId
      if (ids.has(c.clientId) || await app.clients.get(c.clientId) !== undefined) bad(`clients.${i}.clientId`, 'unique')
      ids.add(c.clientId)
      if (!await context.organizationExists(organizationId)) bad(`clients.${i}.organizationId`, 'exists', { entity: 'organization' })
      for (const [j, s] of c.scopes.entries()) {
        const v = scopeViolation(app.config.partnerArea, s)
        if (v !== undefined) bad(`clients.${i}.scopes.${j}`, v.rule, v.ruleParams)
      }
      const userId = c.userId ?? null
      if (userId !== null && await context.userOrganization(userId) !== organizationId) bad(`clients.${i}.userId`, 'exists', { entity: 'user', organizationId })
      const row = { id: c.clientId, organizationId, name: c.name, scopes: c.scopes, refreshTokens: c.refreshTokens ?? false, userId, createdAt: context.now }
      context.load(hashSecret(c.clientSecret).then(secret => async () => { await app.storage.admin.fixtureRows.client({ ...row, ...secret }) }))
      summary.push({ clientId: c.clientId, organizationId })
    }
    context.summarize('clients', summary)
  }
})
