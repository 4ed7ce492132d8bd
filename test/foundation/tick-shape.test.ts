// src/tick-shape.ts: one of Node's tick objects is kept for the life of the process, and the tick
// objects Node makes after full collections keep its V8 shape, so `nextTick`'s property caches see
// one shape (without it, each collection that finds no tick object alive made new shapes: what sent
// `nextTick` to V8's slow path; BENCHMARKS.md). The shapes are compared in a child process, which
// can collect on demand and compare shapes (`--expose-gc`, `--allow-natives-syntax`).
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { keepTickShape } from '../../src/tick-shape.js'

const MODULE = fileURLToPath(new URL('../../src/tick-shape.ts', import.meta.url))

/** In a child: whether tick objects made after idle turns and full collections have the kept one's shape. */
function keptShapeAfterCollections (): boolean[] {
  const script = `
    const { createHook } = await import('node:async_hooks')
    const { keepTickShape } = await import(${JSON.stringify(MODULE)})
    const kept = keepTickShape()
    const tickObject = () => {
      let caught
      const hook = createHook({ init (id, type, trigger, resource) { if (type === 'TickObject') caught = resource } }).enable()
      process.nextTick(() => {})
      hook.disable()
      return caught
    }
    const same = []
    for (let i = 0; i < 3; i++) {
      await new Promise(resolve => setImmediate(resolve))
      gc(); gc()
      same.push(%HaveSameMap(kept, tickObject()))
    }
    process.stdout.write(JSON.stringify(same))
  `
  const out = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', '--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' })
  if (out.status !== 0) throw new Error(out.stderr)
  return JSON.parse(out.stdout) as boolean[]
}

t.test('a tick object is caught and kept, once for the process', async t => {
  const kept = keepTickShape()
  t.type(kept, 'object')
  t.equal(Object.getOwnPropertySymbols(kept).length, 2, "Node's two async ids, the computed keys")
  t.type((kept as { callback?: unknown }).callback, 'function')
  t.equal(keepTickShape(), kept, 'the same object at the second call')
})

t.test('its hook is disabled at once: later ticks do not replace the kept object', async t => {
  const kept = keepTickShape()
  process.nextTick(() => {})
  await new Promise(resolve => setImmediate(resolve))
  t.equal(keepTickShape(), kept)
})

t.test('tick objects made after full collections have the shape of the one kept', async t => {
  t.same(keptShapeAfterCollections(), [true, true, true])
})
