// Quotes' retention (src/kit/retention.ts: ExpiryRetention walks them): a quote never used and
// expired longer than QUOTE_RETENTION_SECONDS ago, on its organization's own clock, is deleted. A
// quote lives for seconds, and one that no transaction commits (a price shown, then left) stayed
// for ever. Committing an expired quote answers 404 `entity_not_found` (`quote`), as an unknown one
// does, so its deletion changes no answer. Used quotes stay: their transactions name them and the
// daily limits add them up.
import type { FastifyInstance } from 'fastify'
import { ExpiryRetention } from '../kit/retention.js'
import { quotesOf } from './service.js'

export function quoteRetention (app: FastifyInstance): ExpiryRetention {
  const store = quotesOf(app)
  return new ExpiryRetention({
    name: 'quotes',
    what: 'expired quotes never used',
    retentionSeconds: app.config.quoteRetentionSeconds,
    log: app.log.child({ area: 'quotes' }),
    clock: app.clock,
    page: async (after, limit) => await store.unusedAfter(after, limit),
    remove: async ids => await store.deleteUnused(ids)
  })
}
