// Identifying a user for KYC sharing: find the organization's user by e-mail, or enrol a new one.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { conflict } from '../errors.js'
import type { UserRecord } from '../storage/index.js'

export interface Identified {
  user: UserRecord
  created: boolean
}

/** The user record a KYC-sharing enrolment creates: an individual living in, and a citizen of, `country`. */
function newUser (app: FastifyInstance, organizationId: string, email: string, country: string): UserRecord {
  const id = randomUUID()
  const now = app.clock.iso()
  return {
    id,
    organizationId,
    email,
    createdAt: now,
    record: { id, type: 'individual', email, primaryCitizenship: country, address: { country }, createdAt: now, updatedAt: now }
  }
}

export async function identifyUser (app: FastifyInstance, organizationId: string, email: string, country: string): Promise<Identified> {
  if (app.config.unsupportedCountries.includes(country)) {
    throw conflict('country_not_supported', 'The country is not supported', { context: 'body', property: 'country' })
  }
  const { storage, events } = app
  const existing = await storage.users.findByEmail(organizationId, email)
  if (existing !== undefined) return { user: existing, created: false }

  const candidate = newUser(app, organizationId, email, country)
  const created = await storage.users.create(candidate, [events.build(organizationId, 'core.user.created', { user: candidate.record })])
  if (created !== undefined) {
    events.recorded()
    return { user: created, created: true }
  }
  // A concurrent request created it first: answer as for a known user.
  const winner = await storage.users.findByEmail(organizationId, email)
  if (winner === undefined) throw new Error('user vanished after a duplicate e-mail')
  return { user: winner, created: false }
}
