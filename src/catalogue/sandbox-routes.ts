// Sandbox controls of the price model: pin an asset's USD mid price, see the pinned prices,
// release them. Not part of the real service.
import type { FastifyInstance } from 'fastify'
import { PinRateRequest, PinnedRate, PinnedRates, ReleaseRatesQuery } from '../../schemas/catalogue.js'
import { OrganizationQuery } from '../../schemas/sandbox.js'
import { conflict, entityNotFound } from '../errors.js'
import { callerOrganization, control, noContent } from '../kit/operation.js'
import { catalogueService, catalogueStoreOf } from './lookup.js'

export default async function sandboxRates (app: FastifyInstance): Promise<void> {
  const catalogue = catalogueService(app)
  const store = catalogueStoreOf(app)

  const pinned = async (organizationId: string | undefined) => (await catalogue.fresh()).pins(organizationId)
    .map(([asset, pin]) => ({ asset, mid: pin.mid, pinnedAt: new Date(pin.pinnedAt).toISOString() }))
    .sort((a, b) => a.asset < b.asset ? -1 : 1)

  control(app, {
    id: 'sandboxListRates',
    method: 'GET',
    url: '/_sandbox/rates',
    summary: 'List pinned prices',
    description: 'The USD mid prices pinned with `POST /_sandbox/rates`, by asset: an organization\'s own (its control token, or the admin\'s `?organizationId=`), ' +
      'or the admin\'s for every organization.',
    acts: 'organization',
    querystring: OrganizationQuery,
    responses: { 200: { description: 'The pinned prices.', ...PinnedRates } }
  }, async (request) => ({ rates: await pinned(callerOrganization(request, request.query.organizationId)) }))

  control(app, {
    id: 'sandboxPinRate',
    method: 'POST',
    url: '/_sandbox/rates',
    summary: 'Pin a price',
    description: 'Pins an asset\'s USD mid price from the sandbox clock\'s now on, until `DELETE /_sandbox/rates` or a full reset: every rate that uses the asset, ' +
      'cross rates included, moves with it, and history from that instant on shows it (before it, the model\'s curve). Bid and ask keep their spread around it. ' +
      'Pinning again replaces the price from that instant on; the earlier pin stays in force in history between the two (pins at or after the new one\'s instant, ' +
      'after the clock moved back, go). An asset added by a fixture without a price gets one this way. USD, the base of every price, cannot be pinned.\n\n' +
      'Each organization prices on its own clock with its own pins: an organization\'s control token (or the admin\'s `?organizationId=`) pins for that ' +
      'organization only, at its clock\'s now, and its pins of an asset replace the admin\'s; the admin token without an organization pins for every ' +
      'organization that has not pinned the asset itself.',
    acts: 'organization',
    querystring: OrganizationQuery,
    body: PinRateRequest,
    responses: {
      201: { description: 'The pinned price.', ...PinnedRate },
      404: '`entity_not_found`: no such asset (`details.entity: "asset"`).',
      409: '`asset_not_supported`: USD is the base of every price.'
    }
  }, async (request, reply) => {
    const { asset, mid } = request.body
    if ((await catalogue.fresh()).asset(asset) === undefined) throw entityNotFound('asset')
    if (asset === 'USD') throw conflict('asset_not_supported', 'The asset is not supported', { context: 'body', property: 'asset' })
    const organizationId = callerOrganization(request, request.query.organizationId)
    const pinnedAt = app.clock.nowFor(organizationId)
    await store.pin(organizationId, asset, mid, pinnedAt)
    return reply.code(201).send({ asset, mid, pinnedAt: new Date(pinnedAt).toISOString() })
  })

  control(app, {
    id: 'sandboxReleaseRates',
    method: 'DELETE',
    url: '/_sandbox/rates',
    summary: 'Release pinned prices',
    description: 'Releases the pinned price of `asset`, or every pinned price: the model\'s curve applies again, at every instant. Answers 204 even when nothing was pinned. ' +
      'An organization\'s control token (or the admin\'s `organizationId`) releases that organization\'s pins only; the admin token without one releases every organization\'s.',
    acts: 'organization',
    querystring: ReleaseRatesQuery,
    responses: { 204: noContent('Released.') }
  }, async (request, reply) => {
    await store.release(callerOrganization(request, request.query.organizationId), request.query.asset)
    return reply.code(204).send()
  })
}
