// The catalogue area: countries, assets, networks, rails, rates, terms of service and file
// settings (the Core API's reference data), and the sandbox controls that pin prices.
import type { FastifyInstance, FastifySchema } from 'fastify'
import { oauthSecurity, type SubjectType } from '../auth/guard.js'
import { commonErrorResponses, errorResponse } from '../../schemas/common.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import {
  AddressValidation, Asset, AssetAnswer, AssetList, AssetListQuery, AssetParams, Country, CountryAnswer, CountryList, CountryParams,
  FileSettings, FileSettingsQuery, HistoricalRates, HistoricalRatesQuery, ManyAssets, ManyAssetsRequest, Network, NetworkAnswer,
  NetworkList, NetworkListQuery, NetworkParams, Rail, RailList, RailListQuery, Rate, Rates, RatesQuery, TermsOfService,
  TermsOfServiceAnswer, TermsOfServiceList, TermsOfServiceListQuery, TermsOfServiceParams, ValidateAddressRequest
} from '../../schemas/catalogue.js'
import { commaSeparated } from '../http/query.js'
import { installValidation } from '../plugins/validation.js'
import { catalogueService } from './lookup.js'
import sandboxRates from './sandbox-routes.js'

/** Subjects of every catalogue operation: the reference allows a client and both kinds of user. */
const ANY_SUBJECT: SubjectType[] = ['client', 'user']
const TOS_READ = 'core.terms-of-service:read'
const FILES_READ = 'core.files:read'

const notFound = (entity: string) => errorResponse(`\`entity_not_found\`: no such ${entity} (\`details.entity: "${entity}"\`).`)

interface Operation {
  scopes: string[]
  tags: string[]
  summary: string
  operationId: string
  description: string
  response: Record<number, unknown>
  schema?: Omit<FastifySchema, 'response'>
}

export default async function catalogueArea (app: FastifyInstance): Promise<void> {
  for (const schema of [Country, Asset, Rate, Network, Rail, TermsOfService]) app.addSchema(schema)
  // A context that adds schemas gets a validator compiler of its own, built from Fastify's default
  // factory (coercing bodies): install the app's strict one here too.
  installValidation(app)
  const catalogue = catalogueService(app)
  const headers = UserContextHeaders(app.config.serviceName)

  /** A route's options: the subject rule beside its scopes, the security, the shared error answers. */
  const operation = ({ scopes, tags, summary, operationId, description, response, schema }: Operation) => ({
    config: { auth: { scopes, subjects: ANY_SUBJECT } },
    schema: {
      tags,
      summary,
      operationId,
      description,
      security: oauthSecurity(scopes),
      headers,
      ...schema,
      response: {
        ...response,
        400: commonErrorResponses[400],
        401: commonErrorResponses[401],
        403: scopes.length > 0 ? commonErrorResponses[403] : errorResponse('The token is for a subject the operation does not allow (`token_subject_not_allowed`).'),
        429: commonErrorResponses[429]
      }
    }
  })

  // ---- Countries ----

  app.get('/core/countries', operation({
    scopes: [],
    tags: ['Countries'],
    summary: 'List countries',
    operationId: 'listCountries',
    description: 'Every ISO 3166-1 country, ordered by code, with its ISO 3166-2 subdivisions, its currency as `asset` and its restrictions. ' +
      'Countries in UNSUPPORTED_COUNTRIES (default CU, IR, KP, SY) carry every restriction scope, and their subdivisions `residence`; fixtures can restrict more.',
    response: { 200: { description: 'The countries.', ...CountryList } }
  }), async () => ({ countries: await catalogue.listCountries() }))

  app.get<{ Params: CountryParams }>('/core/countries/:country', operation({
    scopes: [],
    tags: ['Countries'],
    summary: 'Get a country',
    operationId: 'getCountry',
    description: 'One country by ISO 3166-1 alpha-2 code.',
    schema: { params: CountryParams },
    response: { 200: { description: 'The country.', ...CountryAnswer }, 404: notFound('country') }
  }), async (request) => ({ country: await catalogue.getCountry(request.params.country) }))

  // ---- Assets ----

  app.get<{ Querystring: AssetListQuery }>('/core/assets', {
    ...operation({
      scopes: [],
      tags: ['Assets'],
      summary: 'List assets',
      operationId: 'listAssets',
      description: 'The assets, filtered by `type` (comma-separated) and ordered by `sort`. Prices, deltas and market caps are read from the price model at the sandbox clock\'s now ' +
        '(USD mid prices; the delta is the change over the interval that ends now); assets without one come last. Ties are ordered by code.',
      schema: { querystring: AssetListQuery },
      response: { 200: { description: 'The assets.', ...AssetList } }
    }),
    preValidation: commaSeparated('type')
  }, async (request) => ({ assets: await catalogue.listAssets(request.query) }))

  app.post<{ Body: ManyAssetsRequest }>('/core/assets/_mget', operation({
    scopes: [],
    tags: ['Assets'],
    summary: 'Get many assets',
    operationId: 'getManyAssets',
    description: 'The assets with these codes, by code; unknown codes are left out.',
    schema: { body: ManyAssetsRequest },
    response: { 200: { description: 'The known assets.', ...ManyAssets } }
  }), async (request) => ({ assets: await catalogue.getManyAssets(request.body.codes) }))

  app.get<{ Params: AssetParams }>('/core/assets/:asset', operation({
    scopes: [],
    tags: ['Assets'],
    summary: 'Get an asset',
    operationId: 'getAsset',
    description: 'One asset by code.',
    schema: { params: AssetParams },
    response: { 200: { description: 'The asset.', ...AssetAnswer }, 404: notFound('asset') }
  }), async (request) => ({ asset: await catalogue.getAsset(request.params.asset) }))

  app.get<{ Params: AssetParams, Querystring: RatesQuery }>('/core/assets/:asset/rates', {
    ...operation({
      scopes: [],
      tags: ['Assets'],
      summary: 'Get an asset\'s rates',
      operationId: 'getAssetRates',
      description: 'What one unit of the asset is worth in each `denomination` (comma-separated; by default every other priced asset) at the sandbox clock\'s now. ' +
        'Prices follow a deterministic model: each asset\'s USD mid price is its base price moved by a smooth curve seeded by its code, or the price pinned with ' +
        '`POST /_sandbox/rates`. Cross rates go through USD; bid and ask sit 0.05% (fiat) or 0.25% (crypto) either side of each USD mid, so bid <= mid <= ask.',
      schema: { params: AssetParams, querystring: RatesQuery },
      response: {
        200: { description: 'The rates, by denomination.', ...Rates },
        404: notFound('asset'),
        409: errorResponse('`asset_pair_not_supported`: a denomination is unknown or either asset has no price.')
      }
    }),
    preValidation: commaSeparated('denomination')
  }, async (request) => ({ rates: await catalogue.getRates(request.params.asset, request.query.denomination) }))

  app.get<{ Params: AssetParams, Querystring: HistoricalRatesQuery }>('/core/assets/:asset/historical-rates', operation({
    scopes: [],
    tags: ['Assets'],
    summary: 'Get an asset\'s historical rates',
    operationId: 'getAssetHistoricalRates',
    description: 'The mid rate of the asset in `denomination` over the `interval` that ends at the sandbox clock\'s now, oldest first, from the same model as the present rates. ' +
      'Points fall on multiples of a step counted from the Unix epoch, never after now: one-hour every minute (60), one-day every 30 minutes (48), one-week every 3 hours (56), ' +
      'one-month every 12 hours (60), one-year every 5 days (73), five-years every 25 days (73).',
    schema: { params: AssetParams, querystring: HistoricalRatesQuery },
    response: {
      200: { description: 'The rates, under the denomination\'s code.', ...HistoricalRates },
      404: errorResponse('`entity_not_found` (`details.entity: "asset"`): the asset (`details.context: "path"`) or the denomination (`context: "query", property: "denomination"`) is unknown.'),
      409: errorResponse('`asset_not_supported`: the asset or the denomination has no price (`details: { context, property }`).')
    }
  }), async (request) => ({ historicalRates: await catalogue.getHistoricalRates(request.params.asset, request.query) }))

  // ---- Networks and rails ----

  app.get<{ Querystring: NetworkListQuery }>('/core/networks', {
    ...operation({
      scopes: [],
      tags: ['Assets'],
      summary: 'List networks',
      operationId: 'listNetworks',
      description: 'The networks money moves on (crypto, card, bank, apm), filtered by `type` (comma-separated).',
      schema: { querystring: NetworkListQuery },
      response: { 200: { description: 'The networks.', ...NetworkList } }
    }),
    preValidation: commaSeparated('type')
  }, async (request) => ({ networks: await catalogue.listNetworks(request.query) }))

  app.get<{ Params: NetworkParams }>('/core/networks/:network', operation({
    scopes: [],
    tags: ['Assets'],
    summary: 'Get a network',
    operationId: 'getNetwork',
    description: 'One network by code.',
    schema: { params: NetworkParams },
    response: { 200: { description: 'The network.', ...NetworkAnswer }, 404: notFound('network') }
  }), async (request) => ({ network: await catalogue.getNetwork(request.params.network) }))

  app.post<{ Params: NetworkParams, Body: ValidateAddressRequest }>('/core/networks/:network/validate-address', operation({
    scopes: [],
    tags: ['Assets'],
    summary: 'Validate an address',
    operationId: 'validateNetworkAddress',
    description: 'Whether a transfer to `address` (with `reference`) on a crypto network can be sent. Addresses are checked offline by a maintained validator, main and test networks alike; ' +
      'XRP destination tags must be integers from 0 to 4294967295 and Stellar memos at most 28 bytes; a reference on a network without references is `reference_invalid`. ' +
      'The example address of a network with references stands for a shared exchange address: without a reference it is `reference_missing`.',
    schema: { params: NetworkParams, body: ValidateAddressRequest },
    response: {
      200: { description: 'The verdict; `error` says why an address is not valid.', ...AddressValidation },
      404: notFound('network'),
      409: errorResponse('`operation_not_allowed`: the network is not a crypto network.')
    }
  }), async (request) => catalogue.validateNetworkAddress(request.params.network, request.body.address, request.body.reference))

  app.get<{ Querystring: RailListQuery }>('/core/rails', {
    ...operation({
      scopes: [],
      tags: ['Assets'],
      summary: 'List rails',
      operationId: 'listRails',
      description: 'The rails: which asset moves on which network by which method, with the features (deposit, withdraw) and constraints of each. ' +
        'Filtered by `type`, `network`, `method` and `asset` (each comma-separated).',
      schema: { querystring: RailListQuery },
      response: { 200: { description: 'The rails.', ...RailList } }
    }),
    preValidation: commaSeparated('type', 'network', 'method', 'asset')
  }, async (request) => ({ rails: await catalogue.listRails(request.query) }))

  // ---- Terms of service ----

  app.get<{ Querystring: TermsOfServiceListQuery }>('/core/terms-of-service', operation({
    scopes: [TOS_READ],
    tags: ['Terms of service'],
    summary: 'List terms of service',
    operationId: 'listTermsOfService',
    description: 'The terms of service, filtered by `type`, `country` of residence and `userType`. General terms apply by country: general-us-hq (US), general-gb-fca (GB), ' +
      'general-pt-bop (PT), general-lt-fcs (the rest of the EEA) and general-bs-scb (every other country); unique-account-number-viban to individuals in GB and PT.',
    schema: { querystring: TermsOfServiceListQuery },
    response: { 200: { description: 'The terms of service.', ...TermsOfServiceList } }
  }), async (request) => ({ termsOfService: catalogue.listTermsOfService(request.query) }))

  app.get<{ Params: TermsOfServiceParams }>('/core/terms-of-service/:termsOfService', operation({
    scopes: [TOS_READ],
    tags: ['Terms of service'],
    summary: 'Get terms of service',
    operationId: 'getTermsOfService',
    description: 'One terms-of-service version by code; an unknown code is 400.',
    schema: { params: TermsOfServiceParams },
    response: { 200: { description: 'The terms of service.', ...TermsOfServiceAnswer } }
  }), async (request) => ({ termsOfService: catalogue.getTermsOfService(request.params.termsOfService) }))

  // ---- Files ----

  app.get<{ Querystring: FileSettingsQuery }>('/core/files/settings', {
    ...operation({
      scopes: [FILES_READ],
      tags: ['Files'],
      summary: 'List file settings',
      operationId: 'listFilesSettings',
      description: 'Upload rules by file category (`category`, comma-separated): allowed content types, sizes in bytes and how long an upload link lives (seconds).',
      schema: { querystring: FileSettingsQuery },
      response: { 200: { description: 'The settings, by category.', ...FileSettings } }
    }),
    preValidation: commaSeparated('category')
  }, async (request) => ({ settings: catalogue.fileSettings(request.query) }))

  await app.register(sandboxRates)
}
