// PATCH over HTTP: content types, the six operations, atomicity, 400 for patches that are not
// patches, 422 for operations that do not apply, and no path that can reach a 5xx or a prototype.
import t from 'tap'
import { etag, metadataFixture } from './fixture.js'

const PATCH_FAILED = { code: 'json_patch_failed', message: 'The entity metadata patch operation failed to apply' }

t.test('all six operations in one patch, as application/json-patch+json and as application/json', async t => {
  for (const contentType of ['application/json-patch+json', 'application/json', 'application/json-patch+json; charset=utf-8']) {
    const f = await metadataFixture(t)
    await f.send('PUT', { payload: { tier: 'silver', tags: ['a'], region: 'eu', profile: { score: 1 } } })
    const res = await f.send('PATCH', {
      contentType,
      payload: [
        { op: 'test', path: '/tier', value: 'silver' },
        { op: 'replace', path: '/tier', value: 'gold' },
        { op: 'add', path: '/tags/-', value: 'vip' },
        { op: 'remove', path: '/region' },
        { op: 'copy', from: '/profile', path: '/backup' },
        { op: 'move', from: '/profile/score', path: '/score' }
      ]
    })
    const want = { tier: 'gold', tags: ['a', 'vip'], profile: {}, backup: { score: 1 }, score: 1 }
    t.equal(res.statusCode, 200, contentType)
    t.same(res.json(), { metadata: want })
    t.equal(res.headers.etag, etag(want))
    t.same(await f.stored(), want)
  }
})

t.test('other content types are 415 with Accept-Patch, and change nothing', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: { a: 1 } })
  for (const contentType of ['application/merge-patch+json', 'text/plain', 'application/x-www-form-urlencoded']) {
    const res = await f.send('PATCH', { contentType, payload: JSON.stringify([{ op: 'remove', path: '/a' }]) })
    t.equal(res.statusCode, 415, contentType)
    t.equal(res.json().code, 'media_type_unsupported')
    t.equal(res.headers['accept-patch'], 'application/json-patch+json')
  }
  const put = await f.send('PUT', { contentType: 'text/plain', payload: JSON.stringify({ a: 2 }) })
  t.equal(put.statusCode, 415, 'PUT takes application/json only')
  t.same(await f.stored(), { a: 1 })
})

t.test('a failing operation fails the whole patch: 422 with index, op, path and reason', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: { a: 1, items: [1, 2] } })
  const cases: Array<[unknown[], { index: number, op: string, path: string }]> = [
    [[{ op: 'add', path: '/b', value: 2 }, { op: 'remove', path: '/region' }], { index: 1, op: 'remove', path: '/region' }],
    [[{ op: 'replace', path: '/items/10', value: 0 }], { index: 0, op: 'replace', path: '/items/10' }],
    [[{ op: 'add', path: '/b', value: 1 }, { op: 'test', path: '/a', value: 2 }], { index: 1, op: 'test', path: '/a' }],
    [[{ op: 'move', from: '/nothing', path: '/b' }], { index: 0, op: 'move', path: '/b' }],
    [[{ op: 'copy', from: '/items/2', path: '/b' }], { index: 0, op: 'copy', path: '/b' }],
    [[{ op: 'add', path: '/a/b', value: 1 }], { index: 0, op: 'add', path: '/a/b' }],
    [[{ op: 'move', from: '/items', path: '/items/0' }], { index: 0, op: 'move', path: '/items/0' }],
    [[{ op: 'add', path: '/items/01', value: 1 }], { index: 0, op: 'add', path: '/items/01' }]
  ]
  for (const [patch, operation] of cases) {
    const res = await f.send('PATCH', { payload: patch })
    t.equal(res.statusCode, 422, JSON.stringify(patch))
    const body = res.json()
    t.same({ code: body.code, message: body.message }, PATCH_FAILED)
    t.same(body.details.operation, operation)
    t.type(body.details.reason, 'string')
    t.match(body.details.reason, new RegExp(`^${operation.op} operation does not apply: `))
  }
  t.same(await f.stored(), { a: 1, items: [1, 2] }, 'nothing changed')
})

t.test('a result that is not metadata is 422: not an object, or no members left', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: { a: 1 } })
  for (const patch of [
    [{ op: 'replace', path: '', value: [1, 2] }],
    [{ op: 'replace', path: '', value: 'text' }],
    [{ op: 'add', path: '', value: null }],
    [{ op: 'remove', path: '/a' }],
    [{ op: 'add', path: '/b', value: 1 }, { op: 'replace', path: '', value: {} }]
  ]) {
    const res = await f.send('PATCH', { payload: patch })
    t.equal(res.statusCode, 422, JSON.stringify(patch))
    t.same(res.json().details.operation, { index: patch.length - 1, op: patch[patch.length - 1].op, path: patch[patch.length - 1].path })
    t.match(res.json().details.reason, /JSON object with at least one member/)
  }
  t.same(await f.stored(), { a: 1 })
  const whole = await f.send('PATCH', { payload: [{ op: 'replace', path: '', value: { b: 2 } }] })
  t.equal(whole.statusCode, 200, 'replacing the whole object with another object is fine')
  t.same(whole.json(), { metadata: { b: 2 } })
})

t.test('a body that is not a JSON Patch is 400 request_invalid with violations, and changes nothing', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: { a: 1 } })
  const cases: Array<[unknown, Array<{ property: string, rule: string }>]> = [
    [{ op: 'add', path: '/b', value: 1 }, [{ property: '', rule: 'type' }]],
    [[], [{ property: '', rule: 'minItems' }]],
    [[{ op: 'merge', path: '/a', value: 1 }], [{ property: '0.op', rule: 'enum' }]],
    [[{ op: 'add', value: 1 }], [{ property: '0.path', rule: 'required' }]],
    [[{ op: 'add', path: '/b' }], [{ property: '0.value', rule: 'required' }]],
    [[{ op: 'replace', path: '/a' }], [{ property: '0.value', rule: 'required' }]],
    [[{ op: 'move', path: '/b' }], [{ property: '0.from', rule: 'required' }]],
    [[{ op: 'copy', path: '/b', from: 'a' }], [{ property: '0.from', rule: 'pattern' }]],
    [[{ op: 'add', path: 'a', value: 1 }], [{ property: '0.path', rule: 'pattern' }]],
    [[{ op: 'add', path: '/a~2', value: 1 }], [{ property: '0.path', rule: 'pattern' }]],
    [[{ op: 'add', path: '/a~', value: 1 }], [{ property: '0.path', rule: 'pattern' }]],
    [[{ op: 'add', path: 5, value: 1 }], [{ property: '0.path', rule: 'type' }]],
    [['add'], [{ property: '0', rule: 'type' }]],
    [[{ op: 'remove', path: '/a' }, null], [{ property: '1', rule: 'type' }]]
  ]
  for (const [payload, violations] of cases) {
    const res = await f.send('PATCH', { payload })
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.equal(res.json().code, 'request_invalid')
    t.equal(res.json().details.context, 'body')
    t.match(res.json().details.violations, violations)
  }
  for (const raw of ['', '[{"op":"add",', 'not json']) {
    const res = await f.send('PATCH', { payload: raw === '' ? undefined : raw, headers: { 'content-type': 'application/json-patch+json' } })
    t.equal(res.statusCode, 400, `raw ${JSON.stringify(raw)}`)
    t.equal(res.json().code, 'request_invalid')
  }
  t.same(await f.stored(), { a: 1 })
})

t.test('no metadata yet: 404', async t => {
  const f = await metadataFixture(t)
  const res = await f.send('PATCH', { payload: [{ op: 'add', path: '/a', value: 1 }] })
  t.equal(res.statusCode, 404)
  t.same(res.json(), { code: 'entity_not_found', message: 'The entity metadata cannot be found', details: { entity: 'metadata' } })
  t.equal(await f.stored(), undefined)
})

t.test('no path a patch names reaches a 5xx or a prototype', async t => {
  const f = await metadataFixture(t)
  const start = { a: 1, list: [1, 2], nested: { x: 'y' }, 'm~n': 1, 'a/b': 2 }
  const segments = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'length', '-', '0', '01', '-1', '', '~0', '~1', '~01', '~2', '~', 'm~0n', 'a~1b', '%2F', '\u0000', '😀']
  const pointers = new Set<string>([''])
  for (const s of segments) {
    pointers.add(`/${s}`)
    pointers.add(`/list/${s}`)
    pointers.add(`/nested/${s}`)
    pointers.add(`/${s}/${s}`)
    pointers.add(`/constructor/prototype/${s}`)
    pointers.add(`/__proto__/${s}`)
  }
  const statuses = new Set<number>()
  let requests = 0
  for (const path of pointers) {
    for (const op of ['add', 'remove', 'replace', 'test', 'move', 'copy']) {
      const operation: Record<string, unknown> = { op, path }
      if (op === 'add' || op === 'replace' || op === 'test') operation.value = { polluted: true }
      if (op === 'move' || op === 'copy') operation.from = path === '' ? '/nested' : path
      const forward = await f.send('PATCH', { payload: [operation] })
      const backward = op === 'move' || op === 'copy'
        ? await f.send('PATCH', { payload: [{ op, from: path, path: '/z' }] })
        : forward
      for (const res of [forward, backward]) {
        requests++
        statuses.add(res.statusCode)
        if (res.statusCode >= 500) t.fail(`${op} ${path}: ${res.statusCode} ${res.body}`)
      }
      if (forward.statusCode === 200 || backward.statusCode === 200) await f.send('PUT', { payload: start })
    }
  }
  await f.send('PUT', { payload: start })
  t.ok(requests > 1000, `${requests} patches sent`)
  t.notOk(statuses.has(500), 'no 5xx')
  t.same([...statuses].filter(s => s >= 500), [])
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype is untouched')
  t.equal(Object.prototype.toString.call({}), '[object Object]')
  t.same(Object.keys(Object.prototype), [])
  t.same(await f.stored(), start)
})

t.test('a patch cannot produce what no PUT may carry: a __proto__ member', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: { a: 1 } })
  const proto = await f.send('PATCH', { payload: [{ op: 'add', path: '/__proto__', value: { polluted: true } }] })
  t.equal(proto.statusCode, 422)
  t.match(proto.json().details, { operation: { index: 0, op: 'add', path: '/__proto__' }, reason: /__proto__/ })
  const ctor = await f.send('PATCH', { payload: [{ op: 'add', path: '/constructor', value: {} }, { op: 'add', path: '/constructor/prototype', value: 1 }] })
  t.equal(ctor.statusCode, 422)
  const put = await f.send('PUT', { payload: '{"__proto__":{"polluted":true}}' })
  t.equal(put.statusCode, 400, 'PUT refuses it as the body parser does')
  const inValue = await f.send('PATCH', { payload: '[{"op":"add","path":"/b","value":{"__proto__":{"polluted":true}}}]' })
  t.equal(inValue.statusCode, 400, 'so does PATCH inside a value')
  const plainCtor = await f.send('PATCH', { payload: [{ op: 'add', path: '/constructor', value: 'fine' }, { op: 'add', path: '/prototype', value: 'fine' }] })
  t.equal(plainCtor.statusCode, 200, 'the names themselves are ordinary members')
  t.same(plainCtor.json(), { metadata: { a: 1, constructor: 'fine', prototype: 'fine' } })
  t.equal(({} as Record<string, unknown>).polluted, undefined)
})

t.test('inherited names are no members: remove /toString, replace /constructor, copy from /constructor are 422', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: { a: 1 } })
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ op: 'remove', path: '/toString' }, 'remove operation does not apply: doc is missing path: /toString: missing value'],
    [{ op: 'replace', path: '/constructor', value: 'x' }, 'replace operation does not apply: doc is missing path: /constructor: missing value'],
    [{ op: 'copy', from: '/constructor', path: '/b' }, 'copy operation does not apply: doc is missing from path: /constructor: missing value'],
    [{ op: 'move', from: '/hasOwnProperty', path: '/b' }, 'move operation does not apply: doc is missing from path: /hasOwnProperty: missing value'],
    [{ op: 'test', path: '/valueOf', value: null }, 'test operation does not apply: doc is missing path: /valueOf: missing value']
  ]
  for (const [operation, reason] of cases) {
    const res = await f.send('PATCH', { payload: [{ op: 'add', path: '/c', value: 3 }, operation] })
    t.equal(res.statusCode, 422, JSON.stringify(operation))
    t.same(res.json(), { ...PATCH_FAILED, details: { operation: { index: 1, op: operation.op, path: operation.path }, reason } })
  }
  t.same(await f.stored(), { a: 1 }, 'nothing changed, not even the operations before the failing one')
  t.equal(Object.prototype.toString.call({}), '[object Object]')
  t.equal(Object.prototype.constructor, Object)
})
