// Work on what happened during one turn of the event loop, done together at the end of the turn
// (setImmediate). Under load a turn answers a request on every busy connection; the request log
// and the request line each record theirs here and write them one after another, with the writing
// code and its data still in the processor's caches. Written between requests instead, each
// request-log entry cost twice as much (timed in the server under load: 11 µs against 5.5).
// Items live for less than a turn, too short for the garbage collector to promote them.

export class TurnBatch<T> {
  readonly #each: (item: T) => void
  readonly #onError: (error: unknown) => void
  #items: T[] = []

  /** `each` is done for every item, in order; `onError` hears of an item whose `each` threw (the others go on). */
  constructor (each: (item: T) => void, onError: (error: unknown) => void) {
    this.#each = each
    this.#onError = onError
  }

  /** Adds an item; it is handled at the end of this turn, or at the next `flush`, whichever comes first. */
  add (item: T): void {
    if (this.#items.length === 0) setImmediate(this.flush)
    this.#items.push(item)
  }

  /** Handles every item added so far, now. */
  readonly flush = (): void => {
    if (this.#items.length === 0) return
    const items = this.#items
    this.#items = []
    for (const item of items) {
      try {
        this.#each(item)
      } catch (error) {
        this.#onError(error)
      }
    }
  }

  /** Forgets the items not handled yet. */
  drop (): void {
    this.#items = []
  }
}

/**
 * One read shared by everyone who asks during a turn of the event loop: the first call of a turn
 * schedules `read` for the end of the turn (setImmediate) and every call until then waits for that
 * same answer; a call once it is sent waits for the next turn's. Sent after each caller of its turn
 * asked, the read sees every write acknowledged before any of them asked, as a read of its own
 * would (PostgreSQL: one statement a turn instead of one a request). `read` runs in the immediate's
 * callback, outside any context (src/async-context.ts): never on a caller's transaction.
 */
export function onePerTurn<T> (read: () => Promise<T>): () => Promise<T> {
  let next: Promise<T> | undefined
  const send = (resolve: (value: T) => void, reject: (error: unknown) => void): void => {
    next = undefined
    read().then(resolve, reject)
  }
  return async () => await (next ??= new Promise<T>((resolve, reject) => { setImmediate(send, resolve, reject) }))
}

/**
 * Asks gathered during a turn of the event loop, answered together: the first ask of a turn
 * schedules `answer` for the end of the turn (setImmediate), which gets every ask of the turn, in
 * order, and gives back one answer for each, at its index; each caller waits for its own (a
 * rejected one fails its callers alone). Sent after each caller of its turn asked, the answers see
 * every write acknowledged before any of them asked. `answer` runs in the immediate's callback,
 * outside any context (src/async-context.ts): never on a caller's transaction.
 */
export function perTurn<A, R> (answer: (asks: A[]) => Array<Promise<R>>): (ask: A) => Promise<R> {
  let asks: A[] = []
  let answers: Promise<Array<Promise<R>>> | undefined
  const send = (resolve: (value: Array<Promise<R>>) => void, reject: (error: unknown) => void): void => {
    const turn = asks
    asks = []
    answers = undefined
    try {
      resolve(answer(turn))
    } catch (error) {
      reject(error)
    }
  }
  return async ask => {
    answers ??= new Promise((resolve, reject) => { setImmediate(send, resolve, reject) })
    const index = asks.push(ask) - 1
    return await (await answers)[index]
  }
}

const beforeBlocking: Array<() => void> = []

/**
 * Registers a flush that must not wait behind a step that holds the event loop (SQLite's COMMIT,
 * which waits for the disk): answers already made in the turn go out before it, not after it.
 */
export function flushBeforeBlocking (flush: () => void): void { beforeBlocking.push(flush) }

/** Called right before a step that holds the event loop: runs every flush registered above. */
export function aboutToBlock (): void {
  for (const flush of beforeBlocking) flush()
}
