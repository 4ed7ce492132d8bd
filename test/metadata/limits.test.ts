// The metadata size limit: JSON.stringify(metadata) counted in Unicode code points, 1024 passes,
// 1025 fails, on PUT, on the result of a PATCH and (see test/users) at user creation.
import t from 'tap'
import { build } from '../helpers.js'
import { etag, metadataFixture } from './fixture.js'

const TOO_LARGE = {
  code: 'content_too_large',
  message: 'The entity metadata size is greater than maximum size limit',
  details: { threshold: { unit: 'characters', limit: '1024' } }
}

// Astral characters (one code point, two UTF-16 units) and characters JSON escapes (\n is two
// characters once serialized, \u0000 six).
const MIX = '😀🇵🇹\n"\\\u0000\u001ftab\tü€𝄞'
const size = (value: unknown): number => [...JSON.stringify(value)].length

/** Metadata whose serialization is exactly `n` code points, with MIX in it. */
function metadataOfSize (n: number): Record<string, unknown> {
  const pad = n - size({ note: MIX, id: 12345 })
  return { note: MIX + 'a'.repeat(pad), id: 12345 }
}

t.test('the helper builds what it says', async t => {
  const m = metadataOfSize(1024)
  t.equal(size(m), 1024)
  t.ok(JSON.stringify(m).length > 1024, 'more than 1024 UTF-16 units: code points are what count')
  t.equal(size(metadataOfSize(1025)), 1025)
})

t.test('PUT: 1024 code points are accepted, 1025 are refused with nothing stored', async t => {
  const f = await metadataFixture(t)
  const over = await f.send('PUT', { payload: metadataOfSize(1025) })
  t.equal(over.statusCode, 413)
  t.same(over.json(), TOO_LARGE)
  t.equal(over.headers.etag, undefined)
  t.equal(await f.stored(), undefined, 'nothing created')

  const exact = metadataOfSize(1024)
  const ok = await f.send('PUT', { payload: exact })
  t.equal(ok.statusCode, 201)
  t.same(ok.json(), { metadata: exact })
  t.equal(ok.headers.etag, etag(exact))
  t.same(await f.stored(), exact, 'stored as sent, escapes and emoji intact')

  const replaceOver = await f.send('PUT', { payload: metadataOfSize(1025) })
  t.equal(replaceOver.statusCode, 413)
  t.same(await f.stored(), exact, 'the previous revision is kept')

  const get = await f.send('GET')
  t.equal(get.statusCode, 200)
  t.same(get.json(), { metadata: exact })
  t.equal(get.headers.etag, etag(exact))
})

t.test('the size is checked before preconditions on PUT', async t => {
  const f = await metadataFixture(t)
  const res = await f.send('PUT', { headers: { 'if-match': '"nope"' }, payload: metadataOfSize(1025) })
  t.equal(res.statusCode, 413)
})

t.test('PATCH: a result of 1024 code points is accepted, one that grows past it is refused and nothing is stored', async t => {
  const f = await metadataFixture(t)
  const start = metadataOfSize(1000)
  await f.send('PUT', { payload: start })

  // {"x":"<n chars>"} adds n + 7 code points (comma, quotes, colon) to the object.
  const grow = (n: number) => [{ op: 'add', path: '/x', value: '😀'.repeat(n) }]
  const over = await f.send('PATCH', { payload: grow(1025 - 1000 - 7) })
  t.equal(over.statusCode, 413)
  t.same(over.json(), TOO_LARGE)
  t.same(await f.stored(), start, 'nothing changed')

  const exact = await f.send('PATCH', { payload: grow(1024 - 1000 - 7) })
  t.equal(exact.statusCode, 200)
  t.equal(size(exact.json().metadata), 1024)
  t.equal(exact.headers.etag, etag(exact.json().metadata))
  t.same(await f.stored(), exact.json().metadata)

  const oneMore = await f.send('PATCH', { payload: [{ op: 'add', path: '/x/-', value: 1 }, { op: 'replace', path: '/id', value: 123456 }] })
  t.equal(oneMore.statusCode, 422, 'adding to a string is not possible')
  const byOne = await f.send('PATCH', { payload: [{ op: 'replace', path: '/id', value: 123456 }] })
  t.equal(byOne.statusCode, 413, 'one more digit is one character too many')
  t.same(await f.stored(), exact.json().metadata)
})

t.test('a PATCH that copies the document into itself until it is huge is refused, never a 5xx', async t => {
  const f = await metadataFixture(t)
  await f.send('PUT', { payload: { seed: 'x'.repeat(500) } })
  const patch = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '', path: `/c${i}` }))
  const res = await f.send('PATCH', { payload: patch })
  t.equal(res.statusCode, 413)
  t.same(res.json(), TOO_LARGE)
  t.same(await f.stored(), { seed: 'x'.repeat(500) })
})

t.test('values nested deeper than the engine can serialize are 413, never a 5xx', async t => {
  const f = await metadataFixture(t)
  const deep = '{"a":' + '['.repeat(50_000) + ']'.repeat(50_000) + '}'
  const put = await f.send('PUT', { payload: deep })
  t.equal(put.statusCode, 413)
  t.same(put.json(), TOO_LARGE)
  await f.send('PUT', { payload: { a: 1 } })
  const patch = await f.send('PATCH', { payload: '[{"op":"add","path":"/b","value":' + '['.repeat(50_000) + ']'.repeat(50_000) + '}]' })
  t.equal(patch.statusCode, 413)
  t.same(await f.stored(), { a: 1 })
})

t.test('a PUT body must be a JSON object with at least one member', async t => {
  const f = await metadataFixture(t)
  for (const [payload, rule] of [['{}', 'minProperties'], ['[]', 'type'], ['[{"a":1}]', 'type'], ['"text"', 'type'], ['null', 'type'], ['42', 'type']]) {
    const res = await f.send('PUT', { payload })
    t.equal(res.statusCode, 400, payload)
    t.match(res.json(), { code: 'request_invalid', details: { context: 'body', violations: [{ property: '', rule }] } })
  }
  const deepWithNames = await f.send('PUT', { payload: '{"constructor":{"a":' + '['.repeat(50_000) + ']'.repeat(50_000) + '},"__proto__x":1}' })
  t.ok(deepWithNames.statusCode < 500 && deepWithNames.statusCode >= 400, `deep body with telltale names: ${deepWithNames.statusCode}`)
  t.equal(await f.stored(), undefined)
})

t.test('a body over the server body limit is 413 in bytes, for JSON Patch bodies too', async t => {
  const app = await build(t, { bodyLimitBytes: 4096 })
  const f = await metadataFixture(t, app)
  await f.send('PUT', { payload: { a: 1 } })
  const put = await f.send('PUT', { payload: { big: 'x'.repeat(5000) } })
  t.equal(put.statusCode, 413)
  t.same(put.json().details, { threshold: { unit: 'bytes', limit: '4096' } })
  const patch = await f.send('PATCH', { payload: [{ op: 'add', path: '/big', value: 'x'.repeat(5000) }] })
  t.equal(patch.statusCode, 413)
  t.same(patch.json().details, { threshold: { unit: 'bytes', limit: '4096' } })
  t.same(await f.stored(), { a: 1 })
})
