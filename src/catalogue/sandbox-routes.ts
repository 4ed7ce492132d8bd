// Sandbox controls of the price model: pin an asset's USD mid price, see the pinned prices,
// release them. Not part of the real service.
import type { FastifyInstance } from 'fastify'
import { PinRateRequest, PinnedRate, PinnedRates, ReleaseRatesQuery } from '../../schemas/catalogue.js'
import { errorResponse } from '../../schemas/common.js'
import { conflict, entityNotFound } from '../errors.js'
import { adminConfig, control, invalid, noContent } from '../sandbox/route.js'
import { catalogueService, catalogueStoreOf } from './lookup.js'

export default async function sandboxRates (app: FastifyInstance): Promise<void> {
  const catalogue = catalogueService(app)
  const store = catalogueStoreOf(app)
  // A full reset empties the catalogue's tables: the snapshot other areas read synchronously follows.
  app.events.on('reset', ({ organizationId }: { organizationId: string | null }) => {
    if (organizationId === null) catalogue.reload().catch(err => app.log.error({ err }, 'catalogue reload failed'))
  })

  const pinned = async () => (await catalogue.fresh()).pins()
    .map(([asset, pin]) => ({ asset, mid: pin.mid, pinnedAt: new Date(pin.pinnedAt).toISOString() }))
    .sort((a, b) => a.asset < b.asset ? -1 : 1)

  app.get('/_sandbox/rates', {
    config: adminConfig,
    schema: control({
      summary: 'List pinned prices',
      operationId: 'sandboxListRates',
      description: 'The USD mid prices pinned with `POST /_sandbox/rates`, by asset.',
      response: { 200: { description: 'The pinned prices.', ...PinnedRates } }
    })
  }, async () => ({ rates: await pinned() }))

  app.post<{ Body: PinRateRequest }>('/_sandbox/rates', {
    config: adminConfig,
    schema: control({
      summary: 'Pin a price',
      operationId: 'sandboxPinRate',
      description: 'Pins an asset\'s USD mid price from the sandbox clock\'s now on, until `DELETE /_sandbox/rates` or a full reset: every rate that uses the asset, ' +
        'cross rates included, moves with it, and history from that instant on shows it (before it, the model\'s curve). Bid and ask keep their spread around it. ' +
        'Pinning again replaces the price. An asset added by a fixture without a price gets one this way. USD, the base of every price, cannot be pinned.',
      body: PinRateRequest,
      response: {
        201: { description: 'The pinned price.', ...PinnedRate },
        400: invalid,
        404: errorResponse('`entity_not_found`: no such asset (`details.entity: "asset"`).'),
        409: errorResponse('`asset_not_supported`: USD is the base of every price.')
      }
    })
  }, async (request, reply) => {
    const { asset, mid } = request.body
    if ((await catalogue.fresh()).asset(asset) === undefined) throw entityNotFound('asset')
    if (asset === 'USD') throw conflict('asset_not_supported', 'The asset is not supported', { context: 'body', property: 'asset' })
    const pinnedAt = app.clock.now()
    await store.pin(asset, mid, pinnedAt)
    await catalogue.reload()
    return reply.code(201).send({ asset, mid, pinnedAt: new Date(pinnedAt).toISOString() })
  })

  app.delete<{ Querystring: ReleaseRatesQuery }>('/_sandbox/rates', {
    config: adminConfig,
    schema: control({
      summary: 'Release pinned prices',
      operationId: 'sandboxReleaseRates',
      description: 'Releases the pinned price of `asset`, or every pinned price: the model\'s curve applies again, at every instant. Answers 204 even when nothing was pinned.',
      querystring: ReleaseRatesQuery,
      response: { 204: noContent('Released.'), 400: invalid }
    })
  }, async (request, reply) => {
    await store.release(request.query.asset)
    await catalogue.reload()
    return reply.code(204).send()
  })
}
