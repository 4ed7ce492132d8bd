// The storage interface: domain operations, atomic inside, returning Promises, the same on SQLite
// and PostgreSQL. Route code never writes SQL.
import type { DueScope } from './shared.js'

export interface Organization { id: string, name: string, createdAt: string }

export interface ClientRecord {
  id: string
  organizationId: string
  name: string
  secretSalt: string
  secretHash: string
  scopes: string[]
  refreshTokens: boolean
  userId: string | null
  generation: string
  createdAt: string
}

export interface NewClient {
  id: string
  organizationId: string
  name?: string
  secretSalt: string
  secretHash: string
  scopes: string[]
  refreshTokens: boolean
  userId?: string | null
}

export interface RefreshTokenRecord {
  hash: string
  clientId: string
  organizationId: string
  userId: string | null
  /**
   * The scopes granted; null when they are every scope of the token's client. A client's scopes
   * never change while its generation (the first part of `family`) stands, so such a token stores
   * one word instead of the list (1.5 KB for the demo client's).
   */
  scopes: string[] | null
  expiresAt: number
  createdAt: number
  usedAt: number | null
  family: string
}

export type RotateResult =
  | { ok: true }
  | { ok: false, reason: 'unknown' | 'used' }

export interface UserRecord {
  id: string
  organizationId: string
  email: string
  /** The user as the API shows it (id, type, email, address, ..., createdAt, updatedAt). */
  record: Record<string, unknown>
  createdAt: string
}

export interface EntityRecord {
  id: string
  organizationId: string
  type: string
  userId: string
  record: Record<string, unknown>
  createdAt: string
}

export interface EventRecord {
  seq: number
  id: string
  organizationId: string
  type: string
  payload: Record<string, unknown>
  createdAt: string
}

export interface NewEvent {
  id: string
  organizationId: string
  type: string
  payload: Record<string, unknown>
  createdAt: string
}

export interface SettingsStore {
  get (key: string): Promise<string | undefined>
  /** Stores `value` unless the key exists; returns the value that is stored. */
  getOrCreate (key: string, value: string): Promise<string>
}

export interface OrganizationStore {
  get (id: string): Promise<Organization | undefined>
  ensure (id: string, name: string, createdAt: string): Promise<Organization>
  list (): Promise<Organization[]>
}

export interface ClientStore {
  get (id: string): Promise<ClientRecord | undefined>
  list (organizationId?: string): Promise<ClientRecord[]>
  /** Undefined when a client with this id exists. */
  create (client: NewClient, createdAt: string): Promise<ClientRecord | undefined>
  /** Replaces the secret and the generation; returns the updated client or undefined. */
  rotateSecret (id: string, secretSalt: string, secretHash: string): Promise<ClientRecord | undefined>
  delete (id: string): Promise<boolean>
}

export interface RefreshTokenStore {
  save (token: RefreshTokenRecord): Promise<void>
  get (hash: string): Promise<RefreshTokenRecord | undefined>
  /** Marks `oldHash` used and saves `next`, only when `oldHash` is still unused: one winner per token. */
  rotate (oldHash: string, usedAt: number, next: RefreshTokenRecord): Promise<RotateResult>
  /** Revokes every token descended from the same first grant (after a reuse is detected). */
  revokeFamily (family: string, at: number): Promise<void>
  /** Up to `limit` stored tokens after the key `after`, in key order: the retention's walk. */
  keysAfter (after: string, limit: number): Promise<Array<{ key: string, organizationId: string, expiresAt: number }>>
  /** Deletes the tokens stored under these keys; how many there were. */
  delete (hashes: string[]): Promise<number>
}

export interface UserStore {
  get (organizationId: string, id: string): Promise<UserRecord | undefined>
  /** Whether the user exists in the organization: the guard's check, without reading the record. */
  exists (organizationId: string, id: string): Promise<boolean>
  /** True when the user is known to exist without a read (false: ask `exists`). */
  knownToExist (organizationId: string, id: string): boolean
  /** The user's type (`individual`, `business`), undefined when there is no such user. */
  type (organizationId: string, id: string): Promise<string | undefined>
  /** The type when it is known without a read (undefined: ask `type`). */
  knownType (organizationId: string, id: string): string | undefined
  findByEmail (organizationId: string, email: string): Promise<UserRecord | undefined>
  /** Whether a user of the organization has this phone number (declared at creation or by KYC). */
  phoneTaken (organizationId: string, number: string): Promise<boolean>
  /** The newest users (of the organization, or of every one), newest first, at most `limit`: read in an index's order. */
  recent (organizationId: string | undefined, limit: number): Promise<UserRecord[]>
  /**
   * Creates the user and records its events in one transaction. Returns undefined when the
   * e-mail (case-insensitive) is already taken in the organization. `metadata`, when given, is
   * stored as the user's first metadata revision in the same transaction.
   */
  create (user: UserRecord, events: NewEvent[], metadata?: MetadataRevision): Promise<UserRecord | undefined>
  /**
   * Deletes the user with their entities, their metadata and theirs, runs `removals` (the areas'
   * own rows of the user) and records `events`, all in one write. False when there is no such user.
   */
  delete (organizationId: string, id: string, events: NewEvent[], removals: Array<(organizationId: string, userId: string) => void | Promise<void>>): Promise<boolean>
}

export interface EntityStore {
  get (organizationId: string, type: string, id: string): Promise<EntityRecord | undefined>
  /** Undefined when an entity with this id exists, or its user does not. */
  create (entity: EntityRecord): Promise<EntityRecord | undefined>
  listForUser (organizationId: string, userId: string): Promise<EntityRecord[]>
}

export interface EventStore {
  /** Events not yet handed to the webhooks area, oldest first. */
  pending (limit: number): Promise<EventRecord[]>
  /**
   * Marks the event dispatched; false when it was already (another replica dispatched it). Called
   * inside the write that dispatches it, it decides who does.
   */
  markDispatched (seq: number): Promise<boolean>
  /**
   * Deletes up to `limit` events of the scope's organizations (see `DueScope`) dispatched and
   * recorded before `before` (ISO 8601, the scope's clock); how many.
   */
  pruneDispatched (before: string, limit: number, scope: DueScope): Promise<number>
}

/** One stored revision of an entity's metadata. */
export interface MetadataRevision {
  value: Record<string, unknown>
  /**
   * The value serialized (JSON.stringify): what is stored, what the ETag hashes, what a 2xx answers
   * with. Set on every revision the store and toRevision make; serialized again when absent.
   */
  json?: string
  /** The revision's entity tag, quotes included (`"<sha256 hex>"`). */
  etag: string
  updatedAt: string
}
