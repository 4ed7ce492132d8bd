// Creating a user: the checks the real service answers with 409, the user record as the API shows
// it, its first metadata and its `core.user.created` event, all stored in one transaction.
// `createUser` is shared: POST /core/users calls it with a validated body, and the KYC-sharing
// area calls it with just an e-mail and a country.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ApiError, conflict } from '../errors.js'
import type { User } from '../../schemas/users.js'
import { metadataAtCreation, type CreationErrors } from '../metadata/revision.js'
import { countryAllows, subdivisionAllowsResidence } from '../catalogue/lookup.js'
import type { CountryRestrictionScope } from '../../schemas/catalogue.js'

export interface NewUser {
  email: string
  address: { country: string, subdivision?: string, city?: string, line1?: string, line2?: string, postalCode?: string }
  /** Defaults to `address.country`. */
  primaryCitizenship?: string
  /** Accepted terms-of-service version: checked by the route's schema, not kept on the user. */
  termsOfService?: string
  type?: 'individual'
  fullName?: string
  /** YYYY-MM-DD; the user must be 18 to 100 years old on the sandbox clock. */
  birthdate?: string
  phone?: { number: string, country: string }
  /** ISO 8601; must be before the sandbox clock's now. */
  partnerOnboardedAt?: string
  metadata?: Record<string, unknown>
}

export interface CreatedUser {
  user: User
  /** Present when the metadata could not be stored: the body its own request would have had. */
  errors?: CreationErrors
}

export const emailAlreadyExists = (): ApiError =>
  conflict('email_already_exists', 'The provided email is already in use by another user')

export const countryNotSupported = (property: string): ApiError =>
  conflict('country_not_supported', 'The country is not supported', { context: 'body', property })

/**
 * Whether the catalogue's country has no restriction of this scope (a country in
 * UNSUPPORTED_COUNTRIES has all of them; fixtures can restrict more).
 */
export const isCountrySupported = (app: FastifyInstance, country: string, scope: CountryRestrictionScope = 'residence'): Promise<boolean> =>
  countryAllows(app, country, scope)

/** `YYYY-MM-DD` of the sandbox clock's date, `years` earlier. */
function yearsAgo (app: FastifyInstance, years: number): string {
  const today = app.clock.iso().slice(0, 10)
  return `${String(Number(today.slice(0, 4)) - years).padStart(4, '0')}${today.slice(4)}`
}

/** The 409s of the creation body, first one found. */
async function check (app: FastifyInstance, input: NewUser, primaryCitizenship: string): Promise<void> {
  const countries: Array<[string, string | undefined, CountryRestrictionScope]> = [
    ['primaryCitizenship', primaryCitizenship, 'citizenship'], ['address.country', input.address.country, 'residence'], ['phone.country', input.phone?.country, 'phone']
  ]
  for (const [property, country, scope] of countries) {
    if (country !== undefined && !await isCountrySupported(app, country, scope)) throw countryNotSupported(property)
  }
  const { subdivision, country } = input.address
  if (subdivision !== undefined && !await subdivisionAllowsResidence(app, country, subdivision)) {
    throw conflict('subdivision_not_supported', 'The subdivision is not supported', { context: 'body', property: 'address.subdivision' })
  }
  if (input.partnerOnboardedAt !== undefined && !(Date.parse(input.partnerOnboardedAt) < app.clock.now())) {
    throw conflict('date_invalid', 'The date must be in the past', {
      context: 'body', property: 'partnerOnboardedAt', rule: 'difference-greater-than-threshold', threshold: { limit: 0 }
    })
  }
  if (input.birthdate !== undefined) {
    if (input.birthdate > yearsAgo(app, 18)) {
      throw conflict('date_invalid', 'The date must be older than or equal to 18 years ago', {
        context: 'body', property: 'birthdate', rule: 'difference-greater-than-or-equal-to-threshold', threshold: { limit: 18, unit: 'years' }
      })
    }
    if (input.birthdate < yearsAgo(app, 100)) {
      throw conflict('date_invalid', 'The date must be newer than or equal to 100 years from now', {
        context: 'body', property: 'birthdate', rule: 'difference-less-than-or-equal-to-threshold', threshold: { limit: 100, unit: 'years' }
      })
    }
  }
}

/** Keeps the fields that are set, in the order the API shows them. */
const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T

/**
 * Creates an individual user in the organization and records `core.user.created`. Throws the
 * API's 409s (`country_not_supported`, `subdivision_not_supported`, `date_invalid`,
 * `email_already_exists`). Metadata over the size limit does not stop the creation: the user is
 * created without it and `errors.metadata` says why.
 */
export async function createUser (app: FastifyInstance, organizationId: string, input: NewUser): Promise<CreatedUser> {
  const primaryCitizenship = input.primaryCitizenship ?? input.address.country
  await check(app, input, primaryCitizenship)

  const now = app.clock.iso()
  const { country, subdivision, city, line1, line2, postalCode } = input.address
  const user: User = defined({
    id: randomUUID(),
    type: 'individual' as const,
    email: input.email,
    fullName: input.fullName,
    birthdate: input.birthdate,
    primaryCitizenship,
    address: defined({ country, subdivision, city, line1, line2, postalCode }),
    phone: input.phone === undefined ? undefined : { number: input.phone.number, country: input.phone.country },
    partnerOnboardedAt: input.partnerOnboardedAt === undefined ? undefined : new Date(input.partnerOnboardedAt).toISOString(),
    createdAt: now,
    updatedAt: now
  })

  const { metadata, errors } = metadataAtCreation(input.metadata, now)

  const event = app.events.build(organizationId, 'core.user.created', { user })
  const created = await app.storage.users.create({ id: user.id, organizationId, email: user.email, record: user, createdAt: now }, [event], metadata)
  if (created === undefined) throw emailAlreadyExists()
  return errors === undefined ? { user } : { user, errors }
}
