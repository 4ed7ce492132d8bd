// The order of asset codes and names (src/catalogue/collate.ts): the same as English collation
// (`localeCompare(other, 'en')`) on any text, ICU's data left unloaded for ASCII letters, digits
// and spaces.
import t from 'tap'
import fc from 'fast-check'
import { compareText } from '../../src/catalogue/collate.js'

const sign = (n: number): number => Math.sign(n)
const plain = fc.string({ unit: fc.constantFrom(...'aAbBzZ09 5mM'.split('')), maxLength: 8 })

t.test('ASCII letters, digits and spaces: the order of English collation', async t => {
  fc.assert(fc.property(plain, plain, (a, b) => sign(compareText(a, b)) === sign(a.localeCompare(b, 'en'))), { numRuns: 20_000 })
  t.same(['b', 'B', 'a', 'A', 'ab', 'aB', 'Ab', '10', '9', ' a', 'a '].sort(compareText), ['a', 'A', 'a ', ' a', '10', '9', 'ab', 'aB', 'Ab', 'b', 'B'].sort((x, y) => x.localeCompare(y, 'en')))
  t.equal(compareText('USD', 'usd'), 1, 'case apart, lowercase first')
  t.equal(compareText('Bitcoin', 'bitcoin cash'), -1)
  t.equal(compareText('XRP', 'XRP'), 0)
})

t.test('any other text: English collation itself', async t => {
  const any = fc.string({ unit: fc.constantFrom(...'aAéÉe-_.,:[]~ 0ßΩ'.split('')), maxLength: 6 })
  fc.assert(fc.property(any, any, (a, b) => sign(compareText(a, b)) === sign(a.localeCompare(b, 'en'))), { numRuns: 5_000 })
  t.equal(sign(compareText('é', 'f')), -1, 'an accented letter sorts with its letter, not by code unit')
  t.equal(sign(compareText('a-b', 'a_b')), sign('a-b'.localeCompare('a_b', 'en')))
})
