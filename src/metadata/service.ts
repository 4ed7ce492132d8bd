// The metadata operations. Each write reads the current revision, evaluates the preconditions
// against it, and stores its result only if that revision is still current (compare-and-swap in
// one storage transaction). When another writer got there first, the request is evaluated again
// against what that writer stored, so it ends exactly as if it had arrived second: inside the
// write this time (the store's `change`), where no third writer can come between, so it is
// decided then, however many writers race (before, each lost race meant another try, and a
// hundred concurrent writers of one entity's metadata left some with a 429).
import type { FastifyInstance } from 'fastify'
import { ApiError, entityNotFound, preconditionFailed } from '../errors.js'
import type { MetadataRef, MetadataRevision } from '../storage/metadata.js'
import { evaluatePreconditions, type Preconditions } from './conditional.js'
import { JsonPatchFailure, JsonPatchTooLarge, applyJsonPatch, hasForbiddenMember, type JsonPatchOperation } from './json-patch.js'
import { metadataTooLarge, toRevision } from './revision.js'

export const metadataNotFound = (): ApiError => entityNotFound('metadata', 'The entity metadata cannot be found')

const ifNoneMatchFailed = (): ApiError =>
  new ApiError(412, 'precondition_failed', 'The If-None-Match header value matches the current metadata')

const jsonPatchFailed = (operation: { index: number, op: string, path: string }, reason: string): ApiError =>
  new ApiError(422, 'json_patch_failed', 'The entity metadata patch operation failed to apply', { operation, reason })

/** Throws the 412 a failed precondition answers on a write. */
function checkWrite (conditions: Preconditions, current: MetadataRevision | undefined): void {
  const verdict = evaluatePreconditions(conditions, current?.etag, false)
  if (verdict === 'if-match-failed') throw preconditionFailed()
  if (verdict === 'if-none-match-failed') throw ifNoneMatchFailed()
}

export type ReadOutcome = { status: 200, revision: MetadataRevision } | { status: 304, etag: string }

export async function readMetadata (app: FastifyInstance, ref: MetadataRef, conditions: Preconditions): Promise<ReadOutcome> {
  return readOutcome(await app.storage.metadata.get(ref), conditions)
}

/** What a read of the current revision answers: 200 or 304; 404 and 412 are thrown. */
export function readOutcome (current: MetadataRevision | undefined, conditions: Preconditions): ReadOutcome {
  // RFC 9110 13.2.1: a request that would fail without its preconditions ignores them.
  if (current === undefined) throw metadataNotFound()
  const verdict = evaluatePreconditions(conditions, current.etag, true)
  if (verdict === 'if-match-failed') throw preconditionFailed()
  if (verdict === 'not-modified') return { status: 304, etag: current.etag }
  return { status: 200, revision: current }
}

export async function setMetadata (app: FastifyInstance, ref: MetadataRef, conditions: Preconditions, value: Record<string, unknown>): Promise<{ created: boolean, revision: MetadataRevision }> {
  const revision = toRevision(value, app.clock.iso())
  if (revision instanceof ApiError) throw revision
  const current = await app.storage.metadata.get(ref)
  checkWrite(conditions, current)
  const result = await app.storage.metadata.replaceIf(ref, current?.etag ?? null, revision)
  if (result.written) return { created: result.created, revision }
  const changed = await app.storage.metadata.change(ref, stored => {
    checkWrite(conditions, stored)
    return revision
  })
  return { created: changed.created, revision }
}

export async function patchMetadata (app: FastifyInstance, ref: MetadataRef, conditions: Preconditions, patch: JsonPatchOperation[], workLimit: number): Promise<MetadataRevision> {
  const patched = (current: MetadataRevision | undefined): MetadataRevision => {
    if (current === undefined) throw metadataNotFound()
    checkWrite(conditions, current)
    return patchedRevision(current.value, patch, workLimit, app.clock.iso())
  }
  const current = await app.storage.metadata.get(ref)
  const revision = patched(current)
  // `patched` refused an absent revision: current?.etag is its tag.
  const result = await app.storage.metadata.replaceIf(ref, current?.etag ?? null, revision)
  if (result.written) return revision
  const changed = await app.storage.metadata.change(ref, patched)
  return changed.revision ?? revision
}

export async function deleteMetadata (app: FastifyInstance, ref: MetadataRef, conditions: Preconditions): Promise<void> {
  /** The tag of the revision to delete, or the 404 or 412 the request answers. */
  const removable = (current: MetadataRevision | undefined): string => {
    if (current === undefined) throw metadataNotFound()
    checkWrite(conditions, current)
    return current.etag
  }
  const result = await app.storage.metadata.deleteIf(ref, removable(await app.storage.metadata.get(ref)))
  if (result.deleted) return
  await app.storage.metadata.change(ref, current => {
    removable(current)
    return null
  })
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The revision the patch makes, or the API's error: 422 for an operation that does not apply or a
 * result that is not metadata, 413 for a result over the size limit.
 */
function patchedRevision (value: Record<string, unknown>, patch: JsonPatchOperation[], workLimit: number, now: string): MetadataRevision {
  let result: unknown
  try {
    result = applyJsonPatch(value, patch, workLimit)
  } catch (err) {
    if (err instanceof JsonPatchFailure) throw jsonPatchFailed({ index: err.index, op: err.op, path: err.path }, err.message)
    if (err instanceof JsonPatchTooLarge) throw metadataTooLarge()
    throw err
  }
  const last = patch.length - 1
  const lastOperation = { index: last, op: patch[last].op, path: patch[last].path }
  if (!isObject(result) || Object.keys(result).length === 0) {
    throw jsonPatchFailed(lastOperation, 'the patched metadata must be a JSON object with at least one member')
  }
  // Size first: the member check below walks the value, which must be small by then.
  const revision = toRevision(result, now)
  if (revision instanceof ApiError) throw revision
  if (hasForbiddenMember(result)) {
    throw jsonPatchFailed(lastOperation, 'the patched metadata must not hold a member named __proto__, nor a constructor member holding prototype')
  }
  return revision
}
