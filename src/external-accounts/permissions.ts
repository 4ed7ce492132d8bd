// What an organization may do with external accounts and quotes: which external account types it
// may add, whether its external accounts can be updated, how many cards its users may hold and
// add, which node types its quotes may use on each side, and whether a quote may name its own
// `ttl`. Set by the `organizationPermissions` fixture key and kept per organization; an
// organization without a row, or a permission left out, is allowed everything (and the default
// card limits). The quotes area reads them through `permissionsOf`.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { Uuid } from '../../schemas/common.js'
import type { ApiError } from '../errors.js'
import { operationNotAllowed } from '../http/user-context.js'
import { defineFixtureKey } from '../kit/area.js'
import type { Db } from '../storage/db.js'

export const EXTERNAL_ACCOUNT_TYPES = ['card', 'bank'] as const
export const ORIGIN_NODE_TYPES = ['account', 'external-account', 'apm'] as const
export const DESTINATION_NODE_TYPES = ['account', 'external-account', 'apm', 'crypto-address'] as const

/** One organization's permissions; an absent one allows everything. */
export interface OrganizationPermissions {
  externalAccountTypes?: string[]
  externalAccountsUpdatable?: boolean
  cardLimits?: { active?: number, unique?: number }
  quoteNodeTypes?: { origin?: string[], destination?: string[] }
  quoteTtlChangeAllowed?: boolean
}

export interface OrganizationPermissionsStore {
  /** The organization's permissions: empty (everything allowed) when none were set. */
  get (organizationId: string): Promise<OrganizationPermissions>
  /** Sets them, inside the fixture's transaction. */
  fixtureRow (organizationId: string, permissions: OrganizationPermissions): Promise<void>
}

export function organizationPermissionsStore (db: Db): OrganizationPermissionsStore {
  const get = db.prepare<[string], string>('SELECT permissions FROM organization_permissions WHERE organization_id = ?').pluck()
  const upsert = db.prepare(`INSERT INTO organization_permissions (organization_id, permissions) VALUES (?, ?)
    ON CONFLICT (organization_id) DO UPDATE SET permissions = excluded.permissions`)
  return {
    async get (organizationId) {
      const row = await get.get(organizationId)
      return row === undefined ? {} : JSON.parse(row)
    },
    async fixtureRow (organizationId, permissions) { await upsert.run(organizationId, JSON.stringify(permissions)) }
  }
}

export const permissionsOf = (app: FastifyInstance): OrganizationPermissionsStore => app.storage.store(organizationPermissionsStore)

/**
 * The card limits of an organization without its own: a user holds at most 5 cards at once, and
 * adds at most 10 distinct cards ever (deleting one does not give its place back).
 */
export const DEFAULT_CARD_LIMITS = { active: 5, unique: 10 }

/** The organization's card limits: its `cardLimits`, the defaults for what it leaves out. */
export async function cardLimitsOf (app: FastifyInstance, organizationId: string): Promise<{ active: number, unique: number }> {
  return { ...DEFAULT_CARD_LIMITS, ...(await permissionsOf(app).get(organizationId)).cardLimits }
}

/** 409 `operation_not_allowed` (`permission-denied`): the organization is not configured for it. */
export const permissionDenied = (message: string): ApiError => operationNotAllowed(['permission-denied'], message)

const allowed = (list: string[] | undefined, value: string): boolean => list === undefined || list.includes(value)

/** Refuses an external account type the organization is not configured for. */
export async function checkExternalAccountType (app: FastifyInstance, organizationId: string, type: string): Promise<void> {
  if (!allowed((await permissionsOf(app).get(organizationId)).externalAccountTypes, type)) {
    throw permissionDenied(`External account type '${type}' is not configured for your organization`)
  }
}

/** Refuses updating an external account when the organization's cannot be updated. */
export async function checkExternalAccountUpdatable (app: FastifyInstance, organizationId: string): Promise<void> {
  if ((await permissionsOf(app).get(organizationId)).externalAccountsUpdatable === false) throw permissionDenied('The external account cannot be updated')
}

/** Refuses a quote whose origin or destination node type, or whose `ttl`, the organization is not configured for. */
export async function checkQuotePermissions (app: FastifyInstance, organizationId: string, input: { origin: { type: string }, destination: { type: string }, ttl?: number }): Promise<void> {
  const permissions = await permissionsOf(app).get(organizationId)
  if (!allowed(permissions.quoteNodeTypes?.origin, input.origin.type)) {
    throw permissionDenied(`Origin node type '${input.origin.type}' is not configured for your organization`)
  }
  if (!allowed(permissions.quoteNodeTypes?.destination, input.destination.type)) {
    throw permissionDenied(`Destination node type '${input.destination.type}' is not configured for your organization`)
  }
  if (input.ttl !== undefined && permissions.quoteTtlChangeAllowed === false) throw permissionDenied('Changing the ttl is not allowed for your organization')
}

const typesOf = (types: readonly string[], description: string) =>
  Type.Optional(Type.Array(Type.Enum([...types]), { uniqueItems: true, description }))

export const OrganizationPermissionsItem = Type.Object({
  organizationId: Type.Optional({ ...Uuid, description: 'Default: the demo organization. It must exist (in the database or the fixture\'s `organizations`).' }),
  externalAccountTypes: typesOf(EXTERNAL_ACCOUNT_TYPES, 'External account types its users may add (default: all).'),
  externalAccountsUpdatable: Type.Optional(Type.Boolean({ description: 'Whether its external accounts can be updated (default true).' })),
  cardLimits: Type.Optional(Type.Object({
    active: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Cards a user may hold at once (default 5); at the limit, another needs one deleted (`user-must-delete-card`).' })),
    unique: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Distinct cards a user may ever add (default 10), deleted ones included; at the limit, no new card (`user-unique-card-limit-reached`).' }))
  }, { additionalProperties: false })),
  quoteNodeTypes: Type.Optional(Type.Object({
    origin: typesOf(ORIGIN_NODE_TYPES, 'Node types a quote\'s origin may be (default: all).'),
    destination: typesOf(DESTINATION_NODE_TYPES, 'Node types a quote\'s destination may be (default: all).')
  }, { additionalProperties: false })),
  quoteTtlChangeAllowed: Type.Optional(Type.Boolean({ description: 'Whether a quote may name its `ttl` (default true).' }))
}, { additionalProperties: false })

export const organizationPermissionsFixture = defineFixtureKey({
  key: 'organizationPermissions',
  after: ['organizations'],
  schema: Type.Array(OrganizationPermissionsItem, { description: 'What each organization may do with external accounts and quotes; left out, everything is allowed.' }),
  summary: Type.Array(Type.Object({ organizationId: Uuid })),
  async check (context, items) {
    const store = permissionsOf(context.app)
    const seen = new Set<string>()
    const summary: Array<{ organizationId: string }> = []
    for (const [i, item] of items.entries()) {
      const { organizationId: named, ...permissions } = item
      const organizationId = named ?? context.demoOrganizationId
      if (!await context.organizationExists(organizationId)) { context.bad(`organizationPermissions.${i}.organizationId`, 'exists', { entity: 'organization' }); continue }
      if (seen.has(organizationId)) { context.bad(`organizationPermissions.${i}.organizationId`, 'unique'); continue }
      seen.add(organizationId)
      context.load(async () => { await store.fixtureRow(organizationId, permissions) })
      summary.push({ organizationId })
    }
    context.summarize('organizationPermissions', summary)
  }
})
