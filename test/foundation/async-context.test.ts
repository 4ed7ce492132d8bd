// AsyncContext: a value follows its work through awaits and then-chains, concurrent works keep
// their own, an inner run shadows an outer one, nothing leaks into the next callback of the event
// loop, and callbacks of timers and immediates run outside any context unless bound.
import assert from 'node:assert/strict'
import t from 'tap'
import fc from 'fast-check'
import { AsyncContext, bindContext } from '../../src/async-context.js'

const endOfTurn = (): Promise<void> => new Promise(resolve => { setImmediate(resolve) })
const later = (ms: number): Promise<void> => new Promise(resolve => { setTimeout(resolve, ms) })

t.test('run holds the value for the work, inner runs shadow it, and it is gone after', async t => {
  const org = new AsyncContext<string | null>()
  const other = new AsyncContext<number>()
  t.equal(org.get(), undefined, 'outside any run')
  const answer = org.run('a', () => {
    t.equal(org.get(), 'a')
    t.equal(other.get(), undefined, 'another context is not set by this one')
    other.run(7, () => {
      t.equal(org.get(), 'a', 'an outer value of another context stays')
      t.equal(other.get(), 7)
      org.run(null, () => { t.equal(org.get(), null, 'null is a value: an inner run shadows') })
      t.equal(org.get(), 'a', 'the outer value is back after the inner run')
    })
    return 42
  })
  t.equal(answer, 42, 'run returns what the work returns')
  t.equal(org.get(), undefined, 'gone after the run')
  t.throws(() => org.run('b', () => { throw new Error('boom') }), /boom/)
  t.equal(org.get(), undefined, 'gone after a run that threw')
})

t.test('the value follows awaits and then-chains, through promises settled outside it', async t => {
  const org = new AsyncContext<string>()
  // Settled by a timer scheduled outside any context.
  let release!: () => void
  const gate = new Promise<void>(resolve => { release = resolve })
  setTimeout(() => { release() }, 5)
  const seen = await org.run('a', async () => {
    const steps: Array<string | undefined> = [org.get()]
    await gate
    steps.push(org.get())
    await later(1)
    steps.push(org.get())
    steps.push(await Promise.resolve().then(() => org.get()))
    const [x, y] = await Promise.all([later(1).then(() => org.get()), (async () => { await endOfTurn(); return org.get() })()])
    steps.push(x, y)
    try {
      await Promise.reject(new Error('refused'))
    } catch {
      steps.push(org.get())
    }
    return steps
  })
  t.same(seen, ['a', 'a', 'a', 'a', 'a', 'a', 'a'], 'the same value at every step')
  t.equal(org.get(), undefined, 'not after the work, in its caller')
})

t.test('concurrent works keep their own values whatever the order their awaits resume in', async t => {
  const org = new AsyncContext<number>()
  await fc.assert(fc.asyncProperty(fc.array(fc.array(fc.nat(3), { maxLength: 5 }), { minLength: 1, maxLength: 6 }), async delays => {
    const results = await Promise.all(delays.map((steps, i) => org.run(i, async () => {
      const seen: Array<number | undefined> = []
      for (const ms of steps) {
        if (ms === 0) await endOfTurn()
        else await later(ms)
        seen.push(org.get())
      }
      return seen
    })))
    // Thrown, not asserted: fast-check then shrinks a failing set of works, and the file makes the
    // same number of assertions whatever sets were drawn.
    results.forEach((seen, i) => { assert.deepStrictEqual(seen, delays[i].map(() => i), `work ${i} saw another's value`) })
    assert.equal(org.get(), undefined, 'a value outside the works')
  }), { numRuns: 40 })
  t.pass('40 drawn sets of concurrent works each saw only its own value')
})

t.test('nothing leaks into the next callbacks of the event loop', async t => {
  const org = new AsyncContext<string>()
  const work = org.run('a', async () => { await endOfTurn(); await endOfTurn(); return org.get() })
  const outside: Array<string | undefined> = []
  for (let i = 0; i < 4; i++) {
    await new Promise<void>(resolve => { setImmediate(() => { outside.push(org.get()); resolve() }) })
  }
  t.same(outside, [undefined, undefined, undefined, undefined], 'an immediate scheduled outside sees no value while the work is between awaits')
  t.equal(await work, 'a')
})

t.test('callbacks of timers, immediates and ticks run outside the context; bindContext carries it', async t => {
  const org = new AsyncContext<string>()
  const seen = await org.run('a', async () => {
    const plain = await new Promise<Array<string | undefined>>(resolve => {
      const out: Array<string | undefined> = []
      process.nextTick(() => { out.push(org.get()) })
      setImmediate(() => { out.push(org.get()) })
      setTimeout(() => { out.push(org.get()); resolve(out) }, 2)
    })
    const bound = await new Promise<string | undefined>(resolve => { setTimeout(bindContext(() => { resolve(org.get()) }), 1) })
    return { plain, bound }
  })
  t.same(seen.plain, [undefined, undefined, undefined], 'a tick, an immediate and a timer scheduled inside see no value')
  t.equal(seen.bound, 'a', 'a bound callback sees the value it was bound with')
  const unbound = bindContext(() => org.get())
  t.equal(org.run('b', unbound), undefined, 'a callback bound outside runs outside, even when called inside')
})
