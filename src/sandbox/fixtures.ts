// Fixture documents (POST /_sandbox/fixtures and SEED_FILE): checked in full first (schema, then
// every reference against the fixture itself and the database), then loaded in one transaction.
import { createHash, randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { FixtureDocument, type EntityType, type FixtureSummary } from '../../schemas/sandbox.js'
import type { EntityRecord, UserRecord } from '../storage/index.js'
import type { FixturePlan } from '../storage/admin.js'
import { compileBodyValidator, toViolations } from '../plugins/validation.js'
import { conflict, type Violation } from '../errors.js'
import { hashSecret } from '../auth/clients.js'
import { emailKey } from '../storage/core.js'
import { scopeViolation } from './scopes.js'
import { checkCatalogueFixture, hasCatalogueEntries, loadCatalogueFixture } from '../catalogue/fixtures.js'
import { railKey } from '../catalogue/catalogue.js'
import type { CatalogueEntries } from '../catalogue/store.js'

const METADATA_LIMIT = 1024
const validateDocument = compileBodyValidator(FixtureDocument)

export type FixtureCheck =
  | { ok: false, violations: Violation[] }
  | { ok: true, plan: Omit<FixturePlan, 'clients'>, catalogue: CatalogueEntries, clients: Array<{ clientId: string, clientSecret: string, name?: string, organizationId: string, scopes: string[], refreshTokens: boolean, userId: string | null }>, summary: FixtureSummary }

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

/** An account, file, external account or transaction: the sandbox keeps only who owns it. */
export function entityRecord (type: EntityType, id: string, userId: string, organizationId: string, now: string): EntityRecord {
  return { id, type, userId, organizationId, createdAt: now, record: { id, userId, createdAt: now } }
}

/** Serialized size in Unicode code points, as the metadata limit counts. */
const sizeOf = (value: unknown): number => [...JSON.stringify(value)].length

export async function checkFixture (app: FastifyInstance, input: unknown): Promise<FixtureCheck> {
  if (!validateDocument(input)) return { ok: false, violations: toViolations(validateDocument.errors ?? []) }
  const doc = input as FixtureDocument
  const { storage } = app
  const now = app.clock.iso()
  const demoOrg = app.config.demoClient.organizationId
  const violations: Violation[] = []
  const bad = (property: string, rule: string, ruleParams?: Record<string, unknown>): void => {
    violations.push(ruleParams === undefined ? { property, rule } : { property, rule, ruleParams })
  }

  const plan: Omit<FixturePlan, 'clients'> = { organizations: [], users: [], entities: [], metadata: [] }
  const summary: FixtureSummary = { organizations: [], users: [], clients: [], entities: [], metadata: [] }

  const fixtureOrgs = new Set<string>()
  for (const [i, o] of (doc.organizations ?? []).entries()) {
    if (fixtureOrgs.has(o.id)) { bad(`organizations.${i}.id`, 'unique'); continue }
    fixtureOrgs.add(o.id)
    if (await storage.organizations.get(o.id) !== undefined) continue
    plan.organizations.push({ id: o.id, name: o.name ?? `Organization ${o.id.slice(0, 8)}`, createdAt: now })
    summary.organizations.push(o.id)
  }
  const orgExists = async (id: string): Promise<boolean> => fixtureOrgs.has(id) || await storage.organizations.get(id) !== undefined

  const fixtureUsers = new Map<string, string>()
  const emails = new Set<string>()
  for (const [i, u] of (doc.users ?? []).entries()) {
    const organizationId = u.organizationId ?? demoOrg
    const id = u.id ?? randomUUID()
    let ok = true
    if (!await orgExists(organizationId)) { bad(`users.${i}.organizationId`, 'exists', { entity: 'organization' }); ok = false }
    if (fixtureUsers.has(id) || await storage.admin.userOrganization(id) !== undefined) { bad(`users.${i}.id`, 'unique'); ok = false }
    const key = `${organizationId} ${emailKey(u.email)}`
    if (emails.has(key) || await storage.users.findByEmail(organizationId, u.email) !== undefined) { bad(`users.${i}.email`, 'unique'); ok = false }
    emails.add(key)
    if (!ok) continue
    fixtureUsers.set(id, organizationId)
    const citizenship = u.primaryCitizenship ?? u.address?.country ?? 'US'
    plan.users.push(userRecord(id, organizationId, u.email, citizenship, u.address ?? { country: citizenship }, now))
    summary.users.push({ id, organizationId, email: u.email })
  }
  const userOrg = async (id: string): Promise<string | undefined> => fixtureUsers.get(id) ?? await storage.admin.userOrganization(id)

  const clients: Extract<FixtureCheck, { ok: true }>['clients'] = []
  const clientIds = new Set<string>()
  for (const [i, c] of (doc.clients ?? []).entries()) {
    const organizationId = c.organizationId ?? demoOrg
    if (clientIds.has(c.clientId) || await app.clients.get(c.clientId) !== undefined) bad(`clients.${i}.clientId`, 'unique')
    clientIds.add(c.clientId)
    if (!await orgExists(organizationId)) bad(`clients.${i}.organizationId`, 'exists', { entity: 'organization' })
    for (const [j, s] of c.scopes.entries()) {
      const v = scopeViolation(app, s)
      if (v !== undefined) bad(`clients.${i}.scopes.${j}`, v.rule, v.ruleParams)
    }
    const userId = c.userId ?? null
    if (userId !== null && await userOrg(userId) !== organizationId) bad(`clients.${i}.userId`, 'exists', { entity: 'user', organizationId })
    clients.push({ clientId: c.clientId, clientSecret: c.clientSecret, name: c.name, organizationId, scopes: c.scopes, refreshTokens: c.refreshTokens ?? false, userId })
    summary.clients.push({ clientId: c.clientId, organizationId })
  }

  const fixtureEntities = new Map<string, { type: string, organizationId: string }>()
  for (const [i, e] of (doc.entities ?? []).entries()) {
    const id = e.id ?? randomUUID()
    let ok = true
    if (fixtureEntities.has(id) || await storage.admin.entity(id) !== undefined) { bad(`entities.${i}.id`, 'unique'); ok = false }
    const organizationId = await userOrg(e.userId)
    if (organizationId === undefined) { bad(`entities.${i}.userId`, 'exists', { entity: 'user' }); continue }
    if (e.organizationId !== undefined && e.organizationId !== organizationId) { bad(`entities.${i}.organizationId`, 'match', { organizationId }); ok = false }
    if (!ok) continue
    fixtureEntities.set(id, { type: e.type, organizationId })
    plan.entities.push(entityRecord(e.type, id, e.userId, organizationId, now))
    summary.entities.push({ id, type: e.type, userId: e.userId, organizationId })
  }

  const withMetadata = new Set<string>()
  for (const [i, m] of (doc.metadata ?? []).entries()) {
    const key = `${m.entity} ${m.entityId}`
    if (withMetadata.has(key)) bad(`metadata.${i}.entityId`, 'unique')
    withMetadata.add(key)
    let organizationId: string | undefined
    if (m.entity === 'users') {
      organizationId = await userOrg(m.entityId)
    } else {
      const found = fixtureEntities.get(m.entityId) ?? await storage.admin.entity(m.entityId)
      if (found?.type === m.entity) organizationId = found.organizationId
    }
    if (organizationId === undefined) bad(`metadata.${i}.entityId`, 'exists', { entity: m.entity })
    else if (m.organizationId !== undefined && m.organizationId !== organizationId) bad(`metadata.${i}.organizationId`, 'match', { organizationId })
    if (sizeOf(m.metadata) > METADATA_LIMIT) bad(`metadata.${i}.metadata`, 'maxLength', { limit: METADATA_LIMIT, unit: 'characters' })
    if (organizationId === undefined) continue
    plan.metadata.push({ entityType: m.entity, entityId: m.entityId, organizationId, metadata: m.metadata })
    summary.metadata.push({ entity: m.entity, entityId: m.entityId })
  }

  const catalogue = await checkCatalogueFixture(app, doc)
  if (!catalogue.ok) violations.push(...catalogue.violations)
  else if (hasCatalogueEntries(catalogue.entries)) {
    const { assets, networks, rails, countries } = catalogue.entries
    summary.catalogue = { assets: assets.map(a => a.code), networks: networks.map(n => n.code), rails: rails.map(railKey), countries: countries.map(c => c.code) }
  }
  return violations.length > 0 || !catalogue.ok ? { ok: false, violations } : { ok: true, plan, catalogue: catalogue.entries, clients, summary }
}

/** Loads a checked fixture in one transaction; a write that lost a race to a conflicting one loads nothing. */
export async function loadFixture (app: FastifyInstance, checked: Extract<FixtureCheck, { ok: true }>): Promise<FixtureSummary> {
  const createdAt = app.clock.iso()
  const clients = await Promise.all(checked.clients.map(async c => ({
    id: c.clientId,
    organizationId: c.organizationId,
    name: c.name,
    scopes: c.scopes,
    refreshTokens: c.refreshTokens,
    userId: c.userId,
    createdAt,
    ...await hashSecret(c.clientSecret)
  })))
  try {
    await app.storage.admin.loadFixture({ ...checked.plan, clients }, createdAt)
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT') === true) {
      throw conflict('fixture_conflict', 'The fixture conflicts with data written while it was loading; nothing was loaded')
    }
    throw err
  } finally {
    app.clients.forget()
  }
  // The catalogue's entries (already checked) are upserts that no concurrent write can refuse.
  await loadCatalogueFixture(app, checked.catalogue)
  return checked.summary
}

export class SeedError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'SeedError'
  }
}

const describe = (v: Violation): string => `  - ${v.property === '' ? '(document)' : v.property}: ${v.rule}${v.ruleParams === undefined ? '' : ' ' + JSON.stringify(v.ruleParams)}`

export interface Seed { file: string, digest: string, document: FixtureDocument }

/**
 * Loads SEED_FILE unless this database already holds exactly that seed. Returns the seed, so a
 * full reset can bring the start state back. Throws SeedError naming every bad path.
 */
export async function loadSeed (app: FastifyInstance, file: string): Promise<Seed> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    throw new SeedError(`SEED_FILE ${file} cannot be read: ${(err as Error).message}`)
  }
  let document: FixtureDocument
  try {
    document = JSON.parse(text) as FixtureDocument
  } catch (err) {
    throw new SeedError(`SEED_FILE ${file} is not JSON: ${(err as Error).message}`)
  }
  const seed = { file, digest: createHash('sha256').update(text).digest('hex'), document }
  if (await app.storage.admin.seedLoaded(seed.digest)) {
    app.log.info({ seedFile: file }, 'seed already loaded into this database')
  } else {
    await applySeed(app, seed)
  }
  return seed
}

/** Checks and loads a seed, recording its digest. */
export async function applySeed (app: FastifyInstance, seed: Seed): Promise<void> {
  const checked = await checkFixture(app, seed.document)
  if (!checked.ok) {
    throw new SeedError(`SEED_FILE ${seed.file} is not a valid fixture; nothing was loaded:\n${checked.violations.map(describe).join('\n')}`)
  }
  const summary = await loadFixture(app, checked)
  await app.storage.admin.markSeedLoaded(seed.digest, app.clock.iso())
  app.log.info({ seedFile: seed.file, users: summary.users.length, clients: summary.clients.length, entities: summary.entities.length }, 'seed loaded')
}
