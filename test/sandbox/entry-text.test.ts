// A request log entry's text holds any field as it was, through the UTF-8 of its slot: no content,
// however it is made (colons, digits, tildes, line breaks, emoji, lone surrogates), is misread.
import assert from 'node:assert/strict'
import t from 'tap'
import fc from 'fast-check'
import { EntryReader, EntryWriter } from '../../src/sandbox/entry-text.js'

type Field =
  | { kind: 'string', value: string }
  | { kind: 'nullable', value: string | null }
  | { kind: 'number', value: number }
  | { kind: 'header', value: string | number | string[] }

const text = fc.string({ unit: 'binary', maxLength: 40 })
const field: fc.Arbitrary<Field> = fc.oneof(
  text.map(value => ({ kind: 'string' as const, value })),
  fc.option(text, { nil: null }).map(value => ({ kind: 'nullable' as const, value })),
  fc.double({ noNaN: true }).map(value => ({ kind: 'number' as const, value })),
  fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 3 })).map(value => ({ kind: 'header' as const, value }))
)

// What UTF-8 makes of a string: a lone surrogate becomes U+FFFD.
const viaUtf8 = (s: string): string => Buffer.from(s, 'utf8').toString('utf8')
const expected = (f: Field): unknown => {
  if (typeof f.value === 'string') return viaUtf8(f.value)
  if (Array.isArray(f.value)) return f.value.map(viaUtf8)
  return Object.is(f.value, -0) ? 0 : f.value
}

t.test('fields written in order read back in order, through UTF-8', async t => {
  fc.assert(fc.property(fc.array(field, { maxLength: 12 }), fields => {
    const w = new EntryWriter()
    for (const f of fields) {
      if (f.kind === 'string') w.string(f.value)
      else if (f.kind === 'nullable') w.nullable(f.value)
      else if (f.kind === 'number') w.number(f.value)
      else w.headerValue(f.value)
    }
    const r = new EntryReader(viaUtf8(w.text))
    const read = fields.map(f => f.kind === 'string' ? r.string() : f.kind === 'nullable' ? r.nullable() : f.kind === 'number' ? r.number() : r.headerValue())
    // Thrown, not asserted: fast-check then shrinks a failing list of fields to its smallest.
    assert.deepStrictEqual(read, fields.map(expected))
  }), { seed: 20261123, numRuns: 500 })
  t.pass('500 drawn lists of fields read back as written')
})

t.test('a null and an empty string stay apart; a missing field is an error, not a guess', async t => {
  const r = new EntryReader(new EntryWriter().nullable(null).nullable('').string('~').text)
  t.equal(r.nullable(), null)
  t.equal(r.nullable(), '')
  t.equal(r.string(), '~')
  const surrogate = new EntryReader(viaUtf8(new EntryWriter().string('\uD800:9').string('😀').text))
  t.equal(surrogate.string(), '\uFFFD:9', 'a lone surrogate is one code unit, before and after')
  t.equal(surrogate.string(), '😀')
  t.throws(() => new EntryReader(new EntryWriter().nullable(null).text).string(), /missing field/)
  t.throws(() => new EntryReader('x:abc').string(), /bad field/)
})
