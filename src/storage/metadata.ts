// The metadata store. Every statement is prepared once, here. Writes are
// compare-and-swap on the revision the caller observed (its ETag), checked and applied in one
// transaction (a savepoint of the group commit), so two writers holding the same ETag can never
// both succeed. A writer that lost such a race decides again inside the write (`change`), where
// no other writer can come between its read and its write.
import { groupCommit, type Db, type GroupCommit } from './db.js'
import { memoOf } from './memo.js'
import { perTurn } from '../turn-batch.js'
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
  /**
   * Reads the stored revision inside a write and stores what `decide` makes of it: a revision, or
   * null to delete the metadata. What `decide` throws refuses the change (nothing is written) and
   * is what this throws. For a writer whose compare-and-swap lost a race: deciding where no other
   * writer can come between, it never has to try again.
   */
  change (ref: MetadataRef, decide: (current: MetadataRevision | undefined) => MetadataRevision | null): Promise<MetadataChange>
}

/** What `change` did: `revision` is what is stored now (null: nothing); `created` when there was none before. */
export interface MetadataChange { created: boolean, revision: MetadataRevision | null }

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
  /** Stores `next` over `current`, read inside this same write: an insert when none is stored; whether it was. */
  const storeOver = async (ref: MetadataRef, current: MetadataRevision | undefined, next: MetadataRevision): Promise<boolean> => {
    if (current === undefined) {
      await insert(ref, next)
      return true
    }
    await update.run(textOf(next), next.etag, next.updatedAt, ref.entity, ref.entityId, ref.organizationId, current.etag)
    return false
  }
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
    return { written: true, created: await storeOver(ref, current, next) }
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
    },

    async change (ref, decide) {
      // A refusal is answered by the write, not thrown in it: a throw would roll the whole group
      // back and run it again, each write in a savepoint of its own (db.ts).
      const outcome = await write(async (): Promise<MetadataChange | { refused: unknown }> => {
        const current = await read(ref)
        let next: MetadataRevision | null
        try {
          next = decide(current)
        } catch (refused) {
          return { refused }
        }
        memo.forgetMetadata(ref)
        if (next !== null) return { created: await storeOver(ref, current, next), revision: next }
        if (current !== undefined) await del.run(ref.entity, ref.entityId, ref.organizationId, current.etag)
        return { created: false, revision: null }
      })
      if ('refused' in outcome) throw outcome.refused
      // Committed, so current (as in replaceIf).
      if (outcome.revision !== null) memo.rememberMetadata(ref, outcome.revision)
      return outcome
    }
  }
}

/** A replacement of `ref`'s revision `expectedEtag` (null: of none) by `next`. */
interface Replacement {
  ref: MetadataRef
  expectedEtag: string | null
  next: MetadataRevision
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
 * entity, and one whose revision had changed (or gone), then runs alone (`one`, inside the write),
 * in order, and so sees what the statement wrote. A write that fails fails each of its
 * replacements (a lost database: each request answers 503). SQLite writes in process, with no round
 * trip to save.
 */
export function turnReplacements (db: Db, write: GroupCommit, one: (replacement: Replacement) => Promise<ReplaceMetadataResult>): (replacement: Replacement) => Promise<ReplaceMetadataResult> {
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
  const run = async (turn: Replacement[]): Promise<ReplaceMetadataResult[]> => {
    const outcomes = new Array<ReplaceMetadataResult | undefined>(turn.length)
    // The first replacement of each entity, by its index in the turn.
    const first = new Map<string, number>()
    turn.forEach((r, i) => { if (!first.has(refKey(r.ref))) first.set(refKey(r.ref), i) })
    if (first.size > 1) {
      const lead = [...first.values()].map(i => turn[i])
      const rows = await many.all(JSON.stringify(lead.map(({ ref, next, expectedEtag }) => ({
        type: ref.entity, id: ref.entityId, org: ref.organizationId, body: textOf(next), etag: next.etag, at: next.updatedAt, expected: expectedEtag
      }))))
      for (const row of rows) {
        const i = first.get(refKey({ organizationId: row.organization_id, entity: row.entity_type, entityId: row.entity_id }))!
        memo.forgetMetadata(turn[i].ref)
        outcomes[i] = { written: true, created: false }
      }
    }
    // The rest alone, the first of each entity before the later ones.
    for (const i of first.values()) outcomes[i] ??= await one(turn[i])
    for (let i = 0; i < turn.length; i++) outcomes[i] ??= await one(turn[i])
    return outcomes as ReplaceMetadataResult[]
  }
  return perTurn(turn => {
    const outcomes = write(async () => await run(turn))
    return turn.map(async (_, i) => (await outcomes)[i])
  })
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
  /** The reads of one organization's entities of one type: one statement, or one read when alone. */
  const group = async (refs: MetadataRef[]): Promise<Array<MetadataRevision | undefined>> => {
    if (refs.length === 1) return [await one(refs[0])]
    const { entity, organizationId } = refs[0]
    const ids = [...new Set(refs.map(ref => ref.entityId))]
    const rows = await many.all(entity, organizationId, db.dialect === 'postgres' ? ids : JSON.stringify(ids))
    const byId = new Map(rows.map(row => [row.entity_id, row]))
    return refs.map(ref => {
      const row = byId.get(ref.entityId)
      return row === undefined ? undefined : toRevision(row)
    })
  }
  return perTurn(turn => {
    // The turn's reads by organization and entity type, with their indexes in the turn.
    const groups = new Map<string, { refs: MetadataRef[], at: number[] }>()
    turn.forEach((ref, i) => {
      const key = `${ref.organizationId}\u0000${ref.entity}`
      let g = groups.get(key)
      if (g === undefined) groups.set(key, g = { refs: [], at: [] })
      g.refs.push(ref)
      g.at.push(i)
    })
    const answers = new Array<Promise<MetadataRevision | undefined>>(turn.length)
    for (const { refs, at } of groups.values()) {
      const read = group(refs)
      at.forEach((i, k) => { answers[i] = read.then(revisions => revisions[k]) })
    }
    return answers
  })
}
