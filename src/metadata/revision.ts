// What makes a metadata revision: its serialization (JSON.stringify), its size in Unicode code
// points, its entity tag (sha256 of the serialization) and the size limit. Shared by the metadata
// routes and by user creation, which stores `metadata` from the creation body.
import { ApiError } from '../errors.js'
import { etagOf, type MetadataRevision } from '../storage/metadata.js'

export const METADATA_SIZE_LIMIT = 1024

/** 413 with the threshold as the spec gives it: `limit` is a string holding a number. */
export const metadataTooLarge = (): ApiError =>
  new ApiError(413, 'content_too_large', 'The entity metadata size is greater than maximum size limit', {
    threshold: { unit: 'characters', limit: String(METADATA_SIZE_LIMIT) }
  })

const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g

/** Unicode code points, not UTF-16 units: an emoji counts as one character. */
export function codePoints (text: string): number {
  // Each surrogate pair is two UTF-16 units but one code point (a lone surrogate counts as one).
  const pairs = text.match(SURROGATE_PAIR)
  return text.length - (pairs === null ? 0 : pairs.length)
}

/**
 * JSON.stringify, or undefined when the value is nested too deeply to serialize (the engine's
 * stack runs out): such a value is far beyond the size limit anyway.
 */
export function serialize (value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  } catch (err) {
    if (err instanceof RangeError) return undefined
    throw err
  }
}

/** A revision of `value` stamped `now`, or the 413 error when it is over the size limit. */
export function toRevision (value: Record<string, unknown>, now: string): MetadataRevision | ApiError {
  const serialized = serialize(value)
  if (serialized === undefined || codePoints(serialized) > METADATA_SIZE_LIMIT) return metadataTooLarge()
  return { value, json: serialized, etag: etagOf(serialized), updatedAt: now }
}

/** The answer's `errors` when metadata given at an entity's creation could not be stored. */
export interface CreationErrors { metadata: ReturnType<ApiError['toJSON']> }

/**
 * Metadata given when an entity is created (a user, account, file, external account): its first
 * revision, or, when it is over the limit, the `errors.metadata` the answer carries while the
 * entity is created without it.
 */
export function metadataAtCreation (value: Record<string, unknown> | undefined, now: string): { metadata?: MetadataRevision, errors?: CreationErrors } {
  if (value === undefined) return {}
  const revision = toRevision(value, now)
  return revision instanceof ApiError ? { errors: { metadata: revision.toJSON() } } : { metadata: revision }
}
