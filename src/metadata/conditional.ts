// Conditional requests as RFC 9110 section 13 has them: If-Match with the strong comparison,
// If-None-Match with the weak one, lists of entity tags and `*`, evaluated in the section 13.2.2
// order. Pure functions: the routes decide what a verdict answers.
import { TAG_CONDITION_PATTERN } from '../../schemas/metadata.js'

/** `entity-tag = [ weak ] opaque-tag`; `opaque` keeps its quotes. */
export interface EntityTag { weak: boolean, opaque: string }

/** A parsed If-Match or If-None-Match field: `*` or a (possibly empty) list of entity tags. */
export type TagCondition = '*' | EntityTag[]

export interface Preconditions {
  ifMatch?: TagCondition
  ifNoneMatch?: TagCondition
}

const SYNTAX = new RegExp(TAG_CONDITION_PATTERN, 'u')
const TAG = /(W\/)?("[^"]*")/g
// What clients send nearly always: the one strong tag they were given (a subset of SYNTAX).
const ONE_STRONG_TAG = /^"[\x21\x23-\x7E\x80-\xFF]*"$/

/** Parses a field value; undefined when it is not valid syntax. */
export function parseTagCondition (value: string): TagCondition | undefined {
  if (ONE_STRONG_TAG.test(value)) return [{ weak: false, opaque: value }]
  if (!SYNTAX.test(value)) return undefined
  if (value.trim() === '*') return '*'
  return [...value.matchAll(TAG)].map(m => ({ weak: m[1] !== undefined, opaque: m[2] }))
}

/** Strong comparison: both tags strong and identical. */
const strongMatch = (a: EntityTag, b: EntityTag): boolean => !a.weak && !b.weak && a.opaque === b.opaque
/** Weak comparison: identical opaque tags, weak or not. */
const weakMatch = (a: EntityTag, b: EntityTag): boolean => a.opaque === b.opaque

export type Verdict = 'proceed' | 'not-modified' | 'if-match-failed' | 'if-none-match-failed'

/**
 * Evaluates the preconditions against the current entity tag (undefined: no current
 * representation). `safe` is true for GET and HEAD, where a matching If-None-Match means 304.
 */
export function evaluatePreconditions (conditions: Preconditions, currentEtag: string | undefined, safe: boolean): Verdict {
  const weak = currentEtag?.startsWith('W/') === true
  const current: EntityTag | undefined = currentEtag === undefined ? undefined : { weak, opaque: weak ? currentEtag.slice(2) : currentEtag }
  const { ifMatch, ifNoneMatch } = conditions
  if (ifMatch !== undefined) {
    const holds = current !== undefined && (ifMatch === '*' || ifMatch.some(tag => strongMatch(tag, current)))
    if (!holds) return 'if-match-failed'
  }
  if (ifNoneMatch !== undefined) {
    const matches = current !== undefined && (ifNoneMatch === '*' || ifNoneMatch.some(tag => weakMatch(tag, current)))
    if (matches) return safe ? 'not-modified' : 'if-none-match-failed'
  }
  return 'proceed'
}
