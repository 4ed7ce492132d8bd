// The entity metadata contract: the metadata object, its wrapper, JSON Patch documents and the
// conditional request headers. Inline schemas (no $id): each is used by several routes.
import { Type, type Static } from 'typebox'

// Any members: typed as a record, so a handler reads it without a cast.
export const Metadata = Type.Unsafe<Record<string, unknown>>(Type.Object({}, {
  additionalProperties: true,
  minProperties: 1,
  description: 'Integrator-defined JSON object with at least one member. Serialized with JSON.stringify, it holds at most 1024 Unicode characters (code points).',
  examples: [{ externalId: 123 }]
}))

export const MetadataBody = Type.Object({ metadata: Metadata }, { description: 'The stored metadata.' })
export type MetadataBody = Static<typeof MetadataBody>

// RFC 6901: "" or "/"-prefixed tokens in which "~" is only ever "~0" or "~1".
const POINTER_PATTERN = '^(/([^~/]|~[01])*)*$'
const JsonPointer = (description: string) => Type.String({ pattern: POINTER_PATTERN, description })

const WITH_VALUE = ['add', 'replace', 'test']
const WITH_FROM = ['move', 'copy']

export const JsonPatchOperation = Type.Object({
  op: Type.Enum(['add', 'remove', 'replace', 'move', 'copy', 'test'], { description: 'The operation (RFC 6902 section 4).' }),
  path: JsonPointer('JSON Pointer (RFC 6901) to the target location; "" is the whole metadata object.'),
  from: Type.Optional(Type.String({ description: 'JSON Pointer to the source location (`move` and `copy`).' })),
  value: Type.Optional(Type.Unknown({ description: 'Any JSON value (`add`, `replace` and `test`); `null` counts as present.' }))
}, {
  // RFC 6902 section 4: members an operation does not define are ignored, so extra ones are allowed.
  additionalProperties: true,
  allOf: [
    { if: { properties: { op: { enum: WITH_VALUE } } }, then: { required: ['value'] } },
    { if: { properties: { op: { enum: WITH_FROM } } }, then: { required: ['from'], properties: { from: { pattern: POINTER_PATTERN } } } }
  ]
})
export type JsonPatchOperation = Static<typeof JsonPatchOperation>

export const JsonPatch = Type.Array(JsonPatchOperation, {
  minItems: 1,
  description: 'A JSON Patch document (RFC 6902): the operations, applied in order, all or none.',
  examples: [[{ op: 'replace', path: '/tier', value: 'gold' }, { op: 'add', path: '/tags/-', value: 'vip' }]]
})

// RFC 9110 8.8.3 and 13.1: `*` or a comma-separated list of entity tags (weak ones `W/"..."`).
const ENTITY_TAG = '(?:W/)?"[\\x21\\x23-\\x7E\\x80-\\xFF]*"'
export const TAG_CONDITION_PATTERN = `^[\\t ]*(?:\\*|(?:${ENTITY_TAG})?(?:[\\t ]*,[\\t ]*(?:${ENTITY_TAG})?)*)[\\t ]*$`

const ifMatch = Type.Optional(Type.String({
  pattern: TAG_CONDITION_PATTERN,
  description: 'Proceed only if the current metadata revision matches (strong comparison): `*` (any metadata exists) or a list of entity tags. Otherwise 412 `precondition_failed`; with no metadata stored, any If-Match fails.',
  examples: ['"b59c6960e8c802ec287f3892b398b7b58eb4790640414f2c2b048ff22f873d72"']
}))
const ifNoneMatch = (whenMatched: string) => Type.Optional(Type.String({
  pattern: TAG_CONDITION_PATTERN,
  description: `Proceed only if the current revision matches none of the listed entity tags (weak comparison), or, with \`*\`, if no metadata exists. ${whenMatched}`,
  examples: ['*']
}))
const onBehalfOf = Type.Optional(Type.String({
  description: '`user <uuid>`: act as that user of the organization (needs `core.users:act-on-behalf-of`). Required unless the token itself is bound to a user.',
  examples: ['user cd21b26d-35d2-408a-9201-b8fdbef7a604']
}))

// Lowercase names: with a custom validator compiler Fastify validates header schemas as written,
// against Node's lowercased header names.
/** Request headers of the metadata operations; `read` is GET, where a matching If-None-Match means 304. */
export const metadataHeaders = (read: boolean) => Type.Object({
  'if-match': ifMatch,
  'if-none-match': ifNoneMatch(read ? 'When one matches: 304 Not Modified with the ETag and no body.' : 'When one matches (or `*` and metadata exists): 412 `precondition_failed`.'),
  'x-on-behalf-of': onBehalfOf
})

export const ETagHeader = {
  ETag: {
    type: 'string',
    description: 'The current metadata revision: `"<sha256 hex of the JSON-serialized metadata>"`.'
  }
}
