// Retention: a long-running demo environment must not grow without bound. An area prunes what is
// older than its retention (`prune`, in batches, the event loop turning between them) at start and
// then periodically; this runs it, one run at a time, and logs what went. Replicas (PostgreSQL) each
// run it: every batch is a write, and writes are serialised by the global write lock, so each row
// is deleted once, by whichever replica's batch comes first; the others' find what is left.
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Clock } from '../clock.js'

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

/** What a row that expires on its organization's clock tells the retention that walks it. */
export interface Expiring {
  key: string
  organizationId: string
  expiresAt: number
}

export interface ExpiryRetentionOptions {
  /** The count's name, in what `prune` answers and in the log line. */
  name: string
  /** The rows, in the log line: `pruned ${what}`. */
  what: string
  retentionSeconds: number
  log: FastifyBaseLogger
  clock: Clock
  /** Up to `limit` rows after the key `after`, in key order. */
  page: (after: string, limit: number) => Promise<Expiring[]>
  /** Deletes the rows of these keys; how many went. */
  remove: (keys: string[]) => Promise<number>
}

/**
 * The retention of rows that expire on their organization's own clock (refresh tokens, quotes): it
 * walks every row in key order, BATCH at a time with a turn of the event loop between, and deletes
 * those expired longer than the retention ago, each asked on its organization's clock, which SQL
 * does not know. So the age needs no index of its own, on a table written on a request's path.
 */
export class ExpiryRetention extends Retention<Record<string, number>> {
  readonly #o: ExpiryRetentionOptions

  constructor (options: ExpiryRetentionOptions) {
    super(options.retentionSeconds, options.log, options.what)
    this.#o = options
  }

  async prune (): Promise<Record<string, number>> {
    const { name, clock, page, remove } = this.#o
    const retentionMs = this.retentionSeconds * 1000
    let removed = 0
    if (retentionMs > 0) {
      let after = ''
      await drain(async () => {
        const batch = await page(after, BATCH)
        if (batch.length > 0) after = batch[batch.length - 1].key
        removed += await remove(batch.filter(row => row.expiresAt + retentionMs < clock.nowFor(row.organizationId)).map(row => row.key))
        return batch.length
      })
    }
    return { [name]: removed }
  }
}

/** Runs a retention from the app's start (at start, then periodically) until it closes. */
export function followRetention (app: FastifyInstance, retention: Retention<Record<string, number>>): void {
  app.addHook('onReady', async () => { retention.start() })
  app.addHook('onClose', async () => { await retention.stop() })
}
