// Cards as the sandbox judges them: the brand from the number's BIN, the number's Luhn check
// (`fast-luhn`), the expiry on the sandbox clock, and the test cards whose numbers decide how a
// card behaves (README, "Test cards"). Nothing here keeps a card number: callers keep the last four
// digits and a digest.
import luhn from 'fast-luhn'
import { createHmac, randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

export type Brand = 'visa' | 'mastercard'

/** How a test card behaves: approved (any other valid number too), or refused at creation. */
export type CardBehaviour = 'approved' | '3ds' | 'declined' | 'permanently-declined' | 'credit' | 'issuer-country-mismatch'

/** The test card table, by number. */
export const TEST_CARDS: ReadonlyMap<string, CardBehaviour> = new Map([
  ['4111111111111111', 'approved'],
  ['5555555555554444', 'approved'],
  ['4000000000003220', '3ds'],
  ['4000000000000002', 'declined'],
  ['4000000000000069', 'permanently-declined'],
  ['5105105105105100', 'credit'],
  ['4000000000000101', 'issuer-country-mismatch']
])

export const behaviourOf = (number: string): CardBehaviour => TEST_CARDS.get(number) ?? 'approved'

export const passesLuhn = (number: string): boolean => luhn(number)

/** The brand of the number's BIN: Visa (4), Mastercard (51 to 55, 2221 to 2720); undefined for others. */
export function brandOf (number: string): Brand | undefined {
  if (number.startsWith('4')) return 'visa'
  const two = Number(number.slice(0, 2))
  const four = Number(number.slice(0, 4))
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard'
  return undefined
}

/** When a card with this expiry stops being valid: the first instant after its expiry month (UTC), ms. */
export const expiryEnd = (month: number, year: number): number => Date.UTC(year, month, 1)

const FINGERPRINT_KEY = 'external-accounts.fingerprint-key'
// One key per database (the settings table; a reset keeps it): it cannot change while the app runs.
const keys = new WeakMap<FastifyInstance, Buffer>()

/**
 * A keyed digest (HMAC-SHA256, a random key of the database's) of the number, to find a user's
 * duplicate cards without keeping the number: without the key, the digest cannot be searched for
 * the few numbers a BIN and the last four digits leave. Scoped to the user.
 */
export async function cardFingerprint (app: FastifyInstance, userId: string, number: string): Promise<string> {
  let key = keys.get(app)
  if (key === undefined) {
    key = Buffer.from(await app.storage.settings.getOrCreate(FINGERPRINT_KEY, randomBytes(32).toString('hex')), 'hex')
    keys.set(app, key)
  }
  return createHmac('sha256', key).update(`card\n${userId}\n${number}`).digest('hex')
}
