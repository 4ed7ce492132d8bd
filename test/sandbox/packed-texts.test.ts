// The request log's packed pages: any text, in any slot, reads back as it was kept, and the pages a
// ring of entries takes follow what its entries hold, not how many slots it has.
import t from 'tap'
import fc from 'fast-check'
import { PackedTexts } from '../../src/sandbox/packed-texts.js'

const PAGE = 64 * 1024
const seed = Number(process.env.FUZZ_SEED ?? 20261127)
const numRuns = Number(process.env.FUZZ_RUNS ?? 200)

// Text of every kind the log keeps: ASCII, Latin-1, letters of several UTF-8 lengths, emoji, a lone
// surrogate (kept as U+FFFD, one code unit still), at sizes around the limits of a page.
const unit = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', '{', '"', ':', '0') },
  fc.constantFrom('é', 'ß', 'ж', '中', '\u{1F600}', '\uD800')
)
const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit, maxLength: 1500 }) },
  fc.integer({ min: 5000, max: 22000 }).chain(n => fc.string({ unit, minLength: n, maxLength: n }))
)
// A packed text goes through UTF-8, which holds no lone surrogate: it comes back as U+FFFD, one
// code unit still (entry-text.ts counts on the length). Equal texts, up to that.
const asUtf8 = (value: string): string => Buffer.from(value, 'utf8').toString('utf8')
const same = (read: string, kept: string): boolean => read.length === kept.length && asUtf8(read) === asUtf8(kept)

t.test('any text in any slot reads back as kept; the other slots are untouched', async t => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 40 }),
    fc.array(fc.tuple(fc.nat(), text), { maxLength: 120 }),
    (capacity, writes) => {
      const texts = new PackedTexts(capacity)
      const model = new Map<number, string>()
      for (const [at, value] of writes) {
        const slot = at % capacity
        texts.set(slot, value)
        model.set(slot, value)
        if (!same(texts.get(slot), value)) return false
      }
      for (let i = 0; i < capacity; i++) {
        if (!same(texts.get(i), model.get(i) ?? '')) return false
      }
      texts.clear()
      return Array.from({ length: capacity }, (_, i) => texts.get(i)).every(v => v === '') && texts.pages === 0
    }
  ), { seed, numRuns })
})

t.test('written in ring order, the pages stay near what the live entries hold', async t => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 300 }),
    fc.array(text, { minLength: 1, maxLength: 600 }),
    (capacity, entries) => {
      const texts = new PackedTexts(capacity)
      const bytes = new Array<number>(capacity).fill(0)
      for (const [n, value] of entries.entries()) {
        const slot = n % capacity
        texts.set(slot, value)
        const length = Buffer.byteLength(value)
        // A quarter of a page or more is kept on the heap, in no page.
        bytes[slot] = length > PAGE / 4 ? 0 : length
        const live = bytes.reduce((a, b) => a + b, 0)
        // Each full page is at least three quarters used when the next is started; one page can be
        // partly emptied, one is being filled, and two emptied ones are kept for reuse.
        if (texts.pages > Math.ceil(live / (PAGE * 3 / 4)) + 4) return false
      }
      return true
    }
  ), { seed, numRuns: Math.ceil(numRuns / 4) })
})

t.test('a thousand entries of a GET take a sixteenth of what a slot of 4 KiB each took', async t => {
  const texts = new PackedTexts(1000)
  const entry = 'x'.repeat(900)
  for (let i = 0; i < 5000; i++) texts.set(i % 1000, entry)
  t.equal(texts.get(999), entry)
  // 1000 entries of 900 bytes: 14 pages of 64 KiB in use, plus at most two spare.
  t.ok(texts.pages <= 16, `${texts.pages} pages`)
  t.ok(texts.pages >= 14, `${texts.pages} pages`)
})
