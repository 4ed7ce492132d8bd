// Fixture documents (POST /_sandbox/fixtures and SEED_FILE), composed of the areas' keys. The
// document's schema is every key's schema; then each key checks its items, in dependency order,
// against the fixture so far and the database, and plans its rows; only when no key found a
// problem are all rows written, in one transaction.
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from 'typebox'
import type { Violation } from '../errors.js'
import type { AreaRegistry, FixtureKey } from './area.js'

/** What the keys checked so far planned, and the database, as the next key sees them. */
export interface FixtureContext {
  readonly app: FastifyInstance
  /** The sandbox clock's now: every row's creation time. */
  readonly now: string
  readonly demoOrganizationId: string
  /** Reports a problem at a path of the document (`users.2.email`). */
  bad: (property: string, rule: string, ruleParams?: Record<string, unknown>) => void
  /** Organizations the fixture names, and their existence in the fixture or the database. */
  readonly organizations: Set<string>
  organizationExists: (id: string) => Promise<boolean>
  /** The fixture's users by id, with their organization. */
  readonly users: Map<string, string>
  /** A user's organization, from the fixture or the database. */
  userOrganization: (id: string) => Promise<string | undefined>
  /** The fixture's entities (accounts, files, ...) by id. */
  readonly entities: Map<string, { type: string, organizationId: string }>
  /** An entity of the fixture or the database. */
  entity: (id: string) => Promise<{ type: string, organizationId: string } | undefined>
  /**
   * Plans rows: `write` runs inside the fixture's one transaction, after every key has checked,
   * awaited before the next one runs. A loader whose rows need work first (hashing a secret)
   * returns the write from a promise.
   */
  load: (write: FixtureWrite | Promise<FixtureWrite>) => void
  /** The key's part of the answer (`{ users: [...] }`). */
  summarize: (key: string, value: unknown) => void
}

/** Writes planned rows inside the fixture's transaction; settles once every statement has run. */
export type FixtureWrite = () => Promise<void>

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
export async function checkFixtureKeys (app: FastifyInstance, areas: AreaRegistry, document: Record<string, unknown>): Promise<FixtureOutcome> {
  const violations: Violation[] = []
  const writes: Array<Promise<FixtureWrite>> = []
  const summary: Record<string, unknown> = {}
  const { storage } = app
  const context: FixtureContext = {
    app,
    now: app.clock.iso(),
    demoOrganizationId: app.config.demoClient.organizationId,
    bad: (property, rule, ruleParams) => { violations.push(ruleParams === undefined ? { property, rule } : { property, rule, ruleParams }) },
    organizations: new Set(),
    organizationExists: async id => context.organizations.has(id) || await storage.organizations.get(id) !== undefined,
    users: new Map(),
    userOrganization: async id => context.users.get(id) ?? await storage.admin.userOrganization(id),
    entities: new Map(),
    entity: async id => context.entities.get(id) ?? await storage.admin.entity(id) ?? await areas.findSandboxEntity(app, id),
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
