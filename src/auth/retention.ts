// Refresh tokens' retention (src/kit/retention.ts runs it): a token expired longer than
// REFRESH_TOKEN_RETENTION_SECONDS ago, on its organization's own clock, is deleted. Without it a
// shared demo environment keeps every token ever issued: one a token request, for clients with
// refresh tokens (the demo client among them). Until then an expired token still answers as one
// (`Token expired`, or a used one revoking its family); once deleted it is unknown (`invalid_grant`,
// as any token the sandbox never issued). The walk goes through the tokens in key order, a batch at
// a time, and asks each organization's clock, so an organization whose clock stands in the past
// keeps its tokens as long as they live there.
import type { FastifyInstance } from 'fastify'
import type { Clock } from '../clock.js'
import { pruneWalking, Retention } from '../kit/retention.js'
import type { RefreshTokenStore } from '../storage/types.js'

export type Pruned = { refreshTokens: number }

export class RefreshTokenRetention extends Retention<Pruned> {
  readonly #store: RefreshTokenStore
  readonly #clock: Clock

  constructor (app: FastifyInstance) {
    super(app.config.refreshTokenRetentionSeconds, app.log.child({ area: 'auth' }), 'expired refresh tokens')
    this.#store = app.storage.refreshTokens
    this.#clock = app.clock
  }

  async prune (): Promise<Pruned> {
    if (this.retentionSeconds === 0) return { refreshTokens: 0 }
    const retentionMs = this.retentionSeconds * 1000
    const refreshTokens = await pruneWalking(
      async (after, limit) => await this.#store.keysAfter(after, limit),
      t => t.expiresAt + retentionMs < this.#clock.nowFor(t.organizationId),
      async keys => await this.#store.delete(keys))
    return { refreshTokens }
  }
}

/** Prunes at start and periodically, until the app closes. */
export function followRefreshTokenRetention (app: FastifyInstance): void {
  const retention = new RefreshTokenRetention(app)
  app.addHook('onReady', async () => { retention.start() })
  app.addHook('onClose', async () => { await retention.stop() })
}
