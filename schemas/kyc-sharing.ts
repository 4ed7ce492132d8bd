// The partner area's KYC-sharing contract: identify (or enrol) a user by e-mail address.
import { Type, type Static } from 'typebox'
import { CountryCode, Email, Uuid } from './common.js'

export const IdentifyUserRequest = Type.Object({
  email: { ...Email, description: 'E-mail address of the user to identify (compared case-insensitively).' },
  country: { ...CountryCode, description: 'ISO 3166-1 alpha-2 code of the user\'s country of residence; a new user gets it as address country and primary citizenship.' }
}, { description: 'The user to identify.', examples: [{ email: 'maria.silva@example.com', country: 'PT' }] })
export type IdentifyUserRequest = Static<typeof IdentifyUserRequest>

export const IdentifiedUser = Type.Object({
  user: Type.Object({
    id: Uuid,
    email: Type.String({ format: 'email', description: 'The e-mail address as stored (the casing of the first request).' })
  }, { description: 'The identified user.' })
}, { description: 'The identified user.' })
export type IdentifiedUser = Static<typeof IdentifiedUser>
