// Creating a user: the checks the real service answers with 409 (the rules of rules.ts, shared with
// the KYC updates), the user record as the API shows it, its first metadata and its
// `core.user.created` event, all stored in one transaction. `createUser` is shared: POST
// /core/users calls it after `checkNewUser`, and the KYC-sharing area with just an e-mail and a country.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { conflict } from '../errors.js'
import type { User } from '../../schemas/users.js'
import { metadataAtCreation, type CreationErrors } from '../metadata/revision.js'
import { catalogueService, countryAllows } from '../catalogue/lookup.js'
import type { CountryRestrictionScope } from '../../schemas/catalogue.js'
import {
  checkAddressLines, checkAge, checkCountries, checkEmail, checkName, checkPhone, checkSubdivision, checkSubdivisionRequired,
  countryNotSupported, emailAlreadyExists, phoneAlreadyExists, termsOfServiceMismatch
} from './rules.js'

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

export { emailAlreadyExists, countryNotSupported }

/**
 * Whether the catalogue's country has no restriction of this scope (a country in
 * UNSUPPORTED_COUNTRIES has all of them; fixtures can restrict more).
 */
export const isCountrySupported = (app: FastifyInstance, country: string, scope: CountryRestrictionScope = 'residence'): Promise<boolean> =>
  countryAllows(app, country, scope)

/**
 * The 409s the reference documents for POST /core/users' body, the first one found, in this
 * order: the countries (`primaryCitizenship`, `address.country`, `phone.country`), the
 * subdivision (required in some countries, then supported), the terms of service (the general
 * terms of the country of residence), the e-mail address, the full name, the address lines and
 * postal code, the phone number (valid, then not another user's), `partnerOnboardedAt`, the
 * birthdate. A taken e-mail address is found by the write itself (`createUser`).
 */
export async function checkNewUser (app: FastifyInstance, organizationId: string, input: NewUser): Promise<void> {
  const primaryCitizenship = input.primaryCitizenship ?? input.address.country
  const { country, subdivision } = input.address
  await checkCountries(app, [['primaryCitizenship', primaryCitizenship, 'citizenship'], ['address.country', country, 'residence'], ['phone.country', input.phone?.country, 'phone']])
  checkSubdivisionRequired(country, subdivision, 'address.subdivision')
  await checkSubdivision(app, 'address.subdivision', country, subdivision)
  if (input.termsOfService !== undefined) {
    const applicable = catalogueService(app).listTermsOfService({ type: 'general', country, userType: 'individual' }).map(t => t.code as string)
    if (!applicable.includes(input.termsOfService)) throw termsOfServiceMismatch()
  }
  checkEmail(input.email)
  checkName(input.fullName, 'fullName')
  checkAddressLines(input.address, 'address', country)
  if (input.phone !== undefined) {
    checkPhone(input.phone.number)
    // Read before the write that creates the user: two creations racing with one number can both pass.
    if (await app.storage.users.phoneTaken(organizationId, input.phone.number)) throw phoneAlreadyExists()
  }
  const now = app.clock.now()
  if (input.partnerOnboardedAt !== undefined && !(Date.parse(input.partnerOnboardedAt) < now)) {
    throw conflict('date_invalid', 'The date must be in the past', {
      context: 'body', property: 'partnerOnboardedAt', rule: 'difference-greater-than-threshold', threshold: { limit: 0 }
    })
  }
  checkAge(input.birthdate, now, 'birthdate')
}

/** Keeps the fields that are set, in the order the API shows them. */
const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T

/**
 * Creates an individual user in the organization and records `core.user.created`, in one write
 * that finds a taken e-mail address (409 `email_already_exists`). The caller has checked the body:
 * POST /core/users with `checkNewUser`, identify-user its country. Metadata over the size limit
 * does not stop the creation: the user is created without it and `errors.metadata` says why.
 */
export async function createUser (app: FastifyInstance, organizationId: string, input: NewUser): Promise<CreatedUser> {
  const primaryCitizenship = input.primaryCitizenship ?? input.address.country

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
