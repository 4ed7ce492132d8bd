// A value that follows the work of one request through its awaits: AsyncLocalStorage's `run` and
// `getStore`, kept on V8's promise hooks alone. The sandbox has two: which organization's clock
// `now()` reads (src/clock.ts) and which write's transaction a statement joins (src/storage/db.ts).
//
// Why not Node's AsyncLocalStorage: on Node 20, once a store is in use it installs an async_hooks
// init hook, which then runs for every async resource of the process, not just promises: each
// nextTick (Node's HTTP and streams schedule about ten per request), immediate, timer and socket
// write. Each tick object then also takes V8's slow path for its computed keys. Measured under load
// (perf): 12 % of a metadata GET's CPU was in nextTick, against 0.1 % in a bare Fastify route. With
// this module instead, old and new builds in turn: a GET 23.6 µs of CPU instead of 25.6, a PUT 40
// instead of 43, a token 55 instead of 59 (BENCHMARKS.md). Node 22's AsyncContextFrame does the
// same natively: drop this module on Node 22 or later.
//
// What it carries: a context reaches everything the work awaits or chains with `then`, as
// AsyncLocalStorage does. What it does not: callbacks of timers, immediates, ticks, events and I/O
// run outside any context (as at start-up), whichever code scheduled them. Code that must keep its
// context across one of those captures it with `bindContext`.
import { promiseHooks } from 'node:v8'

/** One context entry; a context is a chain of them, the newest first. */
interface Frame {
  readonly owner: AsyncContext<unknown>
  readonly value: unknown
  readonly parent: Frame | undefined
}

// The context of the code running now. Changed only by `run` (restored when it returns) and around
// each promise reaction (restored after it), so between two callbacks of the event loop it is
// always undefined: nothing leaks from one request into the next.
let current: Frame | undefined
// The context outside the promise reaction now running. Reactions never nest (the microtask queue
// runs one at a time, on an empty stack), so one slot is enough.
let outside: Frame | undefined
const FRAME = Symbol('asyncContext')
let hooked = false

/** Installs the promise hooks, at the first `run`: a process that never uses a context pays nothing. */
function hook (): void {
  if (hooked) return
  hooked = true
  promiseHooks.createHook({
    // A promise made inside a context keeps it: its reactions (an await's continuation, a then's
    // callback) run inside it.
    init (promise: Promise<unknown>) {
      if (current !== undefined) (promise as unknown as Record<symbol, Frame>)[FRAME] = current
    },
    before (promise: Promise<unknown>) {
      outside = current
      current = (promise as unknown as Record<symbol, Frame | undefined>)[FRAME]
    },
    after () {
      current = outside
      outside = undefined
    }
  })
}

export class AsyncContext<T> {
  /** Runs `work` with this context holding `value` (inner runs shadow it); returns what `work` returns. */
  run<R> (value: T, work: () => R): R {
    hook()
    const previous = current
    current = { owner: this, value, parent: previous }
    try {
      return work()
    } finally {
      current = previous
    }
  }

  /** The value of the innermost `run` of this context around the running code, else undefined. */
  get (): T | undefined {
    for (let frame = current; frame !== undefined; frame = frame.parent) {
      if (frame.owner === this) return frame.value as T
    }
    return undefined
  }
}

/** The context of the running code, to run work in later: `snapshot()(work)` runs `work` inside it. */
export function snapshot (): <R>(work: () => R) => R {
  const captured = current
  return work => {
    const previous = current
    current = captured
    try {
      return work()
    } finally {
      current = previous
    }
  }
}

/** `fn`, to run later (a timer's, an immediate's callback) inside the context it is bound in now. */
export function bindContext<A extends unknown[], R> (fn: (...args: A) => R): (...args: A) => R {
  const within = snapshot()
  return (...args: A): R => within(() => fn(...args))
}
