// JSON Patch (RFC 6902) applied by fast-json-patch, inside a guard of ours. The guard exists because
// the library reads through the prototype chain (`remove /toString` "succeeds", `replace
// /constructor` works on a document without that member, `copy` from `/constructor` copies a
// function) and mutates what it is given. So the library works on a deep copy (a failing patch
// leaves the stored document untouched); before each operation an own-property JSON Pointer walk
// (RFC 6901) checks every location it reads, so the prototype chain is never consulted; and every
// error it throws becomes a JsonPatchFailure naming the operation, never a 5xx.
import fjp, { type Operation } from 'fast-json-patch'

// CommonJS: Node's ESM loader exposes its members on the default export only.
const { applyOperation, validate, JsonPatchError } = fjp

export type JsonPatchOp = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'

export interface JsonPatchOperation {
  op: JsonPatchOp
  path: string
  from?: string
  value?: unknown
}

/** An operation could not be applied: which one, and why, in words. */
export class JsonPatchFailure extends Error {
  readonly index: number
  readonly op: string
  readonly path: string

  constructor (index: number, operation: JsonPatchOperation, reason: string) {
    super(reason)
    this.name = 'JsonPatchFailure'
    this.index = index
    this.op = operation.op
    this.path = operation.path
  }
}

/** The patch did more work than `maxLength` allows (a `copy` can double the document each time). */
export class JsonPatchTooLarge extends Error {
  constructor () {
    super('The patched document is too large')
    this.name = 'JsonPatchTooLarge'
  }
}

type Container = Record<string, unknown> | unknown[]
type Fail = (reason: string) => never

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/

/** RFC 6901: "" is the whole document; otherwise "/"-separated tokens with ~1 for "/" and ~0 for "~". */
export function parsePointer (pointer: string): string[] | undefined {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) return undefined
  const tokens = pointer.slice(1).split('/')
  for (const t of tokens) if (/~(?![01])/.test(t)) return undefined
  return tokens.map(t => t.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function pointerOf (tokens: string[]): string {
  return tokens.map(t => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join('')
}

const has = (container: Container, token: string): boolean => Array.isArray(container)
  ? ARRAY_INDEX.test(token) && Number(token) < container.length
  : Object.hasOwn(container, token)

/** The value at `tokens` through own members only, or the first prefix that names nothing. */
function locate (doc: unknown, tokens: string[]): { found: true, value: unknown } | { found: false, at: string } {
  let node = doc
  for (let i = 0; i < tokens.length; i++) {
    if (!isContainer(node) || !has(node, tokens[i])) return { found: false, at: pointerOf(tokens.slice(0, i + 1)) }
    node = Array.isArray(node) ? node[Number(tokens[i])] : node[tokens[i]]
  }
  return { found: true, value: node }
}

function existing (doc: unknown, tokens: string[], fail: Fail, what = 'path'): unknown {
  const found = locate(doc, tokens)
  // Worded like the real service's answers: "doc is missing path: /region: missing value".
  return found.found ? found.value : fail(`doc is missing ${what === 'path' ? 'path' : 'from path'}: ${found.at}: missing value`)
}

/** Where add, move and copy put a value: an existing container, and in an array an index up to its length or "-". */
function checkTarget (doc: unknown, tokens: string[], fail: Fail): void {
  if (tokens.length === 0) return
  const parentTokens = tokens.slice(0, -1)
  const parent = existing(doc, parentTokens, fail)
  if (!isContainer(parent)) fail(`the value at ${pointerOf(parentTokens)} is neither an object nor an array`)
  const key = tokens[tokens.length - 1]
  if (!Array.isArray(parent) || key === '-') return
  if (!ARRAY_INDEX.test(key)) fail(`${key} is not an array index`)
  if (Number(key) > parent.length) fail(`the index ${key} is out of bounds (array length ${parent.length})`)
}

/** JSON text of a value; one nested past the engine's stack is too large to store, whatever its length. */
function serialize (value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch (err) {
    if (err instanceof RangeError) throw new JsonPatchTooLarge()
    throw err
  }
}

/** The library's error in words: its message holds the whole document, so it is not shown. */
function reasonOf (err: InstanceType<typeof JsonPatchError>): string {
  const op = isObject(err.operation) ? err.operation : {}
  switch (err.name) {
    case 'TEST_OPERATION_FAILED': return `the value at ${String(op.path)} is not equal to the test value`
    case 'OPERATION_PATH_UNRESOLVABLE': return `doc is missing path: ${String(op.path)}: missing value`
    case 'OPERATION_FROM_UNRESOLVABLE': return `doc is missing from path: ${String(op.from)}: missing value`
    case 'OPERATION_PATH_CANNOT_ADD': return `the parent of ${String(op.path)} does not exist`
    case 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX': return `${String(op.path)} does not end in an array index`
    case 'OPERATION_VALUE_OUT_OF_BOUNDS': return `the index in ${String(op.path)} is out of bounds`
    case 'OPERATION_VALUE_REQUIRED': return 'value is required'
    case 'OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED': return 'value must be a JSON value'
    case 'OPERATION_FROM_REQUIRED': return 'from is required'
    case 'OPERATION_PATH_INVALID': return `path ${String(op.path)} is not a JSON pointer`
    case 'OPERATION_OP_INVALID': return `${String(op.op)} is not an operation`
    default: return err.message.split('\n')[0]
  }
}

/** One operation through the library, on a document that is ours to change. */
function run (doc: unknown, operation: Operation): { newDocument: unknown, removed?: unknown } {
  return applyOperation(doc, operation, /* validateOperation */ true, /* mutateDocument */ true, /* banPrototypeModifications */ true)
}

/** Checks `operation` against `doc` with own-property lookups, then has the library apply it. */
function guarded (doc: unknown, operation: JsonPatchOperation, fail: Fail): unknown {
  const { op, path } = operation
  // Values entering the document are copied (the patch's own never share state with it) before
  // validation, so one nested too deep for the engine is too large rather than malformed.
  const value = (op === 'add' || op === 'replace') && Object.hasOwn(operation, 'value')
    ? JSON.parse(serialize(operation.value))
    : operation.value
  const invalid = validate([operation as Operation])
  if (invalid !== undefined) fail(reasonOf(invalid))
  const pointer = (text: string | undefined, name: string): string[] => parsePointer(text ?? '') ?? fail(`${name} ${String(text)} is not a JSON pointer`)
  const tokens = pointer(path, 'path')
  // The library's banPrototypeModifications refuses these too; here the client learns why.
  if (tokens.some((t, i) => t === '__proto__' || (t === 'prototype' && tokens[i - 1] === 'constructor'))) {
    fail(`the path ${path} names __proto__ or constructor/prototype, which no metadata may hold`)
  }
  switch (op) {
    case 'add':
      checkTarget(doc, tokens, fail)
      return run(doc, { op, path, value }).newDocument
    case 'remove':
      if (tokens.length === 0) fail('the whole document cannot be removed')
      existing(doc, tokens, fail)
      return run(doc, { op, path }).newDocument
    case 'replace':
      existing(doc, tokens, fail)
      return run(doc, { op, path, value }).newDocument
    case 'test':
      existing(doc, tokens, fail)
      return run(doc, { op, path, value }).newDocument
    case 'copy': {
      const from = operation.from ?? ''
      existing(doc, pointer(from, 'from'), fail, 'from')
      checkTarget(doc, tokens, fail)
      return run(doc, { op, from, path }).newDocument
    }
    case 'move': {
      const from = operation.from ?? ''
      const source = pointer(from, 'from')
      existing(doc, source, fail, 'from')
      const within = tokens.length >= source.length && source.every((t, i) => t === tokens[i])
      if (within && tokens.length === source.length) return doc
      // RFC 6902 4.4: a location cannot be moved into one of its children.
      if (within) fail(`${from} cannot be moved into its own child ${path}`)
      // As RFC 6902 4.4 defines it, remove then add, so the target is checked against the document
      // without the moved value (the library's own move adds unchecked, and clones the target first).
      const removed = run(doc, { op: 'remove', path: from })
      checkTarget(removed.newDocument, tokens, fail)
      return run(removed.newDocument, { op: 'add', path, value: removed.removed }).newDocument
    }
    default:
      return fail(`${String(op)} is not an operation`)
  }
}

/**
 * Applies `patch` to a copy of `document` and returns the result. Throws JsonPatchFailure for the
 * first operation that does not apply (the input is untouched either way), and JsonPatchTooLarge
 * when the work done passes `maxLength`: each operation counts the JSON length of the document it
 * leaves, which bounds the library's walks and clones and stops a `copy` doubling the document.
 */
export function applyJsonPatch (document: unknown, patch: readonly JsonPatchOperation[], maxLength: number): unknown {
  let work = 0
  const count = (doc: unknown): string => {
    const text = serialize(doc)
    work += text.length
    if (work > maxLength) throw new JsonPatchTooLarge()
    return text
  }
  // The copy is parsed from the text counted anyway (a stored document is JSON): cheaper than structuredClone.
  let doc: unknown = JSON.parse(count(document))
  patch.forEach((operation, index) => {
    const fail = (reason: string): never => { throw new JsonPatchFailure(index, operation, `${operation.op} operation does not apply: ${reason}`) }
    try {
      doc = guarded(doc, operation, fail)
    } catch (err) {
      if (err instanceof JsonPatchFailure || err instanceof JsonPatchTooLarge) throw err
      // Anything else the library throws (a RangeError on a deeply nested test value, a TypeError
      // comparing a value with a member named hasOwnProperty) is still this operation failing.
      fail(err instanceof JsonPatchError ? reasonOf(err) : 'the operation cannot be applied to this document')
    }
    count(doc)
  })
  return doc
}

/**
 * Whether a value holds a member the JSON body parser refuses (`__proto__`, or `constructor`
 * holding `prototype`): a patch must not produce what a PUT could not store.
 */
export function hasForbiddenMember (value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasForbiddenMember)
  if (!isObject(value)) return false
  for (const [key, v] of Object.entries(value)) {
    if (key === '__proto__' || (key === 'constructor' && isObject(v) && Object.hasOwn(v, 'prototype'))) return true
    if (hasForbiddenMember(v)) return true
  }
  return false
}
