// What an area of the API declares next to its routes, and the registry the core composes from
// every area's declaration. The core never names an area's tags, tables, fixture keys or entities:
// it reads them here, so adding an area is its folder and one line in src/areas.ts.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import type { Static, TSchema } from 'typebox'
import type { Migration } from '../storage/migrate.js'
import type { ConfigVariable } from './config.js'

/** An entity type that carries metadata (`/core/<segment>/<id>/metadata`), in the API's own words. */
export interface MetadataEntity {
  /** Path segment, and the entity type of the metadata rows. */
  segment: string
  /** `details.entity` of a 404, as in "The <name> cannot be found". */
  name: string
  /** The path parameter naming one entity. */
  param: string
  /** Words for summaries: "Get <title> metadata". */
  title: string
  /** Prefix of operation ids: `get<Operation>Metadata`. */
  operation: string
  /**
   * The owner of an entity of this type in the organization, or undefined when there is none.
   * Absent for users, whose metadata only the acting user reaches.
   */
  ownerOf?: (app: FastifyInstance, organizationId: string, entityId: string) => Promise<string | undefined>
}

// The fixture document's planning (src/kit/fixtures.ts runs it); here so that the keys' type needs
// nothing of the runner.
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

/** A top-level key of the fixture document (`POST /_sandbox/fixtures`, SEED_FILE). */
export interface FixtureKey {
  key: string
  /** The schema of the key's value (the document's schema is composed of them). */
  schema: TSchema
  /** The schema of the key's part of the answer. */
  summary: TSchema
  /** Keys whose items this key's items refer to: checked before it. */
  after?: string[]
  /**
   * The key acts on every organization (organizations, the catalogue): an organization's control
   * token may not load it. Absent: its items are bound to an organization.
   */
  global?: boolean
  /**
   * Checks the key's items against the fixture so far and the database, reporting violations
   * through `context`, and plans their rows. Runs in area order, so a key sees the keys before it.
   */
  check: (context: FixtureContext, items: unknown) => Promise<void>
}

/** An entity of a sandbox-created type (`POST /_sandbox/entities/<segment>`, the `entities` fixture key). */
export interface SandboxEntityInput {
  id: string
  organizationId: string
  userId: string
  createdAt: string
  /** Accounts: the asset asked for (`POST /_sandbox/entities/accounts`), when one was. */
  asset?: string
}

/**
 * An entity type an area holds itself, which the sandbox's entities route and fixture key create
 * through it (a real record of the area) rather than as a bare owner row.
 */
export interface SandboxEntity {
  /** The entity type, as `/_sandbox/entities/<segment>` and the fixture's `type` name it. */
  segment: string
  /**
   * What `POST /_sandbox/entities/<segment>` makes, in a sentence of the route's description
   * (composed from every area's): "a real ... of the ... area, that ... answer".
   */
  description: string
  /** An entity of this type by id, whichever organization. */
  find: (app: FastifyInstance, id: string) => Promise<{ organizationId: string, userId: string } | undefined>
  /** Creates one (`POST /_sandbox/entities/<segment>`); false when the id is taken or the user is gone. */
  create: (app: FastifyInstance, entity: SandboxEntityInput) => Promise<boolean>
  /** Writes a fixture's one inside the fixture's transaction (every statement awaited there). */
  fixtureRow: (app: FastifyInstance, entity: SandboxEntityInput) => Promise<void>
}

/** What a user holds that stops their deletion. */
export interface UserHoldings {
  hasBalance: boolean
  hasPendingTransactions: boolean
}

/** A user's cards and the organization's limits on them. */
export interface UserCards {
  /** Cards the user holds now. */
  active: number
  /** Distinct cards the user ever added, deleted ones included. */
  unique: number
  limits: { active: number, unique: number }
}

/** What the ledger knows of one account: its balance (decimal strings). */
export interface AccountLedger {
  balance: { total: string, available: string }
  /** Funds counted in `total` but not yet in `available` (ACH deposits), and when the last of them settle. */
  unsettled?: { amount: string, settlementAt: string }
}

/** A cooldown that holds back features of an asset for a user. */
export interface UserCooldown {
  rule: 'financial-promotions'
  features: string[]
  endsAt: string
}

/**
 * Deletes a user's rows of one area inside the write that deletes the user: every statement is
 * awaited before the promise settles, so the deletion commits (or rolls back) with the user's.
 */
export type UserRemoval = (organizationId: string, userId: string) => Promise<void>

/**
 * A panel of the sandbox dashboard (`GET /_sandbox/`) an area contributes: the page composes the
 * panels of every area, in `order`, each behind a link of its navigation, and knows none of them.
 * Everything is inline in the page (its content security policy allows exactly that text).
 */
export interface DashboardPanel {
  /** The navigation's anchor (`#<id>`) and the panel's element id (`panel-<id>`); unique on the page. */
  id: string
  /** The navigation link's text and the panel's heading. */
  title: string
  /** Position in the navigation, lowest first; the request log is last. */
  order: number
  /** Static HTML of the panel's body, under its heading. Element ids in it are the panel's own (prefix them). */
  markup: string
  /**
   * JavaScript: the body of a function of `dash` (the page's helpers: `api`, `h`, `fill`, `$`, the
   * organization in view, ...; see dashboard-page.ts) that returns the panel's `load`, a function
   * returning a Promise, run when the panel is shown, on refresh and when the organization changes.
   */
  script: string
  /** CSS of the panel's own classes. */
  style?: string
  /**
   * `global`: the panel reads routes only the admin token reaches (they list every organization);
   * it is left out for an organization's control token.
   */
  scope?: 'global'
}

export interface Area {
  name: string
  /**
   * The environment variables the area reads, as `app.config.<key>` (src/config.ts reads them;
   * docs/configuration.md and `.env.example` list them).
   */
  config?: readonly ConfigVariable[]
  /** The OpenAPI tags of the area's operations. */
  tags?: Array<{ name: string, description: string }>
  /** The area's schema migrations, in order; each is recorded as `<area>/<name>`. */
  migrations?: Migration[]
  /** Entity types whose metadata the metadata area serves. */
  metadataEntities?: MetadataEntity[]
  /** The area's keys of the fixture document. */
  fixtures?: FixtureKey[]
  /**
   * After a reset has deleted the rows (all, or one organization's): drop what the area keeps in
   * memory about them, or bring back what must exist.
   */
  reset?: (app: FastifyInstance, organizationId: string | undefined) => Promise<void> | void
  /** Entity types the area holds that the sandbox's entities route and fixture key create through it. */
  sandboxEntities?: SandboxEntity[]
  /** Whether a user holds a balance or pending transactions (the ledger's area): `core.delete-user` refuses such a user. */
  userHoldings?: (app: FastifyInstance, organizationId: string, userId: string) => Promise<UserHoldings>
  /**
   * The ledger's view of an account (area 5 declares it): its balance (`core.archive-account`
   * refuses an account with one). At most one area declares it, with `accountPending`.
   */
  accountLedger?: (app: FastifyInstance, organizationId: string, accountId: string) => Promise<AccountLedger>
  /** Whether an account has transactions in progress (`core.archive-account` refuses it): asked only by the archiving, apart from the balance every account view reads. */
  accountPending?: (app: FastifyInstance, organizationId: string, accountId: string) => Promise<boolean>
  /** When the user accepted each terms-of-service version, by code (the capabilities area): `acceptedAt` of the terms operations acting for a user. */
  userTerms?: (app: FastifyInstance, organizationId: string, userId: string) => Promise<Record<string, string>>
  /** The user's running cooldowns by asset code (the capabilities area): `cooldowns` of the assets operations acting for a user. */
  userCooldowns?: (app: FastifyInstance, organizationId: string, userId: string) => Promise<Record<string, UserCooldown[]>>
  /**
   * The user's cards and the organization's card limits (the external accounts area): the `cards`
   * capability's limits count them. At most one area declares it.
   */
  userCards?: (app: FastifyInstance, organizationId: string, userId: string) => Promise<UserCards>
  /** Makes, once per app, the removal of a user's rows of the area, run inside the write that deletes the user. */
  removeUser?: (app: FastifyInstance) => UserRemoval
  /** The area's panels of the sandbox dashboard. */
  dashboardPanels?: DashboardPanel[]
  /** The area's routes, registered as an encapsulated plugin. */
  plugin: FastifyPluginAsync
}

/** Declares a fixture key whose `check` reads its items with the static type of its schema. */
export function defineFixtureKey<S extends TSchema> (key: Omit<FixtureKey, 'schema' | 'check'> & {
  schema: S
  check: (context: FixtureContext, items: Static<S>) => Promise<void>
}): FixtureKey {
  // The document was validated against `schema` before any key checks it.
  return key as unknown as FixtureKey
}

/**
 * Declares an area: the type checks the declaration where it is written, and keeps the types of
 * its variables, which type `app.config` (src/areas.ts).
 */
export const defineArea = <const V extends readonly ConfigVariable[] = []>(area: Area & { config?: V }): Area & { config?: V } => area

/** Everything the areas declared, composed once when the app is built. */
export class AreaRegistry {
  readonly areas: readonly Area[]

  constructor (areas: readonly Area[]) {
    const names = new Set<string>()
    for (const area of areas) {
      if (names.has(area.name)) throw new Error(`Two areas are named ${area.name}`)
      names.add(area.name)
    }
    this.areas = areas
  }

  /** Every area's migrations, in area order, named `<area>/<name>`. */
  migrations (): Migration[] {
    return this.areas.flatMap(a => (a.migrations ?? []).map(m => ({ ...m, name: `${a.name}/${m.name}` })))
  }

  tags (): Array<{ name: string, description: string }> {
    return this.areas.flatMap(a => a.tags ?? [])
  }

  metadataEntities (): MetadataEntity[] {
    return this.areas.flatMap(a => a.metadataEntities ?? [])
  }

  fixtureKeys (): FixtureKey[] {
    const keys = this.areas.flatMap(a => a.fixtures ?? [])
    const seen = new Set<string>()
    for (const k of keys) {
      if (seen.has(k.key)) throw new Error(`Two areas declare the fixture key ${k.key}`)
      seen.add(k.key)
    }
    return keys
  }

  /** Every area's dashboard panels, in `order` (then area order); two panels with one id are an error. */
  dashboardPanels (): DashboardPanel[] {
    const panels = this.areas.flatMap(a => a.dashboardPanels ?? [])
    const seen = new Set<string>()
    for (const p of panels) {
      if (seen.has(p.id)) throw new Error(`Two dashboard panels have the id ${p.id}`)
      seen.add(p.id)
    }
    return panels.map((p, i) => ({ p, i })).sort((a, b) => a.p.order - b.p.order || a.i - b.i).map(x => x.p)
  }

  /** Every area-held entity type, in area order. */
  sandboxEntities (): SandboxEntity[] {
    return this.areas.flatMap(a => a.sandboxEntities ?? [])
  }

  /** The area-held entity type of this segment, if an area holds it. */
  sandboxEntity (segment: string): SandboxEntity | undefined {
    return this.areas.flatMap(a => a.sandboxEntities ?? []).find(e => e.segment === segment)
  }

  /** An entity of any area-held type by id: its type, organization and owner. */
  async findSandboxEntity (app: FastifyInstance, id: string): Promise<{ type: string, organizationId: string, userId: string } | undefined> {
    for (const entity of this.areas.flatMap(a => a.sandboxEntities ?? [])) {
      const found = await entity.find(app, id)
      if (found !== undefined) return { type: entity.segment, ...found }
    }
    return undefined
  }

  /** What the user holds, by every area that keeps holdings: none when no area declares them. */
  async userHoldings (app: FastifyInstance, organizationId: string, userId: string): Promise<UserHoldings> {
    const holdings: UserHoldings = { hasBalance: false, hasPendingTransactions: false }
    for (const area of this.areas) {
      if (area.userHoldings === undefined) continue
      const h = await area.userHoldings(app, organizationId, userId)
      holdings.hasBalance ||= h.hasBalance
      holdings.hasPendingTransactions ||= h.hasPendingTransactions
    }
    return holdings
  }

  /** The ledger's view of an account; until an area keeps a ledger, every account is empty. */
  async accountLedger (app: FastifyInstance, organizationId: string, accountId: string): Promise<AccountLedger> {
    const ledger = this.areas.find(a => a.accountLedger !== undefined)?.accountLedger
    return ledger === undefined ? { balance: { total: '0', available: '0' } } : await ledger(app, organizationId, accountId)
  }

  /** Whether an account has transactions in progress; until an area keeps a ledger, none has. */
  async accountPending (app: FastifyInstance, organizationId: string, accountId: string): Promise<boolean> {
    const pending = this.areas.find(a => a.accountPending !== undefined)?.accountPending
    return pending === undefined ? false : await pending(app, organizationId, accountId)
  }

  /** When the user accepted each terms-of-service version, by code: none when no area keeps acceptances. */
  async userTerms (app: FastifyInstance, organizationId: string, userId: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {}
    for (const area of this.areas) if (area.userTerms !== undefined) Object.assign(out, await area.userTerms(app, organizationId, userId))
    return out
  }

  /** The user's running cooldowns by asset code: none when no area keeps cooldowns. */
  async userCooldowns (app: FastifyInstance, organizationId: string, userId: string): Promise<Record<string, UserCooldown[]>> {
    const out: Record<string, UserCooldown[]> = {}
    for (const area of this.areas) {
      if (area.userCooldowns === undefined) continue
      for (const [asset, cooldowns] of Object.entries(await area.userCooldowns(app, organizationId, userId))) (out[asset] ??= []).push(...cooldowns)
    }
    return out
  }

  /** The user's cards and their limits, from the area that keeps cards; undefined when no area does. */
  async userCards (app: FastifyInstance, organizationId: string, userId: string): Promise<UserCards | undefined> {
    const area = this.areas.find(a => a.userCards !== undefined)
    return await area?.userCards?.(app, organizationId, userId)
  }

  /** Every area's removal of a user's rows, in area order. */
  userRemovals (app: FastifyInstance): UserRemoval[] {
    return this.areas.flatMap(a => a.removeUser === undefined ? [] : [a.removeUser(app)])
  }

  /** Runs every area's reset hook, in area order. */
  async reset (app: FastifyInstance, organizationId: string | undefined): Promise<void> {
    for (const area of this.areas) await area.reset?.(app, organizationId)
  }
}
