// Parsing and evaluating If-Match / If-None-Match (RFC 9110 sections 8.8.3 and 13.1).
import t from 'tap'
import { evaluatePreconditions, parseTagCondition } from '../../src/metadata/conditional.js'

const A = '"aaaa"'
const B = '"bbbb"'

t.test('parsing entity-tag lists', async t => {
  t.equal(parseTagCondition('*'), '*')
  t.equal(parseTagCondition('  * '), '*')
  t.same(parseTagCondition(A), [{ weak: false, opaque: A }])
  t.same(parseTagCondition(`W/${A}, ${B}`), [{ weak: true, opaque: A }, { weak: false, opaque: B }])
  t.same(parseTagCondition('"a,b", W/""'), [{ weak: false, opaque: '"a,b"' }, { weak: true, opaque: '""' }], 'commas inside a tag and empty tags')
  t.same(parseTagCondition(`,${A},,`), [{ weak: false, opaque: A }], 'empty list elements')
  t.same(parseTagCondition(''), [], 'an empty list')
  for (const bad of ['abc', '"a" "b"', '*, "a"', 'W/a', 'w/"a"', '"a', '"a b"', '**']) t.equal(parseTagCondition(bad), undefined, bad)
})

t.test('evaluation order and comparisons', async t => {
  const ev = (ifMatch: string | undefined, ifNoneMatch: string | undefined, current: string | undefined, safe = false): string =>
    evaluatePreconditions({
      ...(ifMatch === undefined ? {} : { ifMatch: parseTagCondition(ifMatch) }),
      ...(ifNoneMatch === undefined ? {} : { ifNoneMatch: parseTagCondition(ifNoneMatch) })
    }, current, safe)

  t.equal(ev(undefined, undefined, undefined), 'proceed')
  t.equal(ev(A, undefined, A), 'proceed')
  t.equal(ev(`W/${A}`, undefined, A), 'if-match-failed', 'If-Match compares strongly')
  t.equal(ev('*', undefined, undefined), 'if-match-failed', '* needs a current representation')
  t.equal(ev('*', undefined, A), 'proceed')
  t.equal(ev(`${B}, ${A}`, undefined, A), 'proceed')
  t.equal(ev(A, undefined, `W/${A}`), 'if-match-failed', 'a weak current tag never passes If-Match')

  t.equal(ev(undefined, `W/${A}`, A, true), 'not-modified', 'If-None-Match compares weakly')
  t.equal(ev(undefined, A, `W/${A}`, true), 'not-modified')
  t.equal(ev(undefined, A, A, false), 'if-none-match-failed')
  t.equal(ev(undefined, '*', undefined, false), 'proceed', '* with nothing current')
  t.equal(ev(undefined, '*', A, false), 'if-none-match-failed')
  t.equal(ev(undefined, B, A, true), 'proceed')
  t.equal(ev(B, A, A, true), 'if-match-failed', 'If-Match first')
  t.equal(ev(A, A, A, true), 'not-modified', 'then If-None-Match')
})
