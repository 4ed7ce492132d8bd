// Retention: a long-running demo environment must not grow without bound. Messages settled
// (delivered, or failed with no retry left) longer than WEBHOOK_RETENTION_SECONDS ago go with their
// attempts, and so do management links expired longer ago than that; pending messages, retries
// included, are kept whatever their age. Runs at start and then periodically, by the sandbox clock.
// Replicas (PostgreSQL) each run it: every batch is a write, and writes are serialised by the global
// write lock, so each row is deleted once, by whichever replica's batch comes first; the others'
// batches find what is left, or nothing.
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { WebhooksStore } from './store.js'

export interface RetentionOptions {
  store: WebhooksStore
  clock: Clock
  log: FastifyBaseLogger
  /** Age in seconds beyond which settled messages and expired links go; 0 keeps everything. */
  retentionSeconds: number
}

export interface Pruned { messages: number, managementLinks: number }

// Rows deleted per statement: each batch is one short transaction, and the event loop turns
// between batches, so a large backlog never holds up requests for long.
const BATCH = 500
const HOUR_MS = 3_600_000

export class Retention {
  readonly #o: RetentionOptions
  #timer: NodeJS.Timeout | undefined
  #running: Promise<unknown> | null = null

  constructor (options: RetentionOptions) {
    this.#o = options
  }

  /** Real time between runs: hourly, or a quarter of the retention when that is shorter (at least 10 s). */
  get intervalMs (): number {
    return Math.max(10_000, Math.min(HOUR_MS, this.#o.retentionSeconds * 250))
  }

  /** Prunes now, then every `intervalMs` (a timer that keeps no process alive). */
  start (): void {
    if (this.#o.retentionSeconds === 0 || this.#timer !== undefined) return
    this.#run()
    this.#timer = setInterval(() => { this.#run() }, this.intervalMs).unref()
  }

  async stop (): Promise<void> {
    clearInterval(this.#timer)
    this.#timer = undefined
    await this.#running
  }

  /** Deletes what is older than the retention, by the sandbox clock now; what went. */
  async prune (): Promise<Pruned> {
    const { store, clock, retentionSeconds } = this.#o
    if (retentionSeconds === 0) return { messages: 0, managementLinks: 0 }
    const before = clock.globalNow() - retentionSeconds * 1000
    const drain = async (batch: () => Promise<number>): Promise<number> => {
      let total = 0
      for (;;) {
        const n = await batch()
        total += n
        if (n < BATCH) return total
        await nextTurn()
      }
    }
    const messages = await drain(() => store.pruneSettledMessages(before, BATCH))
    const managementLinks = await drain(() => store.pruneExpiredManagementLinks(before, BATCH))
    return { messages, managementLinks }
  }

  #run (): void {
    if (this.#running !== null) return
    this.#running = this.prune()
      .then(pruned => {
        if (pruned.messages > 0 || pruned.managementLinks > 0) this.#o.log.info(pruned, 'pruned old webhook messages and management links')
      }, (err: unknown) => { this.#o.log.error({ err }, 'webhook retention failed') })
      .finally(() => { this.#running = null })
  }
}
