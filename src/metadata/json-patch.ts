// JSON Patch (RFC 6902) over JSON Pointer (RFC 6901), written here rather than taken from
// fast-json-patch because that library reads through the prototype chain (`remove /toString`
// "succeeds", `copy` from `/constructor` copies a function) and mutates in place. Here every
// lookup is an own property, writes define own properties (so `__proto__` is an ordinary name and
// nothing can reach Object.prototype), and the input document is never touched.

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

/** The document grew past `maxLength` characters while patching (a `copy` can double it each time). */
export class JsonPatchTooLarge extends Error {
  constructor () {
    super('The patched document is too large')
    this.name = 'JsonPatchTooLarge'
  }
}

type Container = Record<string, unknown> | unknown[]

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

const has = (container: Container, token: string): boolean => Array.isArray(container)
  ? ARRAY_INDEX.test(token) && Number(token) < container.length
  : Object.hasOwn(container, token)

const child = (container: Container, token: string): unknown =>
  Array.isArray(container) ? container[Number(token)] : container[token]

/** Structural equality as RFC 6902 4.6 defines it for `test`. */
function equal (a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => equal(v, b[i]))
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every(k => Object.hasOwn(b, k) && equal(a[k], b[k]))
  }
  return false
}

class Patcher {
  doc: unknown
  constructor (doc: unknown) { this.doc = doc }

  /** The value at `tokens`, or `missing` naming the first token that does not resolve. */
  locate (tokens: string[]): { found: true, value: unknown } | { found: false, at: string } {
    let node = this.doc
    for (let i = 0; i < tokens.length; i++) {
      if (!isContainer(node) || !has(node, tokens[i])) return { found: false, at: pointerOf(tokens.slice(0, i + 1)) }
      node = child(node, tokens[i])
    }
    return { found: true, value: node }
  }

  /** The container that holds (or will hold) the last token. */
  parent (tokens: string[], fail: (reason: string) => never): Container {
    const found = this.locate(tokens.slice(0, -1))
    if (!found.found) fail(`the path ${found.at} does not exist`)
    if (!isContainer(found.value)) fail(`the value at ${pointerOf(tokens.slice(0, -1))} is neither an object nor an array`)
    return found.value
  }

  add (tokens: string[], value: unknown, fail: (reason: string) => never): void {
    if (tokens.length === 0) { this.doc = value; return }
    const parent = this.parent(tokens, fail)
    const key = tokens[tokens.length - 1]
    if (Array.isArray(parent)) {
      if (key === '-') { parent.push(value); return }
      if (!ARRAY_INDEX.test(key)) fail(`${key} is not an array index`)
      if (Number(key) > parent.length) fail(`the index ${key} is out of bounds (array length ${parent.length})`)
      parent.splice(Number(key), 0, value)
      return
    }
    // An own data property even for `__proto__`: assignment would set the prototype instead.
    Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true })
  }

  remove (tokens: string[], fail: (reason: string) => never): unknown {
    if (tokens.length === 0) fail('the whole document cannot be removed')
    const { parent, key } = this.existing(tokens, fail)
    if (Array.isArray(parent)) return parent.splice(Number(key), 1)[0]
    const value = parent[key]
    delete parent[key]
    return value
  }

  /** Replaces an existing value where it stands (an object member keeps its place). */
  replace (tokens: string[], value: unknown, fail: (reason: string) => never): void {
    if (tokens.length === 0) { this.doc = value; return }
    const { parent, key } = this.existing(tokens, fail)
    if (Array.isArray(parent)) parent[Number(key)] = value
    else Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true })
  }

  existing (tokens: string[], fail: (reason: string) => never): { parent: Container, key: string } {
    const parent = this.parent(tokens, fail)
    const key = tokens[tokens.length - 1]
    if (!has(parent, key)) fail(`the path ${pointerOf(tokens)} does not exist`)
    return { parent, key }
  }

  get (tokens: string[], fail: (reason: string) => never, what = 'path'): unknown {
    const found = this.locate(tokens)
    if (!found.found) fail(`the ${what} ${found.at} does not exist`)
    return found.value
  }
}

function pointerOf (tokens: string[]): string {
  return tokens.map(t => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join('')
}

/**
 * Applies `patch` to a copy of `document` and returns the result. Throws JsonPatchFailure for the
 * first operation that does not apply (the input is untouched either way), and JsonPatchTooLarge
 * when the document would exceed `maxLength` characters of JSON along the way.
 */
export function applyJsonPatch (document: unknown, patch: readonly JsonPatchOperation[], maxLength: number): unknown {
  try {
    return apply(document, patch, maxLength)
  } catch (err) {
    // A value nested so deeply that the engine's stack runs out: no size limit would let it through.
    if (err instanceof RangeError) throw new JsonPatchTooLarge()
    throw err
  }
}

function apply (document: unknown, patch: readonly JsonPatchOperation[], maxLength: number): unknown {
  // Every value that enters the document is copied and counted: the count bounds the work.
  let length = 0
  const grow = (value: unknown): unknown => {
    const text = JSON.stringify(value)
    length += text.length
    if (length > maxLength) throw new JsonPatchTooLarge()
    return JSON.parse(text)
  }
  const patcher = new Patcher(grow(document))

  patch.forEach((operation, index) => {
    const fail = (reason: string): never => { throw new JsonPatchFailure(index, operation, `${operation.op} operation failed: ${reason}`) }
    const pointer = (text: string | undefined, name: string): string[] => text === undefined
      ? fail(`${name} is required`)
      : parsePointer(text) ?? fail(`${name} ${text} is not a JSON pointer`)
    // RFC 6902 4: members an operation does not define (a `from` on `add`, ...) are ignored.
    const value = (): unknown => Object.hasOwn(operation, 'value') ? operation.value : fail('value is required')
    const path = pointer(operation.path, 'path')
    switch (operation.op) {
      case 'add':
        patcher.add(path, grow(value()), fail)
        break
      case 'remove':
        patcher.remove(path, fail)
        break
      case 'replace':
        patcher.replace(path, grow(value()), fail)
        break
      case 'move': {
        const from = pointer(operation.from, 'from')
        patcher.get(from, fail, 'from')
        const within = path.length >= from.length && from.every((t, i) => t === path[i])
        if (within && path.length === from.length) break
        // RFC 6902 4.4: a location cannot be moved into one of its children.
        if (within) fail(`${operation.from} cannot be moved into its own child ${operation.path}`)
        patcher.add(path, patcher.remove(from, fail), fail)
        break
      }
      case 'copy':
        patcher.add(path, grow(patcher.get(pointer(operation.from, 'from'), fail, 'from')), fail)
        break
      case 'test':
        if (!equal(patcher.get(path, fail), value())) fail(`the value at ${operation.path} is not equal to the test value`)
        break
      default:
        fail(`${String(operation.op)} is not an operation`)
    }
  })
  return patcher.doc
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
