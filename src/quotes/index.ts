// The quotes area: core.create-quote, a priced, immutable offer to move funds between two nodes,
// held until it expires on the sandbox clock and consumed once by the transaction that commits it.
import type { FastifyInstance } from 'fastify'
import { defineArea } from '../kit/area.js'
import { operation } from '../kit/operation.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import { CreateQuoteRequest, Quote, QuoteAnswer } from '../../schemas/quotes.js'
import { migrations } from './migrations.js'
import { DEFAULT_TTL_MS, MIN_TTL_MS, createQuote } from './service.js'
import { config } from './config.js'
import { quoteRetention } from './retention.js'
import { followRetention } from '../kit/retention.js'

const TAG = 'Transactions'
const USERS = ['user:business', 'user:individual'] as const

async function quotesRoutes (app: FastifyInstance): Promise<void> {
  followRetention(app, quoteRetention(app))
  app.addSchema(Quote)
  const headers = UserContextHeaders(app.config.serviceName)

  operation(app, {
    id: 'createQuote',
    method: 'POST',
    url: '/core/transactions/quote',
    tag: TAG,
    scopes: ['core.transactions:create'],
    subjects: USERS,
    summary: 'Create a quote',
    description: 'Prices moving `denomination.amount` of `denomination.asset` from `origin` to `destination`: on the origin side (`target: origin`, ' +
      'the default) or the destination side. Rates come from the catalogue\'s price model at this instant on the sandbox clock (the destination ' +
      'rate is the bid of the origin asset in the destination asset); fees are taken in the destination asset and round up; what leaves the ' +
      'origin rounds up and what reaches the destination rounds down, to each asset\'s decimals. `requirements` lists what the transaction will ' +
      'need (`travel-rule`, `authorize:3ds` for the 3-D Secure test card, `authorize:<method>` for payment methods). The quote holds for `ttl` ms ' +
      `(default ${DEFAULT_TTL_MS}, at least ${MIN_TTL_MS}) and can be used once.`,
    headers,
    body: CreateQuoteRequest,
    responses: {
      201: { description: 'The quote.', ...QuoteAnswer },
      404: '`entity_not_found`: the denomination asset (`"asset"`), the origin or destination (`"account"`, `"external-account"`), or the rail of a ' +
        'crypto address\'s asset and network (`"rail"`).',
      409: '`asset_feature_not_available`, `transaction_node_invalid`, `crypto_address_invalid`, `transaction_amount_invalid` (minimum, maximum, daily ' +
        'limit), `user_capability_failure`, `number_invalid` (`ttl`) or `operation_not_allowed` (`unspecified-error`: no price for the assets; ' +
        '`permission-denied`: an origin or destination node type, or a `ttl`, the organization is not configured for, checked first).'
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    return reply.code(201).send({ quote: await createQuote(app, organizationId, userId, request.body) })
  })
}

export default defineArea({
  name: 'quotes',
  tags: [{ name: TAG, description: 'Quotes, and the transactions that commit them.' }],
  migrations,
  config,
  plugin: quotesRoutes
})
