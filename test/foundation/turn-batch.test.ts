// TurnBatch: what is added during a turn of the event loop is handled at its end, in order, or at
// an earlier flush; a drop forgets it; one item that throws neither stops nor loses the others.
// onePerTurn: the callers of one turn share one read, made at its end; a caller once it is sent
// waits for the next one, so no caller gets an answer read before it asked.
// perTurn: the asks of one turn are answered by one call at its end, each with its own answer; a
// rejected answer fails its caller alone, an answer that throws fails its turn alone.
import t from 'tap'
import { TurnBatch, onePerTurn, perTurn } from '../../src/turn-batch.js'
import { AsyncContext } from '../../src/async-context.js'

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

t.test('the callers of one turn share one read, made at the end of the turn; the next turn reads again', async t => {
  let value = 0
  let reads = 0
  const read = onePerTurn(async () => { reads++; return value })
  value = 1
  const first = [read(), read(), read()]
  value = 2
  t.equal(reads, 0, 'nothing read before the end of the turn')
  t.same(await Promise.all(first), [2, 2, 2], 'one read for the turn, made after every caller asked')
  t.equal(reads, 1)
  value = 3
  t.same(await Promise.all([read(), read()]), [3, 3])
  t.equal(reads, 2, 'the next turn reads again')
})

t.test('a caller that asks once the read is sent waits for the next read', async t => {
  let value = 'before'
  let release: () => void = () => {}
  const read = onePerTurn(async () => {
    const seen = value
    await new Promise<void>(resolve => { release = resolve })
    return seen
  })
  const early = read()
  await endOfTurn()
  // The read is in flight: what is written now is after it was sent.
  value = 'after'
  const late = read()
  release()
  t.equal(await early, 'before')
  await endOfTurn()
  release()
  t.equal(await late, 'after', 'not the answer of the read sent before it asked')
})

t.test('a failed read fails every caller of its turn, and the next turn reads again', async t => {
  let fail = true
  const read = onePerTurn(async () => { if (fail) throw new Error('away'); return 'ok' })
  const results = await Promise.allSettled([read(), read()])
  t.same(results.map(r => r.status), ['rejected', 'rejected'])
  fail = false
  t.equal(await read(), 'ok')
})

t.test('the shared read runs outside the context of whoever made it or asked for it', async t => {
  const context = new AsyncContext<string>()
  const seen: Array<string | undefined> = []
  // Made inside a context (a store made lazily inside a write), asked inside another.
  const read = context.run('made', () => onePerTurn(async () => { seen.push(context.get()); return 1 }))
  t.equal(await context.run('asked', async () => await read()), 1)
  t.equal(await read(), 1)
  t.same(seen, [undefined, undefined], 'neither the maker\'s context nor the caller\'s')
})

t.test('perTurn: the asks of one turn are answered by one call at its end, each with its own answer', async t => {
  const calls: number[][] = []
  const double = perTurn<number, number>(asks => { calls.push(asks); return asks.map(async n => n * 2) })
  t.same(await Promise.all([double(1), double(2), double(3)]), [2, 4, 6])
  t.same(await double(5), 10)
  t.same(calls, [[1, 2, 3], [5]], 'one call a turn, the asks in order')
})

t.test('perTurn: a rejected answer fails its caller alone; an answer that throws fails the turn, not the next', async t => {
  const oddFails = perTurn<number, number>(asks => asks.map(async n => { if (n % 2 === 1) throw new Error(`odd ${n}`); return n }))
  const results = await Promise.allSettled([oddFails(1), oddFails(2), oddFails(3)])
  t.same(results.map(r => r.status), ['rejected', 'fulfilled', 'rejected'])
  t.equal((results[1] as PromiseFulfilledResult<number>).value, 2)
  let broken = true
  const sometimes = perTurn<number, number>(asks => { if (broken) throw new Error('broken'); return asks.map(async n => n) })
  const thrown = await Promise.allSettled([sometimes(1), sometimes(2)])
  t.same(thrown.map(r => r.status), ['rejected', 'rejected'])
  broken = false
  t.equal(await sometimes(7), 7, 'the next turn is answered')
})

t.test('perTurn: the answer runs outside the context of whoever asked', async t => {
  const context = new AsyncContext<string>()
  const seen: Array<string | undefined> = []
  const echo = perTurn<number, number>(asks => { seen.push(context.get()); return asks.map(async n => n) })
  t.equal(await context.run('asked', async () => await echo(1)), 1)
  t.same(seen, [undefined])
})
