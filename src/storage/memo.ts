// What the storage remembers of rows it has read, so the hottest reads of the request paths (is
// the acting user there? what is this entity's metadata revision?) are answered from memory.
// Sound because the process owns its database (exclusive locking): a remembered row stays true
// until this process writes it, and every write that can change one drops it, synchronously,
// inside the write's own transaction. A reset or a fixture load drops everything.
// Never filled from inside a transaction: a group commit may still roll back what it read there.
import type { Db } from './db.js'
import type { MetadataRevision } from './metadata.js'

// Bounded: when full, forgotten at once (the next reads fill it again).
const LIMIT = 20_000

export class Memo {
  /** Users known to exist, as `<organization>\0<user>`: users go only with a reset. */
  readonly #users = new Set<string>()
  /** Current metadata revisions, by `metadataKey`. No entry: not known (absent ones are not kept). */
  readonly #metadata = new Map<string, MetadataRevision>()

  hasUser (organizationId: string, userId: string): boolean {
    return this.#users.has(`${organizationId}\0${userId}`)
  }

  rememberUser (organizationId: string, userId: string): void {
    if (this.#users.size >= LIMIT) this.#users.clear()
    this.#users.add(`${organizationId}\0${userId}`)
  }

  metadata (key: string): MetadataRevision | undefined {
    return this.#metadata.get(key)
  }

  rememberMetadata (key: string, revision: MetadataRevision): void {
    if (this.#metadata.size >= LIMIT) this.#metadata.clear()
    this.#metadata.set(key, revision)
  }

  forgetMetadata (key: string): void {
    this.#metadata.delete(key)
  }

  /** Drops everything: after a reset, a fixture load, or a write behind the storage's back. */
  clear (): void {
    this.#users.clear()
    this.#metadata.clear()
  }
}

const memos = new WeakMap<Db, Memo>()

/** The memo of a database, shared by every store of it. */
export function memoOf (db: Db): Memo {
  let memo = memos.get(db)
  if (memo === undefined) {
    memo = new Memo()
    memos.set(db, memo)
  }
  return memo
}
