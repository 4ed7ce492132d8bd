// The sandbox control API's contract (`/_sandbox/...`): not part of the real service. Integrators
// script against these shapes, so fields are only ever added.
import { Type, type Static } from 'typebox'
import { CountryCode, Email, KnownSubdivisionCode, Timestamp, Uuid } from './common.js'

export const ENTITY_TYPES = ['accounts', 'files', 'external-accounts', 'transactions'] as const
export type EntityType = typeof ENTITY_TYPES[number]
export const METADATA_ENTITIES = ['users', ...ENTITY_TYPES] as const

const Strict = { additionalProperties: false }

export const ClientId = Type.String({ pattern: '^[\\x21-\\x7e]{1,128}$', description: 'Client id: 1 to 128 printable ASCII characters, no spaces.' })
export const ClientSecret = Type.String({ minLength: 8, maxLength: 256, description: 'Client secret: 8 to 256 characters.' })
export const Scopes = Type.Array(Type.String({ pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' }), {
  maxItems: 200,
  uniqueItems: true,
  description: 'Scopes the client may request: names of the API\'s scopes, or a prefix ending in `*` (`core.users*`).'
})

// ---- Organizations ----

export const OrganizationView = Type.Object({
  id: Uuid,
  name: Type.String(),
  createdAt: Timestamp
}, { $id: 'SandboxOrganization' })

export const OrganizationList = Type.Object({ organizations: Type.Array(Type.Ref('SandboxOrganization')) })

// ---- Reset ----

export const ResetRequest = Type.Object({
  organizationId: Type.Optional({ ...Uuid, description: 'Wipe only this organization\'s data; absent: wipe everything.' })
}, { ...Strict, description: 'Optional body of a reset.', examples: [{}, { organizationId: '00000000-0000-4000-8000-000000000001' }] })
export type ResetRequest = Static<typeof ResetRequest>

// ---- Clients ----

export const ClientCreate = Type.Object({
  clientId: Type.Optional({ ...ClientId, description: 'Absent: `client-<random>`.' }),
  clientSecret: Type.Optional({ ...ClientSecret, description: 'Absent: a random secret, shown once in the answer.' }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  scopes: Scopes,
  refreshTokens: Type.Optional(Type.Boolean({ description: 'Whether client-credentials grants also issue refresh tokens (default false).' })),
  organizationId: Type.Optional({ ...Uuid, description: 'Absent: the demo organization. An unknown id creates the organization.' }),
  userId: Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'Binds the client to a user of its organization: its tokens have subject `user`.' }))
}, { ...Strict, examples: [{ name: 'Partner backend', scopes: ['core.users:create', 'core.users:read', 'core.users:act-on-behalf-of'] }] })
export type ClientCreate = Static<typeof ClientCreate>

export const ClientView = Type.Object({
  clientId: Type.String(),
  clientSecret: Type.Optional(Type.String({ description: 'Only in the answers of create and rotate-secret.' })),
  name: Type.String(),
  organizationId: Uuid,
  scopes: Type.Array(Type.String()),
  refreshTokens: Type.Boolean(),
  userId: Type.Union([Uuid, Type.Null()]),
  createdAt: Timestamp
}, { $id: 'SandboxClient' })
export type ClientView = Static<typeof ClientView>

export const ClientList = Type.Object({ clients: Type.Array(Type.Ref('SandboxClient')) })
export const ClientListQuery = Type.Object({ organizationId: Type.Optional(Uuid) }, Strict)
export const ClientParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 128 }) })
export const RotateSecret = Type.Object({
  clientSecret: Type.Optional({ ...ClientSecret, description: 'Absent: a random secret.' })
}, { ...Strict, examples: [{}, { clientSecret: 'a-new-secret-of-mine' }] })

// ---- Entities ----

export const EntityParams = Type.Object({ entity: Type.Union(ENTITY_TYPES.map(e => Type.Literal(e)), { description: 'Entity type.' }) })
export const EntityCreate = Type.Object({
  userId: { ...Uuid, description: 'The owner; the entity joins the user\'s organization.' },
  id: Type.Optional({ ...Uuid, description: 'Absent: a random UUID.' }),
  asset: Type.Optional(Type.String({ minLength: 1, description: 'Accounts only: the account\'s asset (absent: USD); an unknown asset is 404.' }))
}, { ...Strict, examples: [{ userId: '3f2b8c1e-5d4a-4e6f-9b7c-1a2b3c4d5e6f', asset: 'BTC' }] })
export const EntityView = Type.Object({
  id: Uuid,
  type: Type.String({ description: 'The entity type as in the path (`accounts`, ...).' }),
  userId: Uuid,
  organizationId: Uuid,
  createdAt: Timestamp
}, { $id: 'SandboxEntity' })

// ---- Clock ----

export const ClockView = Type.Object({
  now: { ...Timestamp, description: 'Sandbox time.' },
  frozen: Type.Boolean({ description: 'Whether sandbox time stands still.' }),
  organizationId: Type.Union([Uuid, Type.Null()], { description: 'Whose clock this is: an organization\'s, or null for the global clock.' })
}, { $id: 'SandboxClock' })

/** Where a per-organization control takes the admin's organization from. */
export const OrganizationQuery = Type.Object({
  organizationId: Type.Optional({ ...Uuid, description: 'The admin token: the organization to act on. An organization\'s control token acts on its own (naming another is 404).' })
}, Strict)
export type OrganizationQuery = Static<typeof OrganizationQuery>

export const ClockChange = Type.Object({
  advanceSeconds: Type.Optional(Type.Integer({ minimum: -315_360_000, maximum: 315_360_000, description: 'Moves sandbox time by this many seconds (negative: back).' })),
  now: Type.Optional({ ...Timestamp, description: 'Jumps to this instant (a frozen clock stays frozen there).' }),
  frozen: Type.Optional(Type.Boolean({ description: 'Stops (true) or restarts (false) sandbox time.' })),
  real: Type.Optional(Type.Literal(true, { description: 'Back to the machine\'s real time, running.' }))
}, { ...Strict, minProperties: 1, maxProperties: 1, description: 'Exactly one of the properties.', examples: [{ advanceSeconds: 3600 }, { frozen: true }] })
export type ClockChange = Static<typeof ClockChange>

// ---- Request log ----

export const RequestLogQuery = Type.Object({
  method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,16}$', description: 'HTTP method (case-insensitive).' })),
  path: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Exact path, or a pattern where `*` matches any characters (`/core/users/*`).' })),
  status: Type.Optional(Type.String({ pattern: '^[1-5]([0-9]{2}|xx)$', description: 'Exact status (`404`) or a class (`4xx`).' })),
  clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  organizationId: Type.Optional({ ...Uuid, description: 'The admin token: only the requests of this organization\'s clients.' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 100, description: 'At most this many entries (default 100).' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Skips this many of the matching entries, newest first (default 0): `offset=20&limit=20` is the second page of 20.' }))
}, Strict)
export type RequestLogQuery = Static<typeof RequestLogQuery>

const Message = Type.Object({
  headers: Type.Record(Type.String(), Type.Unknown(), { description: 'Headers; credentials masked, cookies dropped.' }),
  body: Type.Optional(Type.Unknown({ description: 'The JSON or form body with secrets masked; a string when it is not JSON or was cut.' })),
  truncated: Type.Optional(Type.Boolean({ description: 'The body was longer than 4096 characters and was cut.' }))
})

export const RequestLogEntry = Type.Object({
  requestId: Type.String({ description: 'The request-id header of the answer.' }),
  timestamp: { ...Timestamp, description: 'Sandbox time when the answer was sent.' },
  method: Type.String(),
  path: Type.String({ description: 'The path without query string; credential segments masked.' }),
  status: Type.Integer({ description: 'Status sent; 0 when a fault rule dropped the connection.' }),
  durationMs: Type.Number(),
  clientId: Type.Union([Type.String(), Type.Null()], { description: 'The client of the Bearer token (also when refused as expired or revoked), or of the credentials sent to the token endpoint.' }),
  request: Message,
  response: Message
}, { $id: 'SandboxRequestLogEntry' })

export const RequestLogView = Type.Object({
  requests: Type.Array(Type.Ref('SandboxRequestLogEntry'), { description: 'Newest first.' }),
  total: Type.Integer({ description: 'Entries held now (before filters).' }),
  capacity: Type.Integer({ description: 'The bound (REQUEST_LOG_SIZE); older entries are dropped. 0: the log is off, and nothing is recorded.' })
})

// ---- Faults ----

export const FaultCreate = Type.Object({
  method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,16}$', description: 'Only this method (any when absent).' })),
  path: Type.String({ pattern: '^[/*]', maxLength: 2048, description: 'Exact path, or a pattern where `*` matches any characters. Never matches `/_sandbox/*`.' }),
  status: Type.Optional(Type.Integer({ minimum: 400, maximum: 599, description: 'Answer with this status and the API\'s error body.' })),
  delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000, description: 'Wait this long first (real time). Alone: a slow but normal answer.' })),
  drop: Type.Optional(Type.Boolean({ description: 'Close the connection without answering.' })),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Apply to the next N matching requests, then the rule is spent (absent: until deleted).' })),
  probability: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Chance (0..1) a matching request is affected (default 1).' })),
  retryAfterSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400, description: '`Retry-After` value (default 1 for 429; sent with 503 only when given).' }))
}, { ...Strict, examples: [{ method: 'POST', path: '/core/transactions', status: 503, count: 1 }] })
export type FaultCreate = Static<typeof FaultCreate>

export const FaultView = Type.Object({
  id: Uuid,
  method: Type.Union([Type.String(), Type.Null()]),
  path: Type.String(),
  status: Type.Union([Type.Integer(), Type.Null()]),
  delayMs: Type.Integer(),
  drop: Type.Boolean(),
  count: Type.Union([Type.Integer(), Type.Null()]),
  probability: Type.Number(),
  retryAfterSeconds: Type.Union([Type.Integer(), Type.Null()]),
  remaining: Type.Union([Type.Integer(), Type.Null()], { description: 'Matching requests the rule still affects (null: unlimited).' }),
  applied: Type.Integer({ description: 'Requests affected so far.' }),
  organizationId: Type.Union([Uuid, Type.Null()], { description: 'The organization whose requests (made with its tokens) the rule affects; null: every request (a rule of the admin\'s).' }),
  createdAt: Timestamp
}, { $id: 'SandboxFault' })
export type FaultView = Static<typeof FaultView>

export const FaultList = Type.Object({ faults: Type.Array(Type.Ref('SandboxFault')) })
export const FaultParams = Type.Object({ id: Uuid })

// ---- Fixtures ----

const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'The metadata object (at most 1024 characters serialized).' })

// Each area owns its keys of the fixture document (src/kit/fixtures.ts composes them); these are
// the items of the keys the core's areas own.
export const FixtureOrganization = Type.Object({
  id: Uuid,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 }))
}, Strict)
export type FixtureOrganization = Static<typeof FixtureOrganization>
export const FixtureOrganizations = Type.Array(FixtureOrganization, { description: 'Organizations to create; one that exists already is kept as it is.', examples: [[{ id: '8d0f3a1b-9c2e-4f5a-8b6c-7d8e9f0a1b2c', name: 'Acme' }]] })

export const FixtureUser = Type.Object({
  id: Type.Optional(Uuid),
  organizationId: Type.Optional({ ...Uuid, description: 'Absent: the demo organization.' }),
  email: Email,
  primaryCitizenship: Type.Optional({ ...CountryCode, description: 'Default `US`.' }),
  address: Type.Optional(Type.Object({ country: CountryCode, subdivision: Type.Optional(KnownSubdivisionCode) }, Strict))
}, Strict)
export type FixtureUser = Static<typeof FixtureUser>

export const FixtureClient = Type.Object({
  clientId: ClientId,
  clientSecret: ClientSecret,
  name: Type.Optional(Type.String({ maxLength: 200 })),
  organizationId: Type.Optional({ ...Uuid, description: 'Absent: the demo organization.' }),
  scopes: Scopes,
  refreshTokens: Type.Optional(Type.Boolean()),
  userId: Type.Optional(Type.Union([Uuid, Type.Null()]))
}, Strict)
export type FixtureClient = Static<typeof FixtureClient>

export const FixtureEntity = Type.Object({
  id: Type.Optional(Uuid),
  type: Type.Union(ENTITY_TYPES.map(e => Type.Literal(e))),
  userId: Uuid,
  organizationId: Type.Optional({ ...Uuid, description: 'Must be the user\'s organization when given.' })
}, Strict)
export type FixtureEntity = Static<typeof FixtureEntity>

export const FixtureMetadata = Type.Object({
  entity: Type.Union(METADATA_ENTITIES.map(e => Type.Literal(e))),
  entityId: Uuid,
  organizationId: Type.Optional({ ...Uuid, description: 'Must be the entity\'s organization when given.' }),
  metadata: Metadata
}, Strict)
export type FixtureMetadata = Static<typeof FixtureMetadata>
export const FixtureMetadataList = Type.Array(FixtureMetadata, { description: 'Metadata to set (replacing any) on users or entities of the fixture or of the database.' })

/** Schemas referenced by `$id` from the sandbox routes' responses (added to the app once). */
export const SANDBOX_SCHEMAS = [OrganizationView, ClientView, EntityView, ClockView, RequestLogEntry, FaultView]
