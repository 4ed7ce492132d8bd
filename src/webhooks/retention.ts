// Webhooks' retention (src/kit/retention.ts runs it): messages settled (delivered, or failed with no
// retry left) longer than WEBHOOK_RETENTION_SECONDS ago go with their attempts, and so do
// management links expired longer ago than that, and the events (the outbox) dispatched and
// recorded longer ago than that; pending messages, retries included, and events not yet dispatched
// are kept whatever their age. Each organization's on its own clock, as its schedule is: a pass
// for each organization with a clock of its own, then one for every other on the global clock.
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import { dueScopes } from '../kit/due-work.js'
import { BATCH, drain, Retention as PeriodicRetention } from '../kit/retention.js'
import type { EventStore } from '../storage/types.js'
import type { WebhooksStore } from './store.js'

export interface RetentionOptions {
  store: WebhooksStore
  events: EventStore
  clock: Clock
  log: FastifyBaseLogger
  /** Age in seconds beyond which settled messages and expired links go; 0 keeps everything. */
  retentionSeconds: number
}

// A type, not an interface: the runner's counts are an index-signature record.
export type Pruned = { messages: number, managementLinks: number, events: number }

export class Retention extends PeriodicRetention<Pruned> {
  readonly #o: RetentionOptions

  constructor (options: RetentionOptions) {
    super(options.retentionSeconds, options.log, 'old webhook messages, management links and dispatched events')
    this.#o = options
  }

  async prune (): Promise<Pruned> {
    const { store, events: outbox, clock, retentionSeconds } = this.#o
    if (retentionSeconds === 0) return { messages: 0, managementLinks: 0, events: 0 }
    const pruned: Pruned = { messages: 0, managementLinks: 0, events: 0 }
    for (const scope of dueScopes(clock)) {
      const before = clock.nowFor(scope) - retentionSeconds * 1000
      pruned.messages += await drain(() => store.pruneSettledMessages(before, BATCH, scope))
      pruned.managementLinks += await drain(() => store.pruneExpiredManagementLinks(before, BATCH, scope))
      const recordedBefore = new Date(before).toISOString()
      pruned.events += await drain(() => outbox.pruneDispatched(recordedBefore, BATCH, scope))
    }
    return pruned
  }
}
