// postgres.js's queue as the bundle ships it (scripts/postgres-queue.js): the fixed queue keeps the
// same order and contents as the library's own under any mix of operations, including long runs
// where it never empties (the case the fix is for), and the build refuses a source it does not fit
// (./postgres-fixes.test.ts).
import t from 'tap'
import fc from 'fast-check'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { patchPostgresQueue } from '../../scripts/postgres-queue.js'

interface Queue<T> { readonly length: number, remove: (x: T) => T | null, push: (x: T) => T, shift: () => T | undefined }
type MakeQueue = <T>(initial?: T[]) => Queue<T>

const require = createRequire(import.meta.url)
// The package's CommonJS entry is cjs/src/index.js; the ES module build the bundle takes is src/.
const sourcePath = join(dirname(require.resolve('postgres')), '..', '..', 'src', 'queue.js')
const source = readFileSync(sourcePath, 'utf8')

async function load (text: string, name: string): Promise<MakeQueue> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-queue-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const file = join(dir, `${name}.mjs`)
  writeFileSync(file, text)
  return ((await import(pathToFileURL(file).href)) as { default: MakeQueue }).default
}

type Op = { op: 'push' } | { op: 'shift' } | { op: 'remove', pick: number } | { op: 'cycle', times: number }

t.test('the fixed queue answers as the library\'s own under any operations', async t => {
  const Original = await load(source, 'original')
  const Fixed = await load(patchPostgresQueue(source), 'fixed')
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 4, arbitrary: fc.constant({ op: 'push' as const }) },
    { weight: 3, arbitrary: fc.constant({ op: 'shift' as const }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('remove' as const), pick: fc.nat(64) }) },
    // Shift and push again, the queue never empty: the busy connections under load.
    { weight: 1, arbitrary: fc.record({ op: fc.constant('cycle' as const), times: fc.integer({ min: 1, max: 3000 }) }) }
  )
  fc.assert(fc.property(fc.array(fc.nat(9), { maxLength: 4 }), fc.array(op, { maxLength: 200 }), (initial, ops) => {
    const items = initial.map(n => ({ n }))
    const a = Original(items)
    const b = Fixed(items)
    let made = items.length
    const seen: Array<{ n: number }> = [...items]
    const trace = (q: Queue<{ n: number }>, o: Op, x?: { n: number }): unknown => {
      switch (o.op) {
        case 'push': return q.push(x!).n
        case 'shift': return q.shift()?.n
        case 'remove': return q.remove(x!)?.n ?? null
        case 'cycle': {
          const out: Array<number | undefined> = []
          for (let i = 0; i < o.times; i++) {
            const y = q.shift()
            out.push(y?.n)
            if (y !== undefined) q.push(y)
          }
          return out.join()
        }
      }
    }
    for (const o of ops) {
      let x: { n: number } | undefined
      if (o.op === 'push') seen.push(x = { n: made++ })
      if (o.op === 'remove') x = seen[o.pick % Math.max(seen.length, 1)] ?? { n: -1 }
      if (trace(a, o, x) !== trace(b, o, x)) return false
      if (a.length !== b.length) return false
    }
    const drain = (q: Queue<{ n: number }>): number[] => { const out: number[] = []; while (q.length > 0) out.push(q.shift()!.n); return out }
    return JSON.stringify(drain(a)) === JSON.stringify(drain(b))
  }), { numRuns: 200 })
  t.pass('200 random runs alike')
})

t.test('a queue that never empties keeps finding what it holds', async t => {
  const Fixed = await load(patchPostgresQueue(source), 'fixed-long')
  const connections = Array.from({ length: 10 }, (_, n) => ({ n }))
  const q = Fixed(connections)
  // The pool's busy queue under load: a connection is shifted, given a query, then removed from
  // wherever it is and pushed back.
  let lost = 0
  for (let i = 0; i < 50_000; i++) {
    const c = q.shift()!
    q.push(c)
    if (q.remove(c) !== c) lost++
    q.push(c)
  }
  t.equal(lost, 0, 'each removal finds its connection')
  t.equal(q.length, 10)
  const left: number[] = []
  while (q.length > 0) left.push(q.shift()!.n)
  t.same([...left].sort((x, y) => x - y), connections.map(c => c.n), 'every connection once')
})
