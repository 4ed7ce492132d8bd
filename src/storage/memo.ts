// What the storage remembers of rows it has read, so the hottest reads of the request paths (is
// the acting user there? what is this entity's metadata revision?) are answered from memory.
// Sound on SQLite because the process owns its database (exclusive locking): a remembered row
// stays true until this process writes it, and every write that can change one drops it inside the
// write's own transaction. A reset or a fixture load drops everything. Never filled from inside a
// transaction: a group commit may still roll back what it read there.
// On PostgreSQL other replicas write the same rows. Users are remembered there too: a user leaves
// only by a write that also bumps the shared version (a user's deletion, a reset, a fixture load),
// and every request reads that version first, before any lookup (src/plugins/shared-state.ts), so
// a replica whose version is behind drops the memo before it answers from it. A lookup on its way
// while the memo was dropped or a user forgotten is not remembered (`generation`): its answer may
// be older than the write that caused the drop. Metadata is not
// remembered there (every metadata write would have to bump the version): every read asks the
// database, the reads of one turn together (src/storage/metadata.ts, turnReads).
import type { Db } from './db.js'
import type { MetadataRevision } from './types.js'

// Bounded: when full, forgotten at once (the next reads fill it again).
const LIMIT = 20_000

/** Which metadata, as the metadata store names it. */
interface MetadataKey { organizationId: string, entity: string, entityId: string }

// Nested maps rather than one map under joined keys: no key to build per lookup, and the ids, one
// string each from the request, are hashed once for both the user and the metadata lookup.
export class Memo {
  /** Off: remembers no metadata (PostgreSQL, where other replicas write it behind this process's back). */
  readonly #metadataOn: boolean
  constructor (metadata = true) { this.#metadataOn = metadata }

  /** Users known to exist, by organization, with their type: forgotten when deleted, and by a reset. */
  readonly #users = new Map<string, Map<string, string>>()
  #userCount = 0
  /** Moves at every drop and every forgotten user: a lookup begun before it is not remembered. */
  #generation = 0
  /** Current metadata revisions, by organization, entity type and id. Absent ones are not kept. */
  readonly #metadata = new Map<string, Map<string, Map<string, MetadataRevision>>>()
  #metadataCount = 0

  /** Read before a lookup of a user; remember its answer only while it is still the same. */
  get generation (): number { return this.#generation }

  hasUser (organizationId: string, userId: string): boolean {
    return this.#users.get(organizationId)?.has(userId) === true
  }

  /** The type (`individual`, `business`) of a user known to exist. */
  userType (organizationId: string, userId: string): string | undefined {
    return this.#users.get(organizationId)?.get(userId)
  }

  rememberUser (organizationId: string, userId: string, type: string): void {
    if (this.#userCount >= LIMIT) {
      this.#users.clear()
      this.#userCount = 0
    }
    let users = this.#users.get(organizationId)
    if (users === undefined) this.#users.set(organizationId, users = new Map())
    if (users.has(userId)) return
    users.set(userId, type)
    this.#userCount++
  }

  /** Forgets a user: inside the write that deletes it. */
  forgetUser (organizationId: string, userId: string): void {
    this.#generation++
    if (this.#users.get(organizationId)?.delete(userId) === true) this.#userCount--
  }

  metadata (key: MetadataKey): MetadataRevision | undefined {
    return this.#metadata.get(key.organizationId)?.get(key.entity)?.get(key.entityId)
  }

  rememberMetadata (key: MetadataKey, revision: MetadataRevision): void {
    if (!this.#metadataOn) return
    if (this.#metadataCount >= LIMIT) {
      this.#metadata.clear()
      this.#metadataCount = 0
    }
    let byEntity = this.#metadata.get(key.organizationId)
    if (byEntity === undefined) this.#metadata.set(key.organizationId, byEntity = new Map())
    let revisions = byEntity.get(key.entity)
    if (revisions === undefined) byEntity.set(key.entity, revisions = new Map())
    if (!revisions.has(key.entityId)) this.#metadataCount++
    revisions.set(key.entityId, revision)
  }

  forgetMetadata (key: MetadataKey): void {
    if (this.#metadata.get(key.organizationId)?.get(key.entity)?.delete(key.entityId) === true) this.#metadataCount--
  }

  /** Drops everything: after a reset, a fixture load, or a write behind the storage's back. */
  clear (): void {
    this.#generation++
    this.#users.clear()
    this.#userCount = 0
    this.#metadata.clear()
    this.#metadataCount = 0
  }
}

const memos = new WeakMap<Db, Memo>()

/** The memo of a database, shared by every store of it. */
export function memoOf (db: Db): Memo {
  let memo = memos.get(db)
  if (memo === undefined) {
    memo = new Memo(db.dialect === 'sqlite')
    memos.set(db, memo)
  }
  return memo
}
