// Retention: a long-running demo environment must not grow without bound. An area prunes what is
// older than its retention (`prune`, in batches, the event loop turning between them) at start and
// then periodically; this runs it, one run at a time, and logs what went. Replicas (PostgreSQL) each
// run it: every batch is a write, and writes are serialised by the global write lock, so each row
// is deleted once, by whichever replica's batch comes first; the others' find what is left.
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'

// Rows handled per statement: each batch is one short transaction, and the event loop turns
// between batches, so a large backlog never holds up requests for long.
export const BATCH = 500
const HOUR_MS = 3_600_000

/** Runs `batch` until it handles fewer than BATCH rows, a turn of the event loop between; the total. */
export async function drain (batch: () => Promise<number>): Promise<number> {
  let total = 0
  for (;;) {
    const n = await batch()
    total += n
    if (n < BATCH) return total
    await nextTurn()
  }
}

/**
 * Walks every row of a table in key order, BATCH at a time with a turn of the event loop between,
 * and deletes those `expired` picks (each asked on its organization's own clock, which SQL does
 * not know): for a retention whose age needs no index of its own. How many went.
 */
export async function pruneWalking<Row extends { key: string }> (
  page: (after: string, limit: number) => Promise<Row[]>,
  expired: (row: Row) => boolean,
  remove: (keys: string[]) => Promise<number>
): Promise<number> {
  let after = ''
  let removed = 0
  await drain(async () => {
    const batch = await page(after, BATCH)
    if (batch.length > 0) after = batch[batch.length - 1].key
    removed += await remove(batch.filter(expired).map(row => row.key))
    return batch.length
  })
  return removed
}

export abstract class Retention<Pruned extends Record<string, number>> {
  readonly #retentionSeconds: number
  readonly #log: FastifyBaseLogger
  readonly #what: string
  #timer: NodeJS.Timeout | undefined
  #running: Promise<unknown> | null = null

  /** `what` names the rows in the log: `pruned ${what}`, `${what}: retention failed`. */
  constructor (retentionSeconds: number, log: FastifyBaseLogger, what: string) {
    this.#retentionSeconds = retentionSeconds
    this.#log = log
    this.#what = what
  }

  /** Age in seconds beyond which rows go; 0 keeps everything. */
  get retentionSeconds (): number { return this.#retentionSeconds }

  /** Real time between runs: hourly, or a quarter of the retention when that is shorter (at least 10 s). */
  get intervalMs (): number {
    return Math.max(10_000, Math.min(HOUR_MS, this.#retentionSeconds * 250))
  }

  /** Deletes what is older than the retention, by the sandbox clock now; how many of each went. */
  abstract prune (): Promise<Pruned>

  /** Prunes now, then every `intervalMs` (a timer that keeps no process alive). */
  start (): void {
    if (this.#retentionSeconds === 0 || this.#timer !== undefined) return
    this.#run()
    this.#timer = setInterval(() => { this.#run() }, this.intervalMs).unref()
  }

  async stop (): Promise<void> {
    clearInterval(this.#timer)
    this.#timer = undefined
    await this.#running
  }

  #run (): void {
    if (this.#running !== null) return
    this.#running = this.prune()
      .then((pruned: Record<string, number>) => {
        if (Object.values(pruned).some(n => n > 0)) this.#log.info(pruned, `pruned ${this.#what}`)
      }, (err: unknown) => { this.#log.error({ err }, `${this.#what}: retention failed`) })
      .finally(() => { this.#running = null })
  }
}
