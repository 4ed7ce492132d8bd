// The metadata area's fixture key: metadata on users and entities of the fixture or the database.
import { Type } from 'typebox'
import { Uuid } from '../../schemas/common.js'
import { FixtureMetadataList } from '../../schemas/sandbox.js'
import { defineFixtureKey } from '../kit/area.js'
import { METADATA_SIZE_LIMIT, codePoints } from './revision.js'

export const metadataFixture = defineFixtureKey({
  key: 'metadata',
  after: ['users', 'entities'],
  schema: FixtureMetadataList,
  summary: Type.Array(Type.Object({ entity: Type.String(), entityId: Uuid })),
  async check (context, items) {
    const { app, bad } = context
    const seen = new Set<string>()
    const summary: Array<{ entity: string, entityId: string }> = []
    for (const [i, m] of items.entries()) {
      const key = `${m.entity} ${m.entityId}`
      if (seen.has(key)) bad(`metadata.${i}.entityId`, 'unique')
      seen.add(key)
      let organizationId: string | undefined
      if (m.entity === 'users') {
        organizationId = await context.userOrganization(m.entityId)
      } else {
        const found = await context.entity(m.entityId)
        if (found?.type === m.entity) organizationId = found.organizationId
      }
      if (organizationId === undefined) bad(`metadata.${i}.entityId`, 'exists', { entity: m.entity })
      else if (m.organizationId !== undefined && m.organizationId !== organizationId) bad(`metadata.${i}.organizationId`, 'match', { organizationId })
      if (codePoints(JSON.stringify(m.metadata)) > METADATA_SIZE_LIMIT) bad(`metadata.${i}.metadata`, 'maxLength', { limit: METADATA_SIZE_LIMIT, unit: 'characters' })
      if (organizationId === undefined) continue
      const row = { entityType: m.entity, entityId: m.entityId, organizationId, metadata: m.metadata }
      context.load(async () => { await app.storage.admin.fixtureRows.metadata(row, context.now) })
      summary.push({ entity: m.entity, entityId: m.entityId })
    }
    context.summarize('metadata', summary)
  }
})
