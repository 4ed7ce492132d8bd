// Quotes' retention (src/kit/retention.ts runs it): a quote never used and expired longer than
// QUOTE_RETENTION_SECONDS ago, on its organization's own clock, is deleted. A quote lives for
// seconds, and one that no transaction commits (a price shown, then left) stayed for ever.
// Committing an expired quote answers 404 `entity_not_found` (`quote`), as an unknown one does, so
// its deletion changes no answer. Used quotes stay: their transactions name them and the daily
// limits add them up.
import type { FastifyInstance } from 'fastify'
import type { Clock } from '../clock.js'
import { pruneWalking, Retention } from '../kit/retention.js'
import type { QuotesStore } from './store.js'

export type Pruned = { quotes: number }

export class QuoteRetention extends Retention<Pruned> {
  readonly #store: QuotesStore
  readonly #clock: Clock

  constructor (app: FastifyInstance, store: QuotesStore) {
    super(app.config.quoteRetentionSeconds, app.log.child({ area: 'quotes' }), 'expired quotes never used')
    this.#store = store
    this.#clock = app.clock
  }

  async prune (): Promise<Pruned> {
    if (this.retentionSeconds === 0) return { quotes: 0 }
    const retentionMs = this.retentionSeconds * 1000
    const quotes = await pruneWalking(
      async (after, limit) => await this.#store.unusedAfter(after, limit),
      q => q.expiresAt + retentionMs < this.#clock.nowFor(q.organizationId),
      async ids => await this.#store.deleteUnused(ids))
    return { quotes }
  }
}

/** Prunes at start and periodically, until the app closes. */
export function followQuoteRetention (app: FastifyInstance, store: QuotesStore): void {
  const retention = new QuoteRetention(app, store)
  app.addHook('onReady', async () => { retention.start() })
  app.addHook('onClose', async () => { await retention.stop() })
}
