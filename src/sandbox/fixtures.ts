// The sandbox area's fixture keys (organizations, and the entities that carry metadata until their
// areas own them), and loading a whole fixture document: POST /_sandbox/fixtures and SEED_FILE.
import { createHash, randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { Uuid } from '../../schemas/common.js'
import { FixtureEntity, FixtureOrganizations, type EntityType } from '../../schemas/sandbox.js'
import type { EntityRecord } from '../storage/index.js'
import { StoreConflict } from '../storage/admin.js'
import { compileBodyValidator, toViolations } from '../plugins/validation.js'
import { conflict, type Violation } from '../errors.js'
import { defineFixtureKey } from '../kit/area.js'
import { checkFixtureKeys, fixtureDocumentSchema, type FixtureOutcome } from '../kit/fixtures.js'
import { seedsStore } from './store.js'

/** An account, file, external account or transaction: the sandbox keeps only who owns it. */
export function entityRecord (type: EntityType, id: string, userId: string, organizationId: string, now: string): EntityRecord {
  return { id, type, userId, organizationId, createdAt: now, record: { id, userId, createdAt: now } }
}

export const organizationsFixture = defineFixtureKey({
  key: 'organizations',
  global: true,
  schema: FixtureOrganizations,
  summary: Type.Array(Uuid, { description: 'Organizations created.' }),
  async check (context, items) {
    const { app, bad } = context
    const created: string[] = []
    for (const [i, o] of items.entries()) {
      if (context.organizations.has(o.id)) { bad(`organizations.${i}.id`, 'unique'); continue }
      context.organizations.add(o.id)
      if (await app.storage.organizations.get(o.id) !== undefined) continue
      const row = { id: o.id, name: o.name ?? `Organization ${o.id.slice(0, 8)}`, createdAt: context.now }
      context.load(async () => { await app.storage.admin.fixtureRows.organization(row) })
      created.push(o.id)
    }
    context.summarize('organizations', created)
  }
})

export const entitiesFixture = defineFixtureKey({
  key: 'entities',
  after: ['users'],
  schema: Type.Array(FixtureEntity, { examples: [[{ type: 'accounts', userId: '3f2b8c1e-5d4a-4e6f-9b7c-1a2b3c4d5e6f' }]] }),
  summary: Type.Array(Type.Object({ id: Uuid, type: Type.String(), userId: Uuid, organizationId: Uuid })),
  async check (context, items) {
    const { app, bad } = context
    const summary: Array<{ id: string, type: string, userId: string, organizationId: string }> = []
    for (const [i, e] of items.entries()) {
      const id = e.id ?? randomUUID()
      let ok = true
      if (await context.entity(id) !== undefined) { bad(`entities.${i}.id`, 'unique'); ok = false }
      const organizationId = await context.userOrganization(e.userId)
      if (organizationId === undefined) { bad(`entities.${i}.userId`, 'exists', { entity: 'user' }); continue }
      if (e.organizationId !== undefined && e.organizationId !== organizationId) { bad(`entities.${i}.organizationId`, 'match', { organizationId }); ok = false }
      if (!ok) continue
      context.entities.set(id, { type: e.type, organizationId })
      // A type an area holds (files) is written as a real record of that area.
      const owned = app.areas.sandboxEntity(e.type)
      const row = entityRecord(e.type, id, e.userId, organizationId, context.now)
      context.load(owned === undefined
        ? async () => { await app.storage.admin.fixtureRows.entity(row) }
        : async () => { await owned.fixtureRow(app, { id, organizationId, userId: e.userId, createdAt: context.now }) })
      summary.push({ id, type: e.type, userId: e.userId, organizationId })
    }
    context.summarize('entities', summary)
  }
})

const validators = new WeakMap<FastifyInstance, ReturnType<typeof compileBodyValidator>>()

/** Checks a fixture document in full: the composed schema first, then every area's key. */
export async function checkFixture (app: FastifyInstance, input: unknown, organizationId?: string): Promise<FixtureOutcome> {
  let validate = validators.get(app)
  if (validate === undefined) validators.set(app, validate = compileBodyValidator(fixtureDocumentSchema(app.areas)))
  if (!validate(input)) return { ok: false, violations: toViolations(validate.errors ?? []) }
  return await checkFixtureKeys(app, app.areas, input as Record<string, unknown>, organizationId)
}

/** Loads a checked fixture in one transaction; a write that lost a race to a conflicting one loads nothing. */
export async function loadFixture (app: FastifyInstance, checked: Extract<FixtureOutcome, { ok: true }>, first?: () => Promise<boolean>): Promise<Record<string, unknown>> {
  const writes = await Promise.all(checked.writes)
  try {
    // One after another: each sees the rows of the ones before (a user before its entities).
    // `first`, inside the same write, may decide that nothing is to be loaded (a seed another
    // replica has loaded meanwhile).
    await app.storage.admin.atomically(async () => {
      if (first !== undefined && !await first()) return
      for (const write of writes) await write()
    })
  } catch (err) {
    if (err instanceof StoreConflict) {
      throw conflict('fixture_conflict', 'The fixture conflicts with data written while it was loading; nothing was loaded')
    }
    throw err
  } finally {
    app.clients.forget()
  }
  return checked.summary
}

export class SeedError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'SeedError'
  }
}

const describe = (v: Violation): string => `  - ${v.property === '' ? '(document)' : v.property}: ${v.rule}${v.ruleParams === undefined ? '' : ' ' + JSON.stringify(v.ruleParams)}`

export interface Seed { file: string, digest: string, document: unknown }

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
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (err) {
    throw new SeedError(`SEED_FILE ${file} is not JSON: ${(err as Error).message}`)
  }
  const seed = { file, digest: createHash('sha256').update(text).digest('hex'), document }
  if (await app.storage.store(seedsStore).loaded(seed.digest)) {
    app.log.info({ seedFile: file }, 'seed already loaded into this database')
  } else {
    await applySeed(app, seed)
  }
  return seed
}

/** Checks and loads a seed, recording its digest. */
export async function applySeed (app: FastifyInstance, seed: Seed): Promise<void> {
  const checked = await checkFixture(app, seed.document)
  const seeds = app.storage.store(seedsStore)
  if (!checked.ok) {
    // Another replica starting at the same moment may have loaded it since this one looked: its
    // rows are what the check found taken.
    if (await seeds.loaded(seed.digest)) {
      app.log.info({ seedFile: seed.file }, 'seed loaded by another replica meanwhile')
      return
    }
    throw new SeedError(`SEED_FILE ${seed.file} is not a valid fixture; nothing was loaded:\n${checked.violations.map(describe).join('\n')}`)
  }
  // Replicas that start together each check the seed; the first to write it marks it loaded in
  // the same write, and the others, serialised behind it, find it marked and load nothing.
  const summary = await loadFixture(app, checked, async () => {
    if (await seeds.loaded(seed.digest)) return false
    await seeds.markLoaded(seed.digest, app.clock.iso())
    return true
  })
  const count = (key: string): number => (summary[key] as unknown[] | undefined)?.length ?? 0
  app.log.info({ seedFile: seed.file, users: count('users'), clients: count('clients'), entities: count('entities') }, 'seed loaded')
}
