// External accounts as the API shows them: adding a card (its checks in the documented order) or an
// ACH bank account, the views, label changes, deletion, and the card check the service finishes
// later, on the sandbox clock (or at once through the sandbox control).
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { allTogether, followDueWork, type DueScope } from '../kit/due-work.js'
import { ApiError, conflict, entityNotFound } from '../errors.js'
import { catalogueOf } from '../catalogue/lookup.js'
import { operationNotAllowed } from '../http/user-context.js'
import { metadataAtCreation, type CreationErrors } from '../metadata/revision.js'
import { sha256Hex } from '../sha256.js'
import { capabilityFailure, requireCapabilities } from '../capabilities/service.js'
import type { CreateAchRequest, CreateCardRequest, CreateExternalAccountRequest, ExternalAccount } from '../../schemas/external-accounts.js'
import { externalAccountsStore, type EventMaker, type ExternalAccountRecord, type ExternalAccountsStore } from './store.js'
import { cardLimitsOf, checkExternalAccountType } from './permissions.js'
import { behaviourOf, brandOf, cardFingerprint, expiryEnd, passesLuhn } from './cards.js'
import { checkPlace, checkPostalCode } from '../users/rules.js'

export const externalAccountsOf = (app: FastifyInstance): ExternalAccountsStore => app.storage.store(externalAccountsStore)

export const externalAccountNotFound = (): ApiError => entityNotFound('external-account', 'The external account cannot be found')

/** The card currencies: a card is in its user's country's currency when it is one of them, else in USD. */
const CARD_ASSETS = ['USD', 'EUR', 'GBP']

/** The external account as the API and its events show it: features only while `ok`. */
export function externalAccountView (a: ExternalAccountRecord): ExternalAccount {
  return {
    id: a.id,
    ownerId: a.userId,
    type: a.type,
    status: a.status,
    ...(a.statusReason === null ? {} : { statusDetails: { reason: a.statusReason } }),
    label: a.label,
    asset: a.asset,
    network: a.network,
    features: (a.status === 'ok' ? a.features : []) as ExternalAccount['features'],
    details: a.details as ExternalAccount['details'],
    createdAt: a.createdAt,
    updatedAt: a.updatedAt
  }
}

export const externalAccountEvents = (app: FastifyInstance): EventMaker => (type, a) =>
  app.events.build(a.organizationId, type, { externalAccount: externalAccountView(a) })

/** The acting user's external account; another user's, or another organization's, is 404. */
export async function ownExternalAccount (app: FastifyInstance, organizationId: string, userId: string, id: string): Promise<ExternalAccountRecord> {
  const found = await externalAccountsOf(app).get(organizationId, id)
  if (found === undefined || found.userId !== userId) throw externalAccountNotFound()
  return found
}

const invalidNumber = (message: string, property: string): ApiError => conflict('number_invalid', message, { context: 'body', property })

async function userCountry (app: FastifyInstance, organizationId: string, userId: string): Promise<string> {
  const user = await app.storage.users.get(organizationId, userId)
  if (user === undefined) throw entityNotFound('user')
  return String((user.record as { address?: { country?: string } }).address?.country ?? '')
}

/**
 * A card, checked in this order: Luhn, expiry (sandbox clock), the rail of its brand, duplicate,
 * credit, issuer country, declines, the organization's card limits (distinct cards ever added,
 * then cards held) and the `cards` capability.
 */
async function cardRecord (app: FastifyInstance, organizationId: string, userId: string, input: CreateCardRequest, now: string): Promise<ExternalAccountRecord> {
  if (!passesLuhn(input.number)) throw invalidNumber('The card number is invalid', 'number')
  const expiresAt = expiryEnd(input.expiryDate.month, input.expiryDate.year)
  if (expiresAt <= app.clock.now()) {
    throw conflict('date_invalid', 'The date must be at least now', {
      context: 'body', property: 'expiryDate', rule: 'difference-less-than-or-equal-to-threshold', threshold: { limit: 0, unit: 'milliseconds' }
    })
  }
  const behaviour = behaviourOf(input.number)
  const country = await userCountry(app, organizationId, userId)
  const countryAsset = (await catalogueOf(app)).country(country)?.asset
  const asset = countryAsset !== undefined && CARD_ASSETS.includes(countryAsset) ? countryAsset : 'USD'
  const network = brandOf(input.number)
  const method = behaviour === 'credit' ? 'credit-card' : 'debit-card'
  const rail = network === undefined
    ? undefined
    : (await catalogueOf(app)).rails().find(r => r.type === 'card' && r.network === network && r.asset === asset && r.method === 'debit-card')
  if (rail === undefined) throw entityNotFound('rail', 'A rail for the specified type, asset and network cannot be found')
  if (rail.features.length === 0) throw conflict('rail_feature_not_available', 'The rail for the specified type, asset and network does not have any available features')
  const fingerprint = await cardFingerprint(app, userId, input.number)
  const store = externalAccountsOf(app)
  if (await store.hasFingerprint(userId, fingerprint)) throw duplicateCard()
  if (behaviour === 'credit') throw conflict('card_type_not_allowed', 'The card type is not allowed', { type: 'credit' })
  if (behaviour === 'issuer-country-mismatch') {
    throw operationNotAllowed(['card-issuer-country-mismatch'], 'The card issuer country does not match the user country of residence')
  }
  if (behaviour === 'declined') throw operationNotAllowed(['card-declined'], 'The card was declined')
  if (behaviour === 'permanently-declined') throw operationNotAllowed(['card-permanently-declined'], 'The card was permanently declined')
  const limits = await cardLimitsOf(app, organizationId)
  const counts = await store.cardCounts(organizationId, userId, fingerprint)
  // A card added before (and deleted since) is no new unique card.
  if (!counts.addedBefore && counts.unique >= limits.unique) throw uniqueCardLimitReached()
  if (counts.active >= limits.active) throw cardMustBeDeleted()
  await requireCapabilities(app, organizationId, userId, ['cards'])
  return {
    id: randomUUID(),
    organizationId,
    userId,
    type: 'card',
    status: 'processing',
    statusReason: null,
    label: input.label,
    asset,
    network: rail.network,
    features: [...rail.features],
    details: { type: method === 'credit-card' ? 'credit' : 'debit', last4Digits: input.number.slice(-4), expiryDate: { month: input.expiryDate.month, year: input.expiryDate.year }, octSupport: 'unknown' },
    fingerprint,
    behaviour: behaviour === '3ds' ? '3ds' : null,
    checkDueAt: app.clock.now() + app.config.cardCheckDelaySeconds * 1000,
    expiresAt,
    createdAt: now,
    updatedAt: now
  }
}

const duplicateCard = (): ApiError => conflict('duplicate', 'The card is already registered', { context: 'body', property: 'number' })
const duplicateBank = (): ApiError => conflict('duplicate', 'The bank account is already registered', { context: 'body', property: 'accountNumber' })
/** Adding the card would pass the limit of distinct cards ever added: deleting one does not help. */
const uniqueCardLimitReached = (): ApiError =>
  capabilityFailure({ code: 'cards', name: 'Cards', enabled: false, requirements: [], restrictions: ['user-unique-card-limit-reached'] })
/** Adding the card would pass the limit of cards held: one must be deleted first. */
const cardMustBeDeleted = (): ApiError =>
  capabilityFailure({ code: 'cards', name: 'Cards', enabled: true, requirements: ['user-must-delete-card'], restrictions: [] })

/** The ABA routing number's check digit: 3, 7 and 1 weights over its nine digits sum to a multiple of ten. */
export function routingNumberValid (routing: string): boolean {
  if (!/^[0-9]{9}$/.test(routing) || /^0+$/.test(routing)) return false
  const d = [...routing].map(Number)
  return (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8])) % 10 === 0
}

/** An ACH bank account, `ok` at once: routing number, the address's country, subdivision and postal code (US: ZIP or ZIP+4), duplicate. */
async function achRecord (app: FastifyInstance, organizationId: string, userId: string, input: CreateAchRequest, now: string): Promise<ExternalAccountRecord> {
  const catalogue = await catalogueOf(app)
  const rail = catalogue.rails().find(r => r.type === 'bank' && r.network === 'ach' && r.asset === input.asset)
  if (rail === undefined) throw entityNotFound('rail', 'A rail for the specified type, asset and network cannot be found')
  if (!routingNumberValid(input.routingNumber)) throw invalidNumber('The routing number is invalid', 'routingNumber')
  const { address } = input
  // The rules a user's own address meets (users/rules.ts), with the same answers.
  await checkPlace(app, 'address', address)
  checkPostalCode(address, 'address', address.country)
  const fingerprint = sha256Hex(`bank:ach:${input.routingNumber}:${input.accountNumber}`)
  if (await externalAccountsOf(app).hasFingerprint(userId, fingerprint)) throw duplicateBank()
  const features = rail.features.filter(f => f === 'withdraw')
  const secondary = catalogue.rails().filter(r => r.type === 'bank' && r.asset === input.asset && r.network === 'fednow' && r.features.includes('withdraw')).map(r => r.network)
  return {
    id: randomUUID(),
    organizationId,
    userId,
    type: 'bank',
    status: 'ok',
    statusReason: null,
    label: input.label,
    asset: input.asset,
    network: 'ach',
    features,
    details: {
      address: { ...address },
      routingNumber: input.routingNumber,
      accountNumber: input.accountNumber,
      accountType: input.accountType,
      ...(secondary.length === 0 ? {} : { secondaryNetworks: { withdraw: secondary } })
    },
    fingerprint,
    behaviour: null,
    checkDueAt: null,
    expiresAt: null,
    createdAt: now,
    updatedAt: now
  }
}

export async function createExternalAccount (app: FastifyInstance, organizationId: string, userId: string, input: CreateExternalAccountRequest): Promise<{ externalAccount: ExternalAccount, errors?: CreationErrors }> {
  await checkExternalAccountType(app, organizationId, input.type)
  const now = app.clock.iso()
  const record = input.type === 'card'
    ? await cardRecord(app, organizationId, userId, input, now)
    : await achRecord(app, organizationId, userId, input, now)
  const { metadata, errors } = metadataAtCreation(input.metadata, now)
  const created = await externalAccountsOf(app).create(record, externalAccountEvents(app), await cardLimitsOf(app, organizationId), metadata)
  if (!created.ok) {
    if (created.reason === 'duplicate') throw record.type === 'card' ? duplicateCard() : duplicateBank()
    if (created.reason === 'card-unique-limit') throw uniqueCardLimitReached()
    if (created.reason === 'card-active-limit') throw cardMustBeDeleted()
    // The guard saw the user a moment ago: it was deleted since.
    throw entityNotFound('user')
  }
  const externalAccount = externalAccountView(created.account)
  return errors === undefined ? { externalAccount } : { externalAccount, errors }
}

export async function deleteExternalAccount (app: FastifyInstance, organizationId: string, userId: string, id: string): Promise<void> {
  await ownExternalAccount(app, organizationId, userId, id)
  if (!await externalAccountsOf(app).remove(organizationId, id, externalAccountEvents(app))) throw externalAccountNotFound()
}

/**
 * Settles the cards whose check or expiry has come on the sandbox clock: now, every second and
 * whenever the clock moves (as the capabilities area ends cooldowns). The due times are stored, so
 * a restart picks them up. Returns the function that stops.
 */
export function followCardChecks (app: FastifyInstance): () => Promise<void> {
  const settleDue = async (scope: DueScope): Promise<void> => {
    const store = externalAccountsOf(app)
    for (;;) {
      const now = app.clock.now()
      const due = await store.due(now, 100, scope)
      await allTogether(due, async id => { await store.settle(id, now, externalAccountEvents(app)) })
      if (due.length < 100) return
    }
  }
  return followDueWork(app, 'settling card checks', async through => await externalAccountsOf(app).earliestDue(through), settleDue)
}
