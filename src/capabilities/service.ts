// Capabilities as the API answers them: the facts of a user gathered from the KYC area, the users,
// the catalogue (countries, terms), the acceptances and the cooldown, handed to the evaluator; the
// check other areas' operations make (409 user_capability_failure); terms acceptance; the
// financial-promotions cooldown, ended by the sandbox clock or the test helper.
import type { FastifyInstance } from 'fastify'
import { allTogether, followDueWork, type DueScope } from '../kit/due-work.js'
import { ApiError, conflict, entityNotFound } from '../errors.js'
import { catalogueOf, catalogueService, countryAllows } from '../catalogue/lookup.js'
import { kycStore } from '../kyc/store.js'
import type { UserRecord } from '../storage/types.js'
import { operationNotAllowed, requireUserContext } from '../http/user-context.js'
import type { TermsOfService } from '../../schemas/catalogue.js'
import type { ProcessCode, ProcessStatus } from '../../schemas/kyc.js'
import { evaluate, evaluateAll, fulfilled, type Capability, type CapabilityCode, type UserFacts } from './evaluate.js'
import { capabilitiesStore, type CapabilitiesStore, type Cooldown } from './store.js'

export const capabilitiesOf = (app: FastifyInstance): CapabilitiesStore => app.storage.store(capabilitiesStore)

/** Where the financial-promotions cooldown applies: new individual users residing here. */
export const COOLDOWN_COUNTRIES = ['GB']
/** How long it runs from the user's creation. */
export const COOLDOWN_MS = 24 * 60 * 60 * 1000
export const COOLDOWN_FEATURES = ['buy', 'deposit']
export const VIBAN_TERMS = 'unique-account-number-viban'

interface UserBasics { organizationId: string, userId: string, type: 'individual' | 'business', country: string, createdAt: string }

function basicsOf (organizationId: string, userId: string, stored: Record<string, unknown>, createdAt: string): UserBasics {
  const record = stored as { type?: string, address?: { country?: string } }
  return { organizationId, userId, type: record.type === 'business' ? 'business' : 'individual', country: String(record.address?.country ?? ''), createdAt }
}

async function basics (app: FastifyInstance, organizationId: string, userId: string): Promise<UserBasics> {
  const user = await userRow(app, organizationId, userId)
  return basicsOf(organizationId, userId, user.record, user.createdAt)
}

/** The user's row; not found when the user does not exist. */
async function userRow (app: FastifyInstance, organizationId: string, userId: string): Promise<UserRecord> {
  const user = await app.storage.users.get(organizationId, userId)
  if (user === undefined) throw entityNotFound('user')
  return user
}

/** Whether terms apply to a user of this country and type. */
export const termsApply = (terms: Pick<TermsOfService, 'countries' | 'userTypes'>, country: string, type: string): boolean =>
  (terms.countries === undefined || terms.countries.includes(country)) && (terms.userTypes === undefined || (terms.userTypes as string[]).includes(type))

/**
 * The user's cooldown: individual users residing in a cooldown country get one on the crypto
 * assets, ending COOLDOWN_MS after their creation. The follower records it within a second of the
 * user's creation; a read before that records it itself (one that had already ended then is
 * recorded as ended, without an event).
 */
async function cooldownOf (app: FastifyInstance, user: UserBasics): Promise<Cooldown | undefined> {
  const store = capabilitiesOf(app)
  const stored = await store.cooldown(user.userId)
  if (stored !== undefined) return stored
  const endsAt = Date.parse(user.createdAt) + COOLDOWN_MS
  return await startCooldown(app, user, endsAt <= app.clock.now() ? new Date(endsAt).toISOString() : null)
}

/** Records the cooldown of a user who gets one (an individual residing in a cooldown country). */
async function startCooldown (app: FastifyInstance, user: UserBasics, endedAt: string | null): Promise<Cooldown | undefined> {
  if (user.type !== 'individual' || !COOLDOWN_COUNTRIES.includes(user.country)) return undefined
  const assets = (await catalogueOf(app)).assets().filter(a => a.type === 'crypto').map(a => a.code)
  const endsAt = Date.parse(user.createdAt) + COOLDOWN_MS
  return await capabilitiesOf(app).startCooldown({ userId: user.userId, organizationId: user.organizationId, assets, features: COOLDOWN_FEATURES, endsAt, endedAt })
}

const running = (c: Cooldown | undefined, now: number): c is Cooldown => c !== undefined && c.endedAt === null && c.endsAt > now

/** Cooldowns of the user by asset, as assets show them (`cooldowns`); empty when none runs. */
export async function assetCooldowns (app: FastifyInstance, organizationId: string, userId: string): Promise<Record<string, Array<{ rule: 'financial-promotions', features: string[], endsAt: string }>>> {
  const user = await basics(app, organizationId, userId)
  const cooldown = await cooldownOf(app, user)
  if (!running(cooldown, app.clock.now())) return {}
  const entry = { rule: 'financial-promotions' as const, features: cooldown.features, endsAt: new Date(cooldown.endsAt).toISOString() }
  return Object.fromEntries(cooldown.assets.map(a => [a, [entry]]))
}

/** When the user accepted each terms-of-service version: the general ones that apply to them at their creation, the others through the API. */
export async function termsAcceptedAt (app: FastifyInstance, organizationId: string, userId: string): Promise<Record<string, string>> {
  const user = await basics(app, organizationId, userId)
  const out: Record<string, string> = {}
  for (const terms of catalogueService(app).listTermsOfService({})) {
    if (terms.type === 'general' && termsApply(terms, user.country, user.type)) out[terms.code] = user.createdAt
  }
  return { ...out, ...await capabilitiesOf(app).acceptances(userId) }
}

/**
 * The facts the evaluator needs. `cardLimits: false` leaves the card limits out: they say what
 * adding a card needs (the external accounts area checks them itself when a card is added), not
 * what an operation on a card the user already holds does.
 */
export async function userFacts (app: FastifyInstance, organizationId: string, userId: string, { cardLimits = true } = {}): Promise<UserFacts> {
  const row = await userRow(app, organizationId, userId)
  const user = basicsOf(organizationId, userId, row.record, row.createdAt)
  // The KYC snapshot of the row just read (one read of the user, not one for each).
  const snapshot = await app.storage.store(kycStore).readFor({ id: userId, organizationId, email: row.email, record: row.record })
  const kyc = Object.fromEntries(Object.entries(snapshot.processes).map(([code, state]) => [code, state.status])) as Record<ProcessCode, ProcessStatus>
  const viban = catalogueService(app).listTermsOfService({}).find(t => t.code === VIBAN_TERMS)
  const accepted = await capabilitiesOf(app).acceptances(userId)
  return {
    userType: user.type,
    country: user.country,
    countrySupported: user.country !== '' && await countryAllows(app, user.country, 'residence'),
    kyc,
    vibanTerms: { applies: viban !== undefined && termsApply(viban, user.country, user.type), accepted: accepted[VIBAN_TERMS] !== undefined },
    cooldownRunning: running(await cooldownOf(app, user), app.clock.now()),
    // The external accounts area counts the user's cards, and knows their limits, through the registry's hook.
    cards: cardLimits ? await app.areas.userCards(app, organizationId, userId) : undefined
  }
}

export async function listCapabilities (app: FastifyInstance, organizationId: string, userId: string): Promise<Capability[]> {
  return evaluateAll(await userFacts(app, organizationId, userId))
}

export async function getCapability (app: FastifyInstance, organizationId: string, userId: string, code: CapabilityCode): Promise<Capability> {
  return evaluate(code, await userFacts(app, organizationId, userId))
}

export const capabilityFailure = (c: Capability): ApiError =>
  conflict('user_capability_failure', 'The user has capability constraints', { capability: { code: c.code, requirements: c.requirements, restrictions: c.restrictions } })

/**
 * The check of every operation that needs capabilities: 409 `user_capability_failure` naming the
 * first one, in the order given, that is restricted or still has requirements. The card limits
 * are not among them: only adding a card meets those, and it checks them first.
 */
export async function requireCapabilities (app: FastifyInstance, organizationId: string, userId: string, codes: CapabilityCode[]): Promise<void> {
  const facts = await userFacts(app, organizationId, userId, { cardLimits: false })
  for (const code of codes) {
    const capability = evaluate(code, facts)
    if (!fulfilled(capability)) throw capabilityFailure(capability)
  }
}

/** Whether the terms apply to the user: the vIBAN terms only to those the evaluator offers vIBAN to. */
export async function vibanTermsApply (app: FastifyInstance, organizationId: string, userId: string): Promise<boolean> {
  return (await userFacts(app, organizationId, userId)).vibanTerms.applies
}

/**
 * Accepts terms through the API (only the vIBAN terms can be): needs the user's IP, terms that apply
 * to the user's type and country of residence, and terms not accepted yet.
 */
export async function acceptTerms (app: FastifyInstance, organizationId: string, userId: string, code: string, ip: string | undefined): Promise<TermsOfService> {
  const context = { ip }
  requireUserContext(context, ['ip'], app.config.serviceName)
  const user = await basics(app, organizationId, userId)
  const terms = catalogueService(app).listTermsOfService({}).find(t => t.code === code)
  if (terms === undefined) throw entityNotFound('termsOfService')
  if (terms.userTypes !== undefined && !(terms.userTypes as string[]).includes(user.type)) {
    throw operationNotAllowed(['terms-of-service-not-applicable'], `The terms of service cannot be accepted by users of type '${user.type}'`)
  }
  if (!termsApply(terms, user.country, user.type)) {
    throw operationNotAllowed(['terms-of-service-not-applicable'], 'The terms of service cannot be accepted because they do not apply to the user country of residence')
  }
  const at = app.clock.iso()
  if (!await capabilitiesOf(app).accept(organizationId, userId, code, at, context.ip)) {
    throw operationNotAllowed(['terms-of-service-already-accepted'], 'The terms of service have already been accepted')
  }
  return { ...terms, acceptedAt: at }
}

const cooldownEvent = (app: FastifyInstance) => (c: Cooldown) => app.events.build(c.organizationId, 'core.assets.cooldown-ended', {
  userId: c.userId,
  assets: c.assets,
  cooldown: { rule: 'financial-promotions', features: c.features, endsAt: new Date(c.endsAt).toISOString() }
})

/** The test helper: ends the user's running cooldown now, with its event. */
export async function skipCooldowns (app: FastifyInstance, organizationId: string, userId: string): Promise<void> {
  const user = await basics(app, organizationId, userId)
  const cooldown = await cooldownOf(app, user)
  if (cooldown === undefined || cooldown.endedAt !== null) return
  await capabilitiesOf(app).endCooldown(userId, app.clock.iso(), cooldownEvent(app))
}

/**
 * Ends the cooldowns whose time has come on the sandbox clock: now, every second and whenever the
 * clock moves (the KYC area's reviews follow the clock the same way). Returns the function that stops.
 */
export function followCooldowns (app: FastifyInstance): () => Promise<void> {
  const endDue = async (scope: DueScope): Promise<void> => {
    const store = capabilitiesOf(app)
    // New users first: each gets its cooldown now (running, even when its end has already come, so
    // the end is announced below), rather than when it is first read.
    // Once a run (in its last pass), each user's cooldown on its organization's clock.
    for (;;) {
      if (scope !== null) break
      const { users, through } = await store.newUsers(100)
      // Each organization's new users on its clock, grouped into shared commits (allTogether): a
      // commit each made 1 000 new users 1 000 commits, one after another.
      const byOrganization = new Map<string, typeof users>()
      for (const u of users) {
        const own = byOrganization.get(u.organizationId)
        if (own === undefined) byOrganization.set(u.organizationId, [u])
        else own.push(u)
      }
      for (const [organizationId, own] of byOrganization) {
        await app.clock.within(organizationId, async () => {
          await allTogether(own, async u => await startCooldown(app, basicsOf(u.organizationId, u.userId, u.record, u.createdAt), null))
        })
      }
      if (users.length > 0) await store.scannedThrough(through)
      if (users.length < 100) break
    }
    for (;;) {
      const now = app.clock.now()
      const due = await store.due(now, 100, scope)
      await allTogether(due, async userId => await store.endCooldown(userId, new Date(now).toISOString(), cooldownEvent(app)))
      if (due.length < 100) return
    }
  }
  return followDueWork(app, 'ending cooldowns', async through => await capabilitiesOf(app).earliestDue(through), endDue)
}
