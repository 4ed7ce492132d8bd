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

  return {
    cached: (ref) => memo.metadata(ref),

    // Outside any transaction: what it reads is committed, so it may be remembered.
    async get (ref) {
      let revision = memo.metadata(ref)
      if (revision === undefined) {
        revision = await read(ref)
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
