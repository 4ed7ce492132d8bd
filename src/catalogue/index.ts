// The catalogue area: countries, assets, networks, rails, rates, terms of service and file
// settings (the Core API's reference data), and the sandbox controls that pin prices.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { SubjectType } from '../auth/guard.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import {
  AddressValidation, Asset, AssetAnswer, AssetList, AssetListQuery, AssetParams, Country, CountryAnswer, CountryList, CountryParams,
  FileSettings, FileSettingsQuery, HistoricalRates, HistoricalRatesQuery, ManyAssets, ManyAssetsRequest, Network, NetworkAnswer,
  NetworkList, NetworkListQuery, NetworkParams, Rail, RailList, RailListQuery, Rate, Rates, RatesQuery, TermsOfService,
  TermsOfServiceAnswer, TermsOfServiceList, TermsOfServiceListQuery, TermsOfServiceParams, ValidateAddressRequest
} from '../../schemas/catalogue.js'
import { commaSeparated } from '../http/query.js'
import { defineArea } from '../kit/area.js'
import { config } from './config.js'
import { operation } from '../kit/operation.js'
import { catalogueService, catalogueStoreOf } from './lookup.js'
import { catalogueFixtures } from './fixtures.js'
import { migrations } from './migrations.js'
import sandboxRates from './sandbox-routes.js'

/** Subjects of every catalogue operation, in the reference's words: a client and both kinds of user. */
const ANY_SUBJECT: SubjectType[] = ['client', 'user:business', 'user:individual']
const TOS_READ = 'core.terms-of-service:read'
const FILES_READ = 'core.files:read'

const notFound = (entity: string): string => `\`entity_not_found\`: no such ${entity} (\`details.entity: "${entity}"\`).`

async function catalogueRoutes (app: FastifyInstance): Promise<void> {
  for (const schema of [Country, Asset, Rate, Network, Rail, TermsOfService]) app.addSchema(schema)
  const catalogue = catalogueService(app)
  const headers = UserContextHeaders(app.config.serviceName)
  const subjects = ANY_SUBJECT

  // Acting for a user, assets carry the user's cooldowns and terms the user's `acceptedAt`: the
  // areas that keep them answer through the registry (app.areas.userCooldowns, userTerms).
  const forUser = async (request: FastifyRequest, assets: Asset[]): Promise<Asset[]> => {
    const auth = request.auth
    if (auth === null || auth.userId === null) return assets
    const cooldowns = await app.areas.userCooldowns(app, auth.organizationId, auth.userId)
    return assets.map(a => cooldowns[a.code] === undefined ? a : { ...a, cooldowns: cooldowns[a.code] as Asset['cooldowns'] })
  }
  const accepted = async (request: FastifyRequest, terms: TermsOfService[]): Promise<TermsOfService[]> => {
    const auth = request.auth
    if (auth === null || auth.userId === null) return terms
    const at = await app.areas.userTerms(app, auth.organizationId, auth.userId)
    return terms.map(t => at[t.code] === undefined ? t : { ...t, acceptedAt: at[t.code] })
  }

  // ---- Countries ----
  // ---- Countries ----

  operation(app, {
    id: 'listCountries',
    method: 'GET',
    url: '/core/countries',
    tag: 'Countries',
    scopes: [],
    subjects,
    summary: 'List countries',
    description: 'Every ISO 3166-1 country, ordered by code, with its ISO 3166-2 subdivisions, its currency as `asset` and its restrictions. ' +
      'Countries in UNSUPPORTED_COUNTRIES (default CU, IR, KP, SY) carry every restriction scope, and their subdivisions `residence`; fixtures can restrict more.',
    headers,
    responses: { 200: { description: 'The countries.', ...CountryList } }
  }, async () => ({ countries: await catalogue.listCountries() }))

  operation(app, {
    id: 'getCountry',
    method: 'GET',
    url: '/core/countries/:country',
    tag: 'Countries',
    scopes: [],
    subjects,
    summary: 'Get a country',
    description: 'One country by ISO 3166-1 alpha-2 code.',
    params: CountryParams,
    headers,
    responses: { 200: { description: 'The country.', ...CountryAnswer }, 404: notFound('country') }
  }, async (request) => ({ country: await catalogue.getCountry(request.params.country) }))

  // ---- Assets ----

  operation(app, {
    id: 'listAssets',
    method: 'GET',
    url: '/core/assets',
    tag: 'Assets',
    scopes: [],
    subjects,
    summary: 'List assets',
    description: 'The assets, filtered by `type` (comma-separated) and ordered by `sort`. Prices, deltas and market caps are read from the price model at the sandbox clock\'s now ' +
      '(USD mid prices; the delta is the change over the interval that ends now); assets without one come last. Ties are ordered by code.',
    querystring: AssetListQuery,
    headers,
    preValidation: commaSeparated('type'),
    responses: { 200: { description: 'The assets.', ...AssetList } }
  }, async (request) => ({ assets: await forUser(request, await catalogue.listAssets(request.query)) }))

  operation(app, {
    id: 'getManyAssets',
    method: 'POST',
    url: '/core/assets/_mget',
    tag: 'Assets',
    scopes: [],
    subjects,
    summary: 'Get many assets',
    description: 'The assets with these codes, by code; unknown codes are left out.',
    body: ManyAssetsRequest,
    headers,
    responses: { 200: { description: 'The known assets.', ...ManyAssets } }
  }, async (request) => {
    const found = await catalogue.getManyAssets(request.body.codes)
    const shown = await forUser(request, Object.values(found))
    return { assets: Object.fromEntries(shown.map(a => [a.code, a])) }
  })

  operation(app, {
    id: 'getAsset',
    method: 'GET',
    url: '/core/assets/:asset',
    tag: 'Assets',
    scopes: [],
    subjects,
    summary: 'Get an asset',
    description: 'One asset by code.',
    params: AssetParams,
    headers,
    responses: { 200: { description: 'The asset.', ...AssetAnswer }, 404: notFound('asset') }
  }, async (request) => ({ asset: (await forUser(request, [await catalogue.getAsset(request.params.asset)]))[0] }))

  operation(app, {
    id: 'getAssetRates',
    method: 'GET',
    url: '/core/assets/:asset/rates',
    tag: 'Assets',
    scopes: [],
    subjects,
    summary: 'Get an asset\'s rates',
    description: 'What one unit of the asset is worth in each `denomination` (comma-separated; by default every other priced asset) at the sandbox clock\'s now. ' +
      'Prices follow a deterministic model: each asset\'s USD mid price is its base price moved by a smooth curve seeded by its code, or the price pinned with ' +
      '`POST /_sandbox/rates`. Cross rates go through USD; bid and ask sit 0.05% (fiat) or 0.25% (crypto) either side of each USD mid, so bid <= mid <= ask.',
    params: AssetParams,
    querystring: RatesQuery,
    headers,
    preValidation: commaSeparated('denomination'),
    responses: {
      200: { description: 'The rates, by denomination.', ...Rates },
      404: notFound('asset'),
      409: '`asset_pair_not_supported`: a denomination is unknown or either asset has no price.'
    }
  }, async (request) => ({ rates: await catalogue.getRates(request.params.asset, request.query.denomination) }))

  operation(app, {
    id: 'getAssetHistoricalRates',
    method: 'GET',
    url: '/core/assets/:asset/historical-rates',
    tag: 'Assets',
    scopes: [],
    subjects,
    summary: 'Get an asset\'s historical rates',
    description: 'The mid rate of the asset in `denomination` over the `interval` that ends at the sandbox clock\'s now, oldest first, from the same model as the present rates. ' +
      'Points fall on multiples of a step counted from the Unix epoch, never after now: one-hour every minute (60), one-day every 30 minutes (48), one-week every 3 hours (56), ' +
      'one-month every 12 hours (60), one-year every 5 days (73), five-years every 25 days (73).',
    params: AssetParams,
    querystring: HistoricalRatesQuery,
    headers,
    responses: {
      200: { description: 'The rates, under the denomination\'s code.', ...HistoricalRates },
      404: '`entity_not_found` (`details.entity: "asset"`): the asset (`details.context: "path"`) or the denomination (`context: "query", property: "denomination"`) is unknown.',
      409: '`asset_not_supported`: the asset or the denomination has no price (`details: { context, property }`).'
    }
  }, async (request) => ({ historicalRates: await catalogue.getHistoricalRates(request.params.asset, request.query) }))

  // ---- Networks and rails ----

  operation(app, {
    id: 'listNetworks',
    method: 'GET',
    url: '/core/networks',
    tag: 'Assets',
    scopes: [],
    subjects,
    summary: 'List networks',
    description: 'The networks money moves on (crypto, card, bank, apm), filtered by `type` (comma-separated).',
    querystring: NetworkListQuery,
    headers,
    preValidation: commaSeparated('type'),
    responses: { 200: { description: 'The networks.', ...NetworkList } }
  }, async (request) => ({ networks: await catalogue.listNetworks(request.query) }))

  operation(app, {
    id: 'getNetwork',
    method: 'GET',
    url: '/core/networks/:network',
    tag: 'Assets',
    scopes: [],
    subjects,
    summary: 'Get a network',
    description: 'One network by code.',
    params: NetworkParams,
    headers,
    responses: { 200: { description: 'The network.', ...NetworkAnswer }, 404: notFound('network') }
  }, async (request) => ({ network: await catalogue.getNetwork(request.params.network) }))

  operation(app, {
    id: 'validateNetworkAddress',
    method: 'POST',
    url: '/core/networks/:network/validate-address',
    tag: 'Assets',
    scopes: [],
    subjects,
    summary: 'Validate an address',
    description: 'Whether a transfer to `address` (with `reference`) on a crypto network can be sent. Addresses are checked offline by a maintained validator, main and test networks alike; ' +
      'XRP destination tags must be integers from 0 to 4294967295 and Stellar memos at most 28 bytes; a reference on a network without references is `reference_invalid`. ' +
      'The example address of a network with references stands for a shared exchange address: without a reference it is `reference_missing`.',
    params: NetworkParams,
    body: ValidateAddressRequest,
    headers,
    responses: {
      200: { description: 'The verdict; `error` says why an address is not valid.', ...AddressValidation },
      404: notFound('network'),
      409: '`operation_not_allowed`: the network is not a crypto network.'
    }
  }, async (request) => catalogue.validateNetworkAddress(request.params.network, request.body.address, request.body.reference))

  operation(app, {
    id: 'listRails',
    method: 'GET',
    url: '/core/rails',
    tag: 'Assets',
    scopes: [],
    subjects,
    summary: 'List rails',
    description: 'The rails: which asset moves on which network by which method, with the features (deposit, withdraw) and constraints of each. ' +
      'Filtered by `type`, `network`, `method` and `asset` (each comma-separated).',
    querystring: RailListQuery,
    headers,
    preValidation: commaSeparated('type', 'network', 'method', 'asset'),
    responses: { 200: { description: 'The rails.', ...RailList } }
  }, async (request) => ({ rails: await catalogue.listRails(request.query) }))

  // ---- Terms of service ----

  operation(app, {
    id: 'listTermsOfService',
    method: 'GET',
    url: '/core/terms-of-service',
    tag: 'Terms of service',
    scopes: [TOS_READ],
    subjects,
    summary: 'List terms of service',
    description: 'The terms of service, filtered by `type`, `country` of residence and `userType`. General terms apply by country: general-us-hq (US), general-gb-fca (GB), ' +
      'general-pt-bop (PT), general-lt-fcs (the rest of the EEA) and general-bs-scb (every other country); unique-account-number-viban to individuals in GB and PT.',
    querystring: TermsOfServiceListQuery,
    headers,
    responses: { 200: { description: 'The terms of service.', ...TermsOfServiceList } }
  }, async (request) => ({ termsOfService: await accepted(request, catalogue.listTermsOfService(request.query)) }))

  operation(app, {
    id: 'getTermsOfService',
    method: 'GET',
    url: '/core/terms-of-service/:termsOfService',
    tag: 'Terms of service',
    scopes: [TOS_READ],
    subjects,
    summary: 'Get terms of service',
    description: 'One terms-of-service version by code; an unknown code is 400.',
    params: TermsOfServiceParams,
    headers,
    responses: { 200: { description: 'The terms of service.', ...TermsOfServiceAnswer } }
  }, async (request) => ({ termsOfService: (await accepted(request, [catalogue.getTermsOfService(request.params.termsOfService)]))[0] }))

  // ---- Files ----

  operation(app, {
    id: 'listFilesSettings',
    method: 'GET',
    url: '/core/files/settings',
    tag: 'Files',
    scopes: [FILES_READ],
    subjects,
    summary: 'List file settings',
    description: 'Upload rules by file category (`category`, comma-separated): allowed content types, sizes in bytes and how long an upload link lives (seconds).',
    querystring: FileSettingsQuery,
    headers,
    preValidation: commaSeparated('category'),
    responses: { 200: { description: 'The settings, by category.', ...FileSettings } }
  }, async (request) => ({ settings: catalogue.fileSettings(request.query) }))

  await app.register(sandboxRates)
}

export default defineArea({
  config,
  name: 'catalogue',
  tags: [
    { name: 'Countries', description: 'Countries and their subdivisions, with restrictions.' },
    { name: 'Assets', description: 'Assets and their rates, networks, address validation and rails.' },
    { name: 'Terms of service', description: 'Terms-of-service versions and where they apply.' },
    { name: 'Files', description: 'File upload settings.' }
  ],
  migrations,
  fixtures: catalogueFixtures,
  // A reset deletes the catalogue's rows: the snapshot follows at once.
  // An organization's reset took its pins: the version moves (every replica's snapshot follows).
  reset: async (app, organizationId) => {
    if (organizationId !== undefined) await catalogueStoreOf(app).release(organizationId)
    await catalogueService(app).reload()
  },
  plugin: catalogueRoutes
})
