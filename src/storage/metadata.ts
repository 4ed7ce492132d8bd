// The metadata store. Every statement is prepared once, here. Writes are
// compare-and-swap on the revision the caller observed (its ETag), checked and applied in one
// transaction (a savepoint of the group commit), so two writers holding the same ETag can never
// both succeed.
import { groupCommit, type Db } from './db.js'
import { memoOf } from './memo.js'
import type { MetadataRevision } from './types.js'

export type { MetadataRevision }
import { sha256Hex } from '../sha256.js'

/** Which metadata: the entity type as its path segment (`users`, `accounts`, ...) and the entity id. */
export interface MetadataRef {
  organizationId: string
  entity: string
  entityId: string
}

/** The entity tag of a serialized revision: a strong tag, quotes included. */
export const etagOf = (serialized: string): string => `"${sha256Hex(serialized)}"`

export type ReplaceMetadataResult =
  | { written: true, created: boolean }
  /** Someone else changed the metadata since the caller read it: here is what is stored now. */
  | { written: false, current: MetadataRevision | undefined }

export type DeleteMetadataResult =
  | { deleted: true }
  | { deleted: false, current: MetadataRevision | undefined }

export interface MetadataStore {
  get (ref: MetadataRef): Promise<MetadataRevision | undefined>
  /**
   * The current revision when it is in memory, without waiting; undefined when it is not (absent,
   * or not read yet): then `get` tells.
   */
  cached (ref: MetadataRef): MetadataRevision | undefined
  /**
   * Stores `next` only if the stored revision is still `expectedEtag` (null: only if none is
   * stored). Read, check and write happen in one transaction.
   */
  replaceIf (ref: MetadataRef, expectedEtag: string | null, next: MetadataRevision): Promise<ReplaceMetadataResult>
  /** Deletes the metadata only if the stored revision is still `expectedEtag`. */
  deleteIf (ref: MetadataRef, expectedEtag: string): Promise<DeleteMetadataResult>
}

interface MetadataRow { body: string, etag: string, updated_at: string }
function toRevision (r: MetadataRow): MetadataRevision {
  let value: Record<string, unknown> | undefined
  return {
    // Parsed when first used: a read answered with the stored text, or with 304, never is.
    get value () { return (value ??= JSON.parse(r.body) as Record<string, unknown>) },
    json: r.body,
    etag: r.etag,
    updatedAt: r.updated_at
  }
}

const textOf = (r: MetadataRevision): string => r.json ?? JSON.stringify(r.value)

/**
 * Inserts a first revision inside the caller's transaction: user creation stores the user, its
 * metadata and its events atomically.
 */
export function metadataInserter (db: Db): (ref: MetadataRef, revision: MetadataRevision) => Promise<void> {
  const insert = db.prepare('INSERT INTO metadata (entity_type, entity_id, organization_id, body, etag, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
  const memo = memoOf(db)
  return async (ref, r) => {
    memo.forgetMetadata(ref)
    await insert.run(ref.entity, ref.entityId, ref.organizationId, textOf(r), r.etag, r.updatedAt)
  }
}

/**
 * The removal of one entity's metadata, for the area that deletes the entity: run inside the
 * write that deletes it (an area names its entity type once, not in SQL of its own).
 */
export function entityMetadataRemover (db: Db, entityType: string): (organizationId: string, entityId: string) => Promise<void> {
  const remove = db.prepare('DELETE FROM metadata WHERE organization_id = ? AND entity_type = ? AND entity_id = ?')
  const memo = memoOf(db)
  return async (organizationId, entityId) => {
    memo.forgetMetadata({ entity: entityType, entityId, organizationId })
    await remove.run(organizationId, entityType, entityId)
  }
}

export function metadataStore (db: Db): MetadataStore {
  const get = db.prepare<[string, string, string], MetadataRow>(
    'SELECT body, etag, updated_at FROM metadata WHERE entity_type = ? AND entity_id = ? AND organization_id = ?')
  const update = db.prepare(
    'UPDATE metadata SET body = ?, etag = ?, updated_at = ? WHERE entity_type = ? AND entity_id = ? AND organization_id = ? AND etag = ?')
  const del = db.prepare('DELETE FROM metadata WHERE entity_type = ? AND entity_id = ? AND organization_id = ? AND etag = ?')
  const insert = metadataInserter(db)
  const write = groupCommit(db)
  const memo = memoOf(db)
  const read = async (ref: MetadataRef): Promise<MetadataRevision | undefined> => {
    const row = await get.get(ref.entity, ref.entityId, ref.organizationId)
    return row === undefined ? undefined : toRevision(row)
  }
  // Outside a write on PostgreSQL, the reads of one turn go together (see `turnReads`).
  const readOutside = db.dialect === 'postgres' ? turnReads(db, read) : read

  return {
    cached: (ref) => memo.metadata(ref),

    // Outside any transaction: what it reads is committed, so it may be remembered.
    async get (ref) {
      let revision = memo.metadata(ref)
      if (revision === undefined) {
        revision = await (db.inTransaction ? read(ref) : readOutside(ref))
        if (revision !== undefined) memo.rememberMetadata(ref, revision)
      }
      return revision
    },

    async replaceIf (ref, expectedEtag, next) {
      const result = await write(async (): Promise<ReplaceMetadataResult> => {
        memo.forgetMetadata(ref)
        // The usual case, a replacement of the revision the caller read, needs no read here.
        if (expectedEtag !== null &&
          (await update.run(textOf(next), next.etag, next.updatedAt, ref.entity, ref.entityId, ref.organizationId, expectedEtag)).changes > 0) {
          return { written: true, created: false }
        }
        const current = await read(ref)
        if ((current?.etag ?? null) !== expectedEtag) return { written: false, current }
        if (current === undefined) {
          await insert(ref, next)
          return { written: true, created: true }
        }
        await update.run(textOf(next), next.etag, next.updatedAt, ref.entity, ref.entityId, ref.organizationId, expectedEtag)
        return { written: true, created: false }
      })
      // Committed, so current: a later write commits only in a later group, after this line has run.
      if (result.written) memo.rememberMetadata(ref, next)
      return result
    },

    async deleteIf (ref, expectedEtag) {
      return await write(async (): Promise<DeleteMetadataResult> => {
        memo.forgetMetadata(ref)
        if ((await del.run(ref.entity, ref.entityId, ref.organizationId, expectedEtag)).changes > 0) return { deleted: true }
        return { deleted: false, current: await read(ref) }
      })
    }
  }
}

interface Waiting {
  ref: MetadataRef
  resolve: (revision: MetadataRevision | undefined) => void
  reject: (error: unknown) => void
}

/**
 * PostgreSQL: the metadata reads asked for outside a write during one turn of the event loop go to
 * the database together at the end of that turn (setImmediate), one statement for each
 * organization and entity type; a read alone in its group goes as it would have. Under load a turn
 * holds a read for nearly every busy connection, most of them of one organization's users. A
 * statement per read was the largest part of a metadata GET's CPU on this backend, in the replica
 * (the driver's work for each statement) and in PostgreSQL (see BENCHMARKS.md). Sent after each
 * read of the turn was asked, the statement sees every write acknowledged before any of them was
 * asked, as a statement of its own would. A failed statement fails each of its reads (a lost
 * database: each request answers 503). SQLite reads in process, with no round trip to save.
 */
export function turnReads (db: Db, one: (ref: MetadataRef) => Promise<MetadataRevision | undefined>): (ref: MetadataRef) => Promise<MetadataRevision | undefined> {
  const many = db.prepare<[string, string, string[] | string], MetadataRow & { entity_id: string }>({
    sqlite: 'SELECT entity_id, body, etag, updated_at FROM metadata WHERE entity_type = ? AND organization_id = ? AND entity_id IN (SELECT value FROM json_each(?))',
    postgres: 'SELECT entity_id, body, etag, updated_at FROM metadata WHERE entity_type = ? AND organization_id = ? AND entity_id = ANY(?::text[])'
  })
  let waiting: Waiting[] = []
  const settle = (reads: Waiting[]): void => {
    if (reads.length === 1) {
      one(reads[0].ref).then(reads[0].resolve, reads[0].reject)
      return
    }
    const { entity, organizationId } = reads[0].ref
    const ids = [...new Set(reads.map(w => w.ref.entityId))]
    many.all(entity, organizationId, db.dialect === 'postgres' ? ids : JSON.stringify(ids)).then(rows => {
      const byId = new Map(rows.map(row => [row.entity_id, row]))
      for (const w of reads) {
        const row = byId.get(w.ref.entityId)
        w.resolve(row === undefined ? undefined : toRevision(row))
      }
    }, (error: unknown) => { for (const w of reads) w.reject(error) })
  }
  // Called by the immediate alone, outside any context (src/async-context.ts): the statements run on
  // the pool, never on a caller's transaction.
  const flush = (): void => {
    const reads = waiting
    waiting = []
    const groups = new Map<string, Map<string, Waiting[]>>()
    for (const w of reads) {
      let byEntity = groups.get(w.ref.organizationId)
      if (byEntity === undefined) groups.set(w.ref.organizationId, byEntity = new Map())
      const group = byEntity.get(w.ref.entity)
      if (group === undefined) byEntity.set(w.ref.entity, [w])
      else group.push(w)
    }
    for (const byEntity of groups.values()) for (const group of byEntity.values()) settle(group)
  }
  return async ref => await new Promise((resolve, reject) => {
    if (waiting.length === 0) setImmediate(flush)
    waiting.push({ ref, resolve, reject })
  })
}
