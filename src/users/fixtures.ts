// The users area's fixture key: users of the fixture's or the database's organizations.
import { randomUUID } from 'node:crypto'
import { Type } from 'typebox'
import { Uuid } from '../../schemas/common.js'
import { FixtureUser } from '../../schemas/sandbox.js'
import { defineFixtureKey } from '../kit/area.js'
import type { UserRecord } from '../storage/index.js'
import { emailKey } from '../storage/core.js'

/** The user as the API shows it. */
export function userRecord (id: string, organizationId: string, email: string, primaryCitizenship: string, address: { country: string, subdivision?: string }, now: string): UserRecord {
  return {
    id,
    organizationId,
    email,
    createdAt: now,
    record: { id, type: 'individual', email, primaryCitizenship, address, createdAt: now, updatedAt: now }
  }
}

export const usersFixture = defineFixtureKey({
  key: 'users',
  after: ['organizations'],
  schema: Type.Array(FixtureUser, { examples: [[{ id: '3f2b8c1e-5d4a-4e6f-9b7c-1a2b3c4d5e6f', organizationId: '8d0f3a1b-9c2e-4f5a-8b6c-7d8e9f0a1b2c', email: 'maria.silva@example.com', primaryCitizenship: 'PT', address: { country: 'PT' } }]] }),
  summary: Type.Array(Type.Object({ id: Uuid, organizationId: Uuid, email: Type.String() })),
  async check (context, items) {
    const { app, bad } = context
    const emails = new Set<string>()
    const summary: Array<{ id: string, organizationId: string, email: string }> = []
    for (const [i, u] of items.entries()) {
      const organizationId = u.organizationId ?? context.demoOrganizationId
      const id = u.id ?? randomUUID()
      let ok = true
      if (!await context.organizationExists(organizationId)) { bad(`users.${i}.organizationId`, 'exists', { entity: 'organization' }); ok = false }
      if (context.users.has(id) || await app.storage.admin.userOrganization(id) !== undefined) { bad(`users.${i}.id`, 'unique'); ok = false }
      const key = `${organizationId} ${emailKey(u.email)}`
      if (emails.has(key) || await app.storage.users.findByEmail(organizationId, u.email) !== undefined) { bad(`users.${i}.email`, 'unique'); ok = false }
      emails.add(key)
      if (!ok) continue
      context.users.set(id, organizationId)
      const citizenship = u.primaryCitizenship ?? u.address?.country ?? 'US'
      const row = userRecord(id, organizationId, u.email, citizenship, u.address ?? { country: citizenship }, context.now)
      context.load(async () => { await app.storage.admin.fixtureRows.user(row) })
      summary.push({ id, organizationId, email: u.email })
    }
    context.summarize('users', summary)
  }
})
