// Identifying a user for KYC sharing: find the organization's user by e-mail, or enrol a new one
// through the users area's createUser (same record, same core.user.created event).
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../errors.js'
import { countryNotSupported, createUser, isCountrySupported } from '../users/service.js'

export interface Identified {
  user: { id: string, email: string }
  created: boolean
}

export async function identifyUser (app: FastifyInstance, organizationId: string, email: string, country: string): Promise<Identified> {
  // Checked first, so a known e-mail with an unsupported country is refused too, naming `country`
  // (a new user gets it as country of residence and citizenship).
  if (!await isCountrySupported(app, country) || !await isCountrySupported(app, country, 'citizenship')) throw countryNotSupported('country')
  const known = async (): Promise<Identified | undefined> => {
    const user = await app.storage.users.findByEmail(organizationId, email)
    return user === undefined ? undefined : { user: { id: user.id, email: user.email }, created: false }
  }
  const existing = await known()
  if (existing !== undefined) return existing
  try {
    const { user } = await createUser(app, organizationId, { email, address: { country }, primaryCitizenship: country })
    return { user: { id: user.id, email: user.email }, created: true }
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'email_already_exists')) throw err
    // A concurrent request created it first: answer as for a known user.
    const winner = await known()
    if (winner === undefined) throw err
    return winner
  }
}
