// TurnBatch: what is added during a turn of the event loop is handled at its end, in order, or at
// an earlier flush; a drop forgets it; one item that throws neither stops nor loses the others.
import t from 'tap'
import { TurnBatch } from '../../src/turn-batch.js'

const endOfTurn = () => new Promise(resolve => setImmediate(resolve))

t.test('items added in one turn are handled together at its end, in order, once', async t => {
  const handled: number[] = []
  const batch = new TurnBatch<number>(n => { handled.push(n) }, () => { t.fail('no error') })
  batch.add(1)
  batch.add(2)
  batch.add(3)
  t.same(handled, [], 'nothing before the end of the turn')
  await endOfTurn()
  t.same(handled, [1, 2, 3])
  await endOfTurn()
  t.same(handled, [1, 2, 3], 'each item once')
})

t.test('flush handles what is pending at once; drop forgets it', async t => {
  const handled: string[] = []
  const batch = new TurnBatch<string>(s => { handled.push(s) }, () => { t.fail('no error') })
  batch.add('a')
  batch.flush()
  t.same(handled, ['a'])
  batch.add('b')
  batch.drop()
  batch.add('c')
  await endOfTurn()
  t.same(handled, ['a', 'c'], 'a dropped item is never handled; one added after the drop is')
})

t.test('an item that throws is reported, and the items after it are still handled', async t => {
  const handled: number[] = []
  const errors: unknown[] = []
  const batch = new TurnBatch<number>(n => {
    if (n === 2) throw new Error('two fails')
    handled.push(n)
  }, error => { errors.push(error) })
  for (const n of [1, 2, 3]) batch.add(n)
  await endOfTurn()
  t.same(handled, [1, 3])
  t.equal(errors.length, 1)
  t.match(errors[0], { message: 'two fails' })
})
