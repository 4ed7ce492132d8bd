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
  /** A replacement, inside the write that makes it. */
  const replaceOne = async ({ ref, expectedEtag, next }: Replacement): Promise<ReplaceMetadataResult> => {
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
  }
  const replaceOutside = db.dialect === 'postgres' ? turnReplacements(db, write, replaceOne) : undefined

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
      // Outside a write on PostgreSQL, the replacements of one turn go together (see `turnReplacements`).
      const result = await (replaceOutside !== undefined && expectedEtag !== null && !db.inTransaction
        ? replaceOutside({ ref, expectedEtag, next })
        : write(async () => await replaceOne({ ref, expectedEtag, next })))
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

/** A replacement of `ref`'s revision `expectedEtag` (null: of none) by `next`. */
interface Replacement {
  ref: MetadataRef
  expectedEtag: string | null
  next: MetadataRevision
}

interface WaitingReplacement extends Replacement {
  resolve: (result: ReplaceMetadataResult) => void
  reject: (error: unknown) => void
}

const refKey = (ref: MetadataRef): string => `${ref.organizationId}\u0000${ref.entity}\u0000${ref.entityId}`

/**
 * PostgreSQL: the replacements of a revision the caller read (a metadata PUT or PATCH with the ETag
 * it read), asked for outside a write during one turn of the event loop, go to the database as one
 * write at the end of that turn, whose first statement updates every one of them whose revision is
 * still the one expected. Each was an UPDATE of its own in its group commit, awaited (its count of
 * rows says whether it wrote) before the next write of the group could go: a socket write to
 * PostgreSQL and a wake-up of its backend for every PUT, a quarter of a PUT's CPU on one replica
 * (BENCHMARKS.md, twenty-second stop).
 *
 * The same outcomes as one write each, in some order of arrival within the turn (the requests were
 * concurrent): the first replacement of each entity goes in the statement; a later one of the same
 * entity, and one whose revision had changed (or gone), then runs alone (`one`), in order, in the
 * same write, and so sees what the statement wrote. A write that fails fails each of its
 * replacements (a lost database: each request answers 503). SQLite writes in process, with no round
 * trip to save.
 */
export function turnReplacements (
  db: Db,
  write: (work: () => Promise<Map<WaitingReplacement, ReplaceMetadataResult>>) => Promise<Map<WaitingReplacement, ReplaceMetadataResult>>,
  one: (replacement: Replacement) => Promise<ReplaceMetadataResult>
): (replacement: Replacement) => Promise<ReplaceMetadataResult> {
  // The replacements as one JSON array of their columns: each backend reads it as rows.
  const many = db.prepare<[string], { organization_id: string, entity_type: string, entity_id: string }>({
    sqlite: `UPDATE metadata SET body = v.new_body, etag = v.new_etag, updated_at = v.new_updated_at
      FROM (SELECT value ->> 'type' AS type, value ->> 'id' AS id, value ->> 'org' AS org, value ->> 'body' AS new_body,
        value ->> 'etag' AS new_etag, value ->> 'at' AS new_updated_at, value ->> 'expected' AS expected FROM json_each(?)) AS v
      WHERE entity_type = v.type AND entity_id = v.id AND organization_id = v.org AND etag = v.expected
      RETURNING organization_id, entity_type, entity_id`,
    postgres: `UPDATE metadata AS m SET body = v.body, etag = v.etag, updated_at = v.at
      FROM json_to_recordset(CAST(? AS text)::json) AS v(type text, id text, org text, body text, etag text, at text, expected text)
      WHERE m.entity_type = v.type AND m.entity_id = v.id AND m.organization_id = v.org AND m.etag = v.expected
      RETURNING m.organization_id, m.entity_type, m.entity_id`
  })
  const memo = memoOf(db)
  let waiting: WaitingReplacement[] = []
  const run = async (batch: WaitingReplacement[]): Promise<Map<WaitingReplacement, ReplaceMetadataResult>> => {
    const outcomes = new Map<WaitingReplacement, ReplaceMetadataResult>()
    const first = new Map<string, WaitingReplacement>()
    const later: WaitingReplacement[] = []
    for (const w of batch) {
      memo.forgetMetadata(w.ref)
      const key = refKey(w.ref)
      if (first.has(key)) later.push(w)
      else first.set(key, w)
    }
    const lead = [...first.values()]
    if (lead.length > 1) {
      const rows = await many.all(JSON.stringify(lead.map(w => ({
        type: w.ref.entity, id: w.ref.entityId, org: w.ref.organizationId, body: textOf(w.next), etag: w.next.etag, at: w.next.updatedAt, expected: w.expectedEtag
      }))))
      for (const row of rows) {
        const w = first.get(refKey({ organizationId: row.organization_id, entity: row.entity_type, entityId: row.entity_id }))
        if (w !== undefined) outcomes.set(w, { written: true, created: false })
      }
    }
    for (const w of lead) if (!outcomes.has(w)) outcomes.set(w, await one(w))
    for (const w of later) outcomes.set(w, await one(w))
    return outcomes
  }
  // Called by the immediate alone, outside any context (src/async-context.ts): the write is a group
  // commit's of its own, never a caller's transaction.
  const flush = (): void => {
    const batch = waiting
    waiting = []
    write(async () => await run(batch)).then(outcomes => {
      for (const w of batch) w.resolve(outcomes.get(w)!)
    }, (error: unknown) => { for (const w of batch) w.reject(error) })
  }
  return async replacement => await new Promise((resolve, reject) => {
    if (waiting.length === 0) setImmediate(flush)
    waiting.push({ ...replacement, resolve, reject })
  })
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
