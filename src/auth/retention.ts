// Refresh tokens' retention (src/kit/retention.ts: ExpiryRetention walks them): a token expired
// longer than REFRESH_TOKEN_RETENTION_SECONDS ago, on its organization's own clock, is deleted.
// Without it a shared demo environment keeps every token ever issued: one a token request, for
// clients with refresh tokens (the demo client among them). Until then an expired token still
// answers as one (`Token expired`, or a used one revoking its family); once deleted it is unknown
// (`invalid_grant`, as any token the sandbox never issued). An organization whose clock stands in
// the past keeps its tokens as long as they live there.
import type { FastifyInstance } from 'fastify'
import { ExpiryRetention } from '../kit/retention.js'

export function refreshTokenRetention (app: FastifyInstance): ExpiryRetention {
  const store = app.storage.refreshTokens
  return new ExpiryRetention({
    name: 'refreshTokens',
    what: 'expired refresh tokens',
    retentionSeconds: app.config.refreshTokenRetentionSeconds,
    log: app.log.child({ area: 'auth' }),
    clock: app.clock,
    page: async (after, limit) => await store.keysAfter(after, limit),
    remove: async keys => await store.delete(keys)
  })
}
