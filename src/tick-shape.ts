// Keeps one of Node's tick objects alive for the life of the process, so that `process.nextTick`
// stays on V8's fast path. Imported first by the server and the app, before the bulk of the code
// loads.
//
// Why: Node 20's `nextTick` builds each tick object as
// `{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`. The computed keys make
// V8 build it from the empty object's shape, adding one property at a time, and the shapes that
// follow from the empty one are held only weakly. A full collection at a moment when no tick object
// is alive (at start-up, when the server is idle) drops them; the next tick makes new ones, and
// `nextTick`'s property caches see one more shape. After two such collections the caches give up,
// and every tick object is built in V8's runtime, about five times slower (measured with
// `--expose-gc`: 40 ns a tick before, 210 ns after two collections, 37 ns with a tick object
// kept). Node's HTTP and streams schedule about ten ticks a request: `perf` of a loaded server put
// 8 % of a metadata GET's CPU there, against none in a bare Fastify route. One object kept alive
// keeps the shapes (BENCHMARKS.md has the figures before and after).
//
// The tick object is caught with an async_hooks init hook, enabled for one `nextTick` and disabled
// at once: while no hook is enabled Node calls none.
import { createHook } from 'node:async_hooks'

let kept: object | undefined

/** Catches a tick object and keeps it (once per process); returns it. */
export function keepTickShape (): object | undefined {
  if (kept !== undefined) return kept
  const hook = createHook({
    init (_id, type, _trigger, resource) {
      if (type === 'TickObject') kept = resource
    }
  }).enable()
  try {
    process.nextTick(() => {})
  } finally {
    hook.disable()
  }
  return kept
}

keepTickShape()
