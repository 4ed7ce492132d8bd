// Fixture documents (POST /_sandbox/fixtures and SEED_FILE), composed of the areas' keys. The
// document's schema is every key's schema; then each key checks its items, in dependency order,
// against the fixture so far and the database, and plans its rows; only when no key found a
// problem are all rows written, in one transaction.
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from 'typebox'
import type { Violation } from '../errors.js'
import type { AreaRegistry, FixtureContext, FixtureKey, FixtureWrite } from './area.js'

export type { FixtureContext, FixtureWrite }

export type FixtureOutcome =
  | { ok: false, violations: Violation[] }
  | { ok: true, writes: Array<Promise<FixtureWrite>>, summary: Record<string, unknown> }

/** The keys in an order where each comes after those it names in `after`. */
export function orderedKeys (keys: FixtureKey[]): FixtureKey[] {
  const byKey = new Map(keys.map(k => [k.key, k]))
  const done = new Set<string>()
  const out: FixtureKey[] = []
  const visit = (k: FixtureKey, path: string[]): void => {
    if (done.has(k.key)) return
    if (path.includes(k.key)) throw new Error(`Fixture keys depend on each other in a cycle: ${[...path, k.key].join(' -> ')}`)
    for (const before of k.after ?? []) {
      const dependency = byKey.get(before)
      if (dependency !== undefined) visit(dependency, [...path, k.key])
    }
    done.add(k.key)
    out.push(k)
  }
  for (const k of keys) visit(k, [])
  return out
}

/** The fixture document's schema: every key optional, nothing else allowed. */
export function fixtureDocumentSchema (areas: AreaRegistry): TSchema {
  const properties: Record<string, TSchema> = {}
  // The document's example is made of the keys' own: each key's first example, where it has one.
  const example: Record<string, unknown> = {}
  for (const k of orderedKeys(areas.fixtureKeys())) {
    properties[k.key] = Type.Optional(k.schema)
    const examples = (k.schema as { examples?: unknown[] }).examples
    if (examples !== undefined && examples.length > 0) example[k.key] = examples[0]
  }
  return Type.Object(properties, { additionalProperties: false, description: 'A fixture document; every part is optional. Items refer to each other by id.', examples: [example] })
}

/** The answer's schema: what each key loaded. */
export function fixtureSummarySchema (areas: AreaRegistry): TSchema {
  const properties: Record<string, TSchema> = {}
  for (const k of orderedKeys(areas.fixtureKeys())) properties[k.key] = k.summary
  return Type.Object(properties)
}

/** Checks a document that passed the schema: each key in order, all of them, every problem named. */
/** The keys of a document that act on every organization (see FixtureKey.global). */
export const globalKeysOf = (areas: AreaRegistry, document: Record<string, unknown>): string[] =>
  areas.fixtureKeys().filter(k => k.global === true && document[k.key] !== undefined).map(k => k.key)

/**
 * Checks a document that passed the schema: each key in order, all of them, every problem named.
 * `organizationId` bounds it to one organization (an organization's control token loads it): its
 * items default to it, and nothing of another organization exists for them.
 */
export async function checkFixtureKeys (app: FastifyInstance, areas: AreaRegistry, document: Record<string, unknown>, organizationId?: string): Promise<FixtureOutcome> {
  const violations: Violation[] = []
  const writes: Array<Promise<FixtureWrite>> = []
  const summary: Record<string, unknown> = {}
  const { storage } = app
  const inBounds = <T extends string | { organizationId: string }>(found: T | undefined): T | undefined => {
    if (organizationId === undefined || found === undefined) return found
    return (typeof found === 'string' ? found : found.organizationId) === organizationId ? found : undefined
  }
  const context: FixtureContext = {
    app,
    now: app.clock.iso(),
    demoOrganizationId: organizationId ?? app.config.demoClient.organizationId,
    bad: (property, rule, ruleParams) => { violations.push(ruleParams === undefined ? { property, rule } : { property, rule, ruleParams }) },
    organizations: new Set(),
    organizationExists: async id => (organizationId === undefined || id === organizationId) && (context.organizations.has(id) || await storage.organizations.get(id) !== undefined),
    users: new Map(),
    userOrganization: async id => inBounds(context.users.get(id) ?? await storage.admin.userOrganization(id)),
    entities: new Map(),
    entity: async id => inBounds(context.entities.get(id) ?? await storage.admin.entity(id) ?? await areas.findSandboxEntity(app, id)),
    load: write => { writes.push(Promise.resolve(write)) },
    summarize: (key, value) => { summary[key] = value }
  }
  for (const k of orderedKeys(areas.fixtureKeys())) await k.check(context, document[k.key] ?? [])
  // A loader's pending work (a hashed secret) settles even when nothing is written.
  if (violations.length > 0) {
    await Promise.allSettled(writes)
    return { ok: false, violations }
  }
  return { ok: true, writes, summary }
}
