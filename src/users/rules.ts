// The checks the reference documents for what a person declares: names, dates of birth, e-mail
// addresses, phone numbers, addresses, countries and subdivisions. One implementation of each,
// shared by POST /core/users, the KYC updates and the ACH bank account's address, so a rule and
// its answer (code, message, `details.property`) read the same wherever the data is taken. The
// pure checks run anywhere (the KYC state machine runs them inside its write); those that read
// the catalogue take the app.
import type { FastifyInstance } from 'fastify'
import { ApiError, conflict } from '../errors.js'
import { catalogueOf } from '../catalogue/lookup.js'
import type { CountryRestrictionScope } from '../../schemas/catalogue.js'

const inBody = (property: string): Record<string, unknown> => ({ context: 'body', property })

// ---- The answers, in the reference's words ----

export const countryNotSupported = (property: string): ApiError =>
  conflict('country_not_supported', 'The country is not supported', inBody(property))
export const subdivisionNotSupported = (property: string): ApiError =>
  conflict('subdivision_not_supported', 'The subdivision is not supported', inBody(property))
export const subdivisionRequired = (property: string): ApiError =>
  conflict('subdivision_required', 'The subdivision is required for the selected country', inBody(property))
export const invalidCharacters = (property: string): ApiError =>
  conflict('invalid_characters', 'The request has invalid characters', inBody(property))
export const poBoxesNotAllowed = (): ApiError => conflict('po_boxes_not_allowed', 'PO boxes are not allowed')
export const postalCodeInvalid = (property: string): ApiError =>
  conflict('postal_code_invalid', 'The postal code is invalid', inBody(property))
export const emailAlreadyExists = (): ApiError =>
  conflict('email_already_exists', 'The provided email is already in use by another user')
export const emailIncorrectOrDisallowed = (): ApiError => conflict('email_incorrect_or_disallowed', 'The email is incorrect or disallowed')
export const phoneInvalid = (): ApiError => conflict('phone_invalid', 'The phone number is invalid')
export const phoneAlreadyExists = (): ApiError => conflict('phone_already_exists', 'The provided phone is already in use by another user')
export const termsOfServiceMismatch = (): ApiError =>
  conflict('terms_of_service_mismatch', 'The terms of service passed in the request does not match the one that should have been accepted')

// ---- Names and dates of birth ----

// Names hold letters, marks, spaces, apostrophes, dots and dashes.
const NAME = /^[\p{L}\p{M}][\p{L}\p{M}' .-]*$/u

/** 409 `invalid_characters` for a name with anything but letters, marks, spaces, apostrophes, dots and dashes. */
export function checkName (value: string | undefined, property: string): void {
  if (value !== undefined && !NAME.test(value)) throw invalidCharacters(property)
}

/** `YYYY-MM-DD` of `now` (ms), `years` earlier. */
const yearsAgo = (now: number, years: number): string => {
  const today = new Date(now).toISOString().slice(0, 10)
  return `${String(Number(today.slice(0, 4)) - years).padStart(4, '0')}${today.slice(4)}`
}

/** 409 `date_invalid` unless the person is 18 to 100 years old at `now` (the sandbox clock). */
export function checkAge (birthdate: string | undefined, now: number, property: string): void {
  if (birthdate === undefined) return
  if (birthdate > yearsAgo(now, 18)) {
    throw conflict('date_invalid', 'The date must be older than or equal to 18 years ago', {
      ...inBody(property), rule: 'difference-greater-than-or-equal-to-threshold', threshold: { limit: 18, unit: 'years' }
    })
  }
  if (birthdate < yearsAgo(now, 100)) {
    throw conflict('date_invalid', 'The date must be newer than or equal to 100 years from now', {
      ...inBody(property), rule: 'difference-less-than-or-equal-to-threshold', threshold: { limit: 100, unit: 'years' }
    })
  }
}

// ---- E-mail addresses and phone numbers ----

// Addresses at reserved domains that can never receive mail (RFC 2606, RFC 6761).
const UNDELIVERABLE = /@(?:[^@]+\.)?(?:invalid|localhost)$/i

/** 409 `email_incorrect_or_disallowed` for an address at a domain that can never receive mail (`.invalid`, `.localhost`). */
export function checkEmail (email: string): void {
  if (UNDELIVERABLE.test(email)) throw emailIncorrectOrDisallowed()
}

/** 409 `phone_invalid` for an E.164 number of fewer than 7 digits (the sandbox's rule: 7 to 15 digits after the `+`). */
export function checkPhone (number: string): void {
  if (!/^\+[0-9]{7,15}$/.test(number)) throw phoneInvalid()
}

// ---- Addresses ----

export interface AddressLines {
  line1?: unknown
  line2?: unknown
  postalCode?: unknown
}

const PO_BOX = /\bp\.?\s*o\.?\s*box\b|\bpost\s+office\s+box\b/i
const POSTAL_CODES: Record<string, RegExp> = {
  // ZIP or ZIP+4.
  US: /^[0-9]{5}(-[0-9]{4})?$/
}
// Elsewhere the sandbox's rule: 2 to 10 letters, digits, spaces or dashes, starting with a letter or digit.
const POSTAL_CODE = /^[A-Za-z0-9][A-Za-z0-9 -]{1,9}$/

/** Whether a postal code fits the country's form (US: ZIP or ZIP+4; elsewhere 2 to 10 letters, digits, spaces or dashes). */
export const postalCodeValid = (country: string | undefined, postalCode: string): boolean =>
  (POSTAL_CODES[country ?? ''] ?? POSTAL_CODE).test(postalCode)

/** 409 `po_boxes_not_allowed` for an address line that names a PO box. */
export function checkPoBoxes (address: AddressLines): void {
  for (const line of [address.line1, address.line2]) {
    if (typeof line === 'string' && PO_BOX.test(line)) throw poBoxesNotAllowed()
  }
}

/** 409 `postal_code_invalid` (`<prefix>.postalCode`) for a postal code that does not fit the country. */
export function checkPostalCode (address: AddressLines, prefix: string, country: string | undefined): void {
  if (typeof address.postalCode === 'string' && !postalCodeValid(country, address.postalCode)) throw postalCodeInvalid(`${prefix}.postalCode`)
}

/** An address's lines and postal code: PO boxes, then the postal code. */
export function checkAddressLines (address: AddressLines | undefined, prefix: string, country: string | undefined): void {
  if (address === undefined) return
  checkPoBoxes(address)
  checkPostalCode(address, prefix, country)
}

// ---- Countries and subdivisions (the catalogue) ----

/**
 * Countries whose residents must give a subdivision: the service's rules differ by US state (the
 * KYC address update refuses a US resident's new subdivision).
 */
export const SUBDIVISION_REQUIRED_IN: readonly string[] = ['US']

/** 409 `subdivision_required` when the country needs a subdivision and none was given. */
export function checkSubdivisionRequired (country: string, subdivision: string | undefined, property: string): void {
  if (subdivision === undefined && SUBDIVISION_REQUIRED_IN.includes(country)) throw subdivisionRequired(property)
}

/** 409 `country_not_supported` naming the first country that does not exist or is restricted in its scope. */
export async function checkCountries (app: FastifyInstance, checks: Array<[property: string, country: string | undefined, scope: CountryRestrictionScope]>): Promise<void> {
  const catalogue = await catalogueOf(app)
  for (const [property, country, scope] of checks) {
    if (country !== undefined && !catalogue.countryAllows(country, scope)) throw countryNotSupported(property)
  }
}

/**
 * 409 `subdivision_not_supported` for a subdivision that is not the country's, that no country has
 * (`US-ZZ`: it fits the ISO 3166-2 pattern, which is all the schema checks), or that is closed to
 * residents.
 */
export async function checkSubdivision (app: FastifyInstance, property: string, country: string | undefined, subdivision: string | undefined): Promise<void> {
  if (country === undefined || subdivision === undefined) return
  if (!subdivision.startsWith(`${country}-`) || !(await catalogueOf(app)).subdivisionAllowsResidence(country, subdivision)) {
    throw subdivisionNotSupported(property)
  }
}

/** An address's country (`<prefix>.country`, residence) and subdivision; `fallbackCountry` when it names no country. */
export async function checkPlace (app: FastifyInstance, prefix: string, address: { country?: unknown, subdivision?: unknown } | undefined, fallbackCountry?: string): Promise<void> {
  if (address === undefined) return
  const country = typeof address.country === 'string' ? address.country : undefined
  await checkCountries(app, [[`${prefix}.country`, country, 'residence']])
  await checkSubdivision(app, `${prefix}.subdivision`, country ?? fallbackCountry, typeof address.subdivision === 'string' ? address.subdivision : undefined)
}
