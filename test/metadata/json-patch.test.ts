// JSON Patch (fast-json-patch inside our guard) against RFC 6902 (its Appendix A examples) and
// RFC 6901, plus what the RFCs leave to implementations: own properties only, no shared values,
// the input untouched, no path that reaches a prototype.
import t from 'tap'
import { JsonPatchFailure, JsonPatchTooLarge, applyJsonPatch, hasForbiddenMember, parsePointer, type JsonPatchOperation } from '../../src/metadata/json-patch.js'

const LIMIT = 1_000_000
const apply = (doc: unknown, patch: unknown[]): unknown => applyJsonPatch(doc, patch as JsonPatchOperation[], LIMIT)
const failure = (doc: unknown, patch: unknown[]): JsonPatchFailure => {
  try {
    apply(doc, patch)
  } catch (err) {
    if (err instanceof JsonPatchFailure) return err
    throw err
  }
  throw new Error('the patch applied')
}

t.test('RFC 6902 Appendix A examples', async t => {
  const cases: Array<[string, unknown, unknown[], unknown]> = [
    ['A.1 add an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
    ['A.2 add an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['A.3 remove an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['A.4 remove an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['A.5 replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    ['A.6 move a value', { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } }],
    ['A.7 move an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
    ['A.8 test a value: success', { baz: 'qux', foo: ['a', 2, 'c'] }, [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }],
      { baz: 'qux', foo: ['a', 2, 'c'] }],
    ['A.10 add a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
    ['A.11 ignore unrecognized elements', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
    ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
    ['A.16 add an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }]
  ]
  for (const [name, doc, patch, result] of cases) t.same(apply(doc, patch), result, name)

  t.match(failure({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]), { index: 0, op: 'test', path: '/baz' }, 'A.9 test a value: error')
  t.match(failure({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]), { index: 0, op: 'add' }, 'A.12 add to a nonexistent target')
  t.match(failure({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]), { index: 0 }, 'A.15 comparing strings and numbers')
})

t.test('all six operations, also on the document root', async t => {
  t.same(apply({ a: { b: [1, 2] } }, [{ op: 'copy', from: '/a/b', path: '/c' }]), { a: { b: [1, 2] }, c: [1, 2] })
  t.same(apply({ a: 1 }, [{ op: 'replace', path: '', value: { z: 0 } }]), { z: 0 })
  t.same(apply({ a: 1 }, [{ op: 'add', path: '', value: { y: 1 } }]), { y: 1 })
  t.same(apply({ a: { x: 1 } }, [{ op: 'move', from: '/a', path: '' }]), { x: 1 })
  t.same(apply({ a: 1 }, [{ op: 'test', path: '', value: { a: 1 } }]), { a: 1 })
  t.same(apply({ a: 1 }, [{ op: 'move', from: '/a', path: '/a' }]), { a: 1 }, 'a move onto itself changes nothing')
  t.match(failure({ a: 1 }, [{ op: 'remove', path: '' }]), { message: /whole document/ })
})

t.test('test compares structurally: member order does not matter, array order does, 1 equals 1.0', async t => {
  t.same(apply({ o: { a: 1, b: [1, 2] } }, [{ op: 'test', path: '/o', value: { b: [1, 2], a: 1.0 } }]), { o: { a: 1, b: [1, 2] } })
  failure({ o: [1, 2] }, [{ op: 'test', path: '/o', value: [2, 1] }])
  failure({ o: { a: 1 } }, [{ op: 'test', path: '/o', value: { a: 1, b: null } }])
  failure({ o: null }, [{ op: 'test', path: '/o', value: {} }])
  failure({ o: 0 }, [{ op: 'test', path: '/o', value: false }])
})

t.test('array indexes follow RFC 6901: no leading zeros, no signs, "-" only to append', async t => {
  for (const path of ['/a/01', '/a/-1', '/a/+1', '/a/1e0', '/a/ 1', '/a/x']) {
    t.match(failure({ a: [1, 2] }, [{ op: 'replace', path, value: 0 }]), { index: 0, path }, path)
  }
  t.match(failure({ a: [1, 2] }, [{ op: 'add', path: '/a/3', value: 0 }]), { message: /out of bounds/ }, 'add past the end')
  t.same(apply({ a: [1, 2] }, [{ op: 'add', path: '/a/2', value: 3 }]), { a: [1, 2, 3] }, 'add at the end')
  failure({ a: [1, 2] }, [{ op: 'remove', path: '/a/-' }])
  failure({ a: [1, 2] }, [{ op: 'replace', path: '/a/2', value: 0 }])
  failure({ a: [1] }, [{ op: 'add', path: '/a/-/x', value: 0 }])
})

t.test('lookups see own members only: inherited names do not exist', async t => {
  for (const name of ['toString', 'constructor', 'hasOwnProperty', '__proto__', 'valueOf']) {
    failure({ a: 1 }, [{ op: 'remove', path: `/${name}` }])
    failure({ a: 1 }, [{ op: 'replace', path: `/${name}`, value: 1 }])
    failure({ a: 1 }, [{ op: 'test', path: `/${name}`, value: null }])
    failure({ a: 1 }, [{ op: 'copy', from: `/${name}`, path: '/b' }])
    failure({ a: 1 }, [{ op: 'add', path: `/${name}/x`, value: 1 }])
  }
  failure({ a: 'text' }, [{ op: 'add', path: '/a/length', value: 1 }])
  failure({ a: [1] }, [{ op: 'test', path: '/a/length', value: 1 }])
})

t.test('paths naming __proto__ or constructor/prototype fail; the names alone are ordinary; Object.prototype is untouched', async t => {
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype)
  // fast-json-patch cannot hold an own __proto__ member (assigning one sets the prototype), and a
  // PUT could not store one either, so such paths are refused rather than stored.
  const refused: unknown[][] = [
    [{ op: 'add', path: '/__proto__', value: { polluted: true } }],
    [{ op: 'add', path: '/__proto__/polluted', value: true }],
    [{ op: 'replace', path: '/__proto__', value: { polluted: true } }],
    [{ op: 'copy', from: '/o', path: '/__proto__' }],
    [{ op: 'move', from: '/o', path: '/__proto__' }],
    [{ op: 'add', path: '/list/0/__proto__', value: { polluted: true } }],
    [{ op: 'add', path: '/constructor', value: {} }, { op: 'add', path: '/constructor/prototype', value: { polluted: true } }],
    [{ op: 'add', path: '/constructor', value: { prototype: {} } }, { op: 'add', path: '/constructor/prototype/polluted', value: true }]
  ]
  for (const patch of refused) {
    const last = patch[patch.length - 1] as { op: string, path: string }
    t.match(failure({ o: { polluted: true }, list: [{}] }, patch), { index: patch.length - 1, op: last.op, path: last.path, message: /names __proto__ or constructor\/prototype/ }, JSON.stringify(patch))
  }
  for (const path of ['/__proto__', '/__proto__/polluted', '/constructor/prototype', '/prototype']) {
    failure({ a: 1 }, [{ op: 'copy', from: path, path: '/b' }])
    failure({ a: 1 }, [{ op: 'move', from: path, path: '/b' }])
  }

  const result = apply({ a: 1 }, [
    { op: 'add', path: '/constructor', value: { x: 1 } },
    { op: 'add', path: '/prototype', value: { polluted: true } },
    { op: 'add', path: '/constructor/y', value: 2 },
    { op: 'copy', from: '/prototype', path: '/toString' },
    { op: 'replace', path: '/constructor/x', value: 0 },
    { op: 'test', path: '/toString', value: { polluted: true } }
  ]) as Record<string, unknown>
  t.equal(JSON.stringify(result), '{"a":1,"constructor":{"x":0,"y":2},"prototype":{"polluted":true},"toString":{"polluted":true}}', 'once added, the names are own members like any other')
  t.equal(Object.getPrototypeOf(result), Object.prototype, 'the result keeps its prototype')
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype is untouched')
  t.equal(({} as Record<string, unknown>).y, undefined)
  t.same(Object.getOwnPropertyNames(Object.prototype), prototypeBefore)
  t.equal(typeof Object.prototype.toString, 'function')
  t.equal(Object.prototype.constructor, Object)
  t.ok(hasForbiddenMember(JSON.parse('{"a":1,"__proto__":{"polluted":true}}')), 'such a result is flagged')
  t.notOk(hasForbiddenMember({ constructor: 1, prototype: 2, nested: [{ a: { constructor: { b: 1 } } }] }), 'the names alone are allowed')
  t.ok(hasForbiddenMember({ nested: [{ constructor: { prototype: {} } }] }))
})

t.test('inherited names fail as the operation that names them, with the reason in words', async t => {
  t.match(failure({ a: 1 }, [{ op: 'remove', path: '/toString' }]), { index: 0, op: 'remove', path: '/toString', message: 'remove operation does not apply: doc is missing path: /toString: missing value' })
  t.match(failure({ a: 1 }, [{ op: 'replace', path: '/constructor', value: 1 }]), { index: 0, op: 'replace', path: '/constructor', message: 'replace operation does not apply: doc is missing path: /constructor: missing value' })
  t.match(failure({ a: 1 }, [{ op: 'copy', from: '/constructor', path: '/b' }]), { index: 0, op: 'copy', path: '/b', message: 'copy operation does not apply: doc is missing from path: /constructor: missing value' })
  t.match(failure({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]), { message: 'test operation does not apply: the value at /a is not equal to the test value' })
  // A limit of fast-json-patch's equality (it calls value.hasOwnProperty): such a test fails, as a 422.
  t.match(failure({ o: { hasOwnProperty: 1 } }, [{ op: 'test', path: '/o', value: { hasOwnProperty: 1 } }]), { index: 0, op: 'test', path: '/o', message: 'test operation does not apply: the operation cannot be applied to this document' })
})

t.test('move removes, then adds where the target is in the document without the moved value', async t => {
  t.match(failure({ x: [1, 2] }, [{ op: 'move', from: '/x/0', path: '/x/2' }]), { op: 'move', message: /out of bounds \(array length 1\)/ })
  t.match(failure({ x: [{}, {}, 7] }, [{ op: 'move', from: '/x/0', path: '/x/1/y' }]), { op: 'move', message: /neither an object nor an array/ })
  t.same(apply({ x: [1, 2, 3] }, [{ op: 'move', from: '/x/0', path: '/x/2' }]), { x: [2, 3, 1] })
  t.same(apply({ a: 1, b: { c: 2 } }, [{ op: 'move', from: '/a', path: '/b' }]), { b: 1 }, 'a move over an existing member replaces it')
})

t.test('a location cannot be moved into its own child', async t => {
  t.match(failure({ a: { b: {} } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]), { op: 'move', message: /own child/ })
  t.same(apply({ a: { b: 1 }, ab: 2 }, [{ op: 'move', from: '/a', path: '/ab' }]), { ab: { b: 1 } }, 'a sibling sharing a prefix is fine')
})

t.test('the input and the operations are never modified; copies are not shared', async t => {
  const doc = { a: { b: 1 }, list: [1] }
  const patch = [
    { op: 'add', path: '/c', value: { d: 1 } },
    { op: 'add', path: '/c/e', value: 2 },
    { op: 'copy', from: '/a', path: '/f' },
    { op: 'replace', path: '/f/b', value: 9 },
    { op: 'add', path: '/list/-', value: 2 }
  ]
  const before = JSON.stringify({ doc, patch })
  t.same(apply(doc, patch), { a: { b: 1 }, list: [1, 2], c: { d: 1, e: 2 }, f: { b: 9 } })
  t.equal(JSON.stringify({ doc, patch }), before)
})

t.test('a failing operation reports its index, op and path, and leaves the input as it was', async t => {
  const doc = { a: 1 }
  const err = failure(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'remove', path: '/a' }, { op: 'remove', path: '/zzz' }])
  t.match(err, { index: 2, op: 'remove', path: '/zzz', message: 'remove operation does not apply: doc is missing path: /zzz: missing value' })
  t.same(doc, { a: 1 })
})

t.test('replace keeps an object member in its place', async t => {
  t.equal(JSON.stringify(apply({ a: 1, b: 2, c: 3 }, [{ op: 'replace', path: '/b', value: 0 }])), '{"a":1,"b":0,"c":3}')
})

t.test('growth is bounded: doubling copies and values nested past the engine stack stop with JsonPatchTooLarge', async t => {
  const doubling = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '', path: `/x${i}` }))
  t.throws(() => applyJsonPatch({ a: 'x'.repeat(100) }, doubling as JsonPatchOperation[], 100_000), JsonPatchTooLarge)
  let deep: unknown = 1
  for (let i = 0; i < 200_000; i++) deep = [deep]
  t.throws(() => applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/b', value: deep }] as JsonPatchOperation[], 10_000_000), JsonPatchTooLarge)
  t.throws(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: deep }] as JsonPatchOperation[], 10_000_000), JsonPatchFailure, 'a test against a deep value just fails')
})

t.test('JSON pointers per RFC 6901', async t => {
  t.same(parsePointer(''), [])
  t.same(parsePointer('/'), [''])
  t.same(parsePointer('/a~1b/m~0n/~01'), ['a/b', 'm~n', '~1'])
  t.equal(parsePointer('a'), undefined)
  t.equal(parsePointer('/a~2'), undefined)
  t.equal(parsePointer('/a~'), undefined)
  t.match(failure({ a: 1 }, [{ op: 'add', path: '/a~', value: 1 }]), { message: /not a JSON pointer/ })
  t.match(failure({ a: 1 }, [{ op: 'move', path: '/b' }]), { message: /from is required/ })
  t.match(failure({ a: 1 }, [{ op: 'add', path: '/b' }]), { message: /value is required/ })
  t.same(apply({ a: 1 }, [{ op: 'remove', path: '/a', from: 'not a pointer', value: 1 }, { op: 'add', path: '/b', value: null }]), { b: null }, 'members an operation does not define are ignored')
})
