// The catalogue's contract: countries, assets, networks, rails, rates, terms of service and file
// settings, as the Core API shows them, plus the sandbox controls that change them (pinned rates,
// fixture entries). Shapes are shared by the routes and by the other areas that read the catalogue.
import { Type, type Static } from 'typebox'
import { Timestamp, Uuid } from './common.js'

const Strict = { additionalProperties: false }

// ---- Countries ----

export const COUNTRY_RESTRICTION_SCOPES = ['citizenship', 'geolocation', 'phone', 'residence'] as const
export type CountryRestrictionScope = typeof COUNTRY_RESTRICTION_SCOPES[number]

export const CountryRestriction = Type.Object({
  scope: Type.Enum(COUNTRY_RESTRICTION_SCOPES, { description: 'What the restriction forbids: a citizenship, a location, a phone number or a residence in the country.' })
})

export const Subdivision = Type.Object({
  code: Type.String({ description: 'ISO 3166-2 code.' }),
  name: Type.String(),
  restrictions: Type.Array(Type.Object({ scope: Type.Enum(['residence']) }), { description: 'A `residence` restriction: users cannot live there.' })
})

export const Country = Type.Object({
  code: Type.String({ description: 'ISO 3166-1 alpha-2 code.' }),
  name: Type.String({ description: 'The ISO 3166-1 name.' }),
  asset: Type.String({ description: 'The country\'s currency (ISO 4217 code); an asset of the catalogue where the catalogue has it.' }),
  restrictions: Type.Array(CountryRestriction),
  subdivisions: Type.Array(Subdivision)
}, { $id: 'Country' })
export type Country = Static<typeof Country>

export const CountryParams = Type.Object({
  country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code.' })
})
export type CountryParams = Static<typeof CountryParams>
export const CountryList = Type.Object({ countries: Type.Array(Type.Ref('Country')) })
export const CountryAnswer = Type.Object({ country: Type.Ref('Country') })

// ---- Assets ----

export const ASSET_TYPES = ['fiat', 'crypto'] as const
export const ASSET_FEATURES = ['buy', 'sell', 'transfer', 'withdraw', 'deposit'] as const
export type AssetFeature = typeof ASSET_FEATURES[number]

export const AssetCooldown = Type.Object({
  rule: Type.Enum(['financial-promotions']),
  features: Type.Array(Type.Enum(ASSET_FEATURES)),
  endsAt: Timestamp
})

export const Asset = Type.Object({
  code: Type.String(),
  name: Type.String(),
  type: Type.Enum(ASSET_TYPES),
  symbol: Type.Optional(Type.String()),
  decimals: Type.Integer({ minimum: 0, description: 'Decimal places of amounts of this asset.' }),
  features: Type.Array(Type.Enum(ASSET_FEATURES)),
  cooldowns: Type.Array(AssetCooldown, { description: 'Features a user cannot use yet (empty for a client).' })
}, { $id: 'Asset' })
export type Asset = Static<typeof Asset>

export const ASSET_SORTS = [
  'code:asc', 'code:desc', 'name:asc', 'name:desc', 'price:asc', 'price:desc',
  ...(['asc', 'desc'] as const).flatMap(d => ['one-hour', 'one-day', 'one-week', 'one-month', 'one-year', 'five-years'].map(i => `price-delta:${d}:${i}`)),
  'market-cap:asc', 'market-cap:desc'
]

export const AssetParams = Type.Object({ asset: Type.String({ minLength: 1, description: 'Asset code.' }) })
export type AssetParams = Static<typeof AssetParams>
export const AssetListQuery = Type.Object({
  type: Type.Optional(Type.Array(Type.Enum(ASSET_TYPES), { uniqueItems: true, maxItems: 25, description: 'Comma-separated asset types.' })),
  sort: Type.Optional(Type.Enum(ASSET_SORTS, {
    default: 'code:asc',
    description: 'Order: by code, name, USD mid price, change of the USD mid price over an interval (`price-delta`) or market capitalisation in USD.'
  }))
})
export type AssetListQuery = Static<typeof AssetListQuery>
export const AssetList = Type.Object({ assets: Type.Array(Type.Ref('Asset')) })
export const AssetAnswer = Type.Object({ asset: Type.Ref('Asset') })
export const ManyAssetsRequest = Type.Object({
  codes: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 100, description: 'Asset codes; unknown ones are left out of the answer.' })
}, { examples: [{ codes: ['BTC', 'ETH'] }] })
export type ManyAssetsRequest = Static<typeof ManyAssetsRequest>
export const ManyAssets = Type.Object({ assets: Type.Record(Type.String(), Type.Ref('Asset'), { description: 'The known assets, by code.' }) })

// ---- Rates ----

export const Rate = Type.Object({
  bid: Type.Optional(Type.String({ description: 'What one unit of the asset sells for, in the denomination.' })),
  ask: Type.Optional(Type.String({ description: 'What one unit of the asset costs, in the denomination.' })),
  mid: Type.String({ description: 'The middle price.' })
}, { $id: 'Rate' })
export type Rate = Static<typeof Rate>

export const RATE_INTERVALS = ['one-hour', 'one-day', 'one-week', 'one-month', 'one-year', 'five-years'] as const
export type RateInterval = typeof RATE_INTERVALS[number]

export const RatesQuery = Type.Object({
  denomination: Type.Optional(Type.Array(Type.String({ minLength: 1 }), {
    uniqueItems: true, maxItems: 100, description: 'Comma-separated asset codes to price the asset in; absent: every other priced asset.'
  }))
})
export type RatesQuery = Static<typeof RatesQuery>
export const Rates = Type.Object({ rates: Type.Record(Type.String(), Type.Ref('Rate'), { description: 'The rate of one unit of the asset, by denomination.' }) })

export const HistoricalRatesQuery = Type.Object({
  denomination: Type.Optional(Type.String({ minLength: 1, default: 'USD' })),
  interval: Type.Optional(Type.Enum(RATE_INTERVALS, { default: 'one-day', description: 'The period that ends at the sandbox clock\'s now.' }))
})
export type HistoricalRatesQuery = Static<typeof HistoricalRatesQuery>
export const HistoricalRates = Type.Object({
  historicalRates: Type.Record(Type.String(), Type.Array(Type.Object({
    rate: Type.Optional(Type.Ref('Rate')),
    timestamp: Timestamp
  })), { minProperties: 1, description: 'The rates of the asset over the interval, oldest first, by denomination.' })
})

// ---- Networks and rails ----

export const NETWORK_TYPES = ['crypto', 'card', 'bank', 'apm'] as const
export type NetworkType = typeof NETWORK_TYPES[number]

export const Network = Type.Object({
  code: Type.String(),
  name: Type.String(),
  type: Type.Enum(NETWORK_TYPES),
  exampleAddress: Type.Optional(Type.String({ description: 'Crypto networks: an address of the network (test network where it has one).' })),
  reference: Type.Optional(Type.Object({
    type: Type.Enum(['destination-tag', 'memo', 'payment-reference'])
  }, { description: 'The kind of reference a transfer on the network can carry.' })),
  explorer: Type.Optional(Type.Object({ addressUrl: Type.String(), txUrl: Type.String() }, { description: 'Crypto networks: explorer URL templates (`<hash>`).' }))
}, { $id: 'Network' })
export type Network = Static<typeof Network>

export const NetworkParams = Type.Object({ network: Type.String({ minLength: 1 }) })
export type NetworkParams = Static<typeof NetworkParams>
export const NetworkListQuery = Type.Object({
  type: Type.Optional(Type.Array(Type.Enum(NETWORK_TYPES), { uniqueItems: true, maxItems: 25, description: 'Comma-separated network types.' }))
})
export type NetworkListQuery = Static<typeof NetworkListQuery>
export const NetworkList = Type.Object({ networks: Type.Array(Type.Ref('Network')) })
export const NetworkAnswer = Type.Object({ network: Type.Ref('Network') })

const Trimmed = Type.String({ pattern: '^\\S.*\\S$|^\\S$' })
export const ValidateAddressRequest = Type.Object({
  address: Trimmed,
  reference: Type.Optional(Trimmed)
}, { examples: [{ address: 'tb1qgu0gacn9pqpnvlqclvdwyz4gfgxz8pptfz4emt' }] })
export type ValidateAddressRequest = Static<typeof ValidateAddressRequest>
export const AddressValidation = Type.Object({
  isValid: Type.Boolean(),
  error: Type.Optional(Type.Object({
    code: Type.Enum(['address_invalid', 'reference_invalid', 'reference_missing']),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
  }))
})
export type AddressValidation = Static<typeof AddressValidation>

export const RAIL_METHODS = ['crypto-transaction', 'credit-card', 'debit-card', 'bank-transfer', 'apple-pay', 'paypal', 'venmo'] as const
export const RAIL_FEATURES = ['withdraw', 'deposit'] as const

export const Rail = Type.Object({
  type: Type.Enum(NETWORK_TYPES),
  network: Type.String(),
  method: Type.Enum(RAIL_METHODS),
  asset: Type.String(),
  decimals: Type.Integer({ minimum: 0 }),
  features: Type.Array(Type.Enum(RAIL_FEATURES)),
  contractAddress: Type.Optional(Type.String({ description: 'Crypto rails of tokens: the token contract.' })),
  constraints: Type.Optional(Type.Array(Type.Object({
    rule: Type.Enum(['allowed-deposit-accounts']),
    allowed: Type.Enum(['default-only'])
  }), { description: 'Bank rails: deposits only to the default account of the asset.' }))
}, { $id: 'Rail' })
export type Rail = Static<typeof Rail>

const CodeList = (description: string) => Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true, maxItems: 100, description })
export const RailListQuery = Type.Object({
  type: Type.Optional(Type.Array(Type.Enum(NETWORK_TYPES), { uniqueItems: true, maxItems: 25, description: 'Comma-separated rail types.' })),
  network: Type.Optional({ ...CodeList('Comma-separated network codes.'), maxItems: 25 }),
  method: Type.Optional(Type.Array(Type.Enum(RAIL_METHODS), { uniqueItems: true, maxItems: 25, description: 'Comma-separated methods.' })),
  asset: Type.Optional(CodeList('Comma-separated asset codes.'))
})
export type RailListQuery = Static<typeof RailListQuery>
export const RailList = Type.Object({ rails: Type.Array(Type.Ref('Rail')) })

// ---- Terms of service ----

export const TERMS_OF_SERVICE_CODES = ['general-us-hq', 'general-gb-fca', 'general-pt-bop', 'general-lt-fcs', 'general-bs-scb', 'unique-account-number-viban'] as const
export type TermsOfServiceCode = typeof TERMS_OF_SERVICE_CODES[number]
export const TERMS_OF_SERVICE_TYPES = ['general', 'unique-account-number'] as const
export const USER_TYPES = ['individual', 'business'] as const

export const TermsOfService = Type.Object({
  code: Type.Enum(TERMS_OF_SERVICE_CODES),
  type: Type.Enum(TERMS_OF_SERVICE_TYPES),
  countries: Type.Optional(Type.Array(Type.String(), { description: 'Countries of residence the terms apply to.' })),
  userTypes: Type.Optional(Type.Array(Type.Enum(USER_TYPES), { description: 'Kinds of user the terms apply to (all when absent).' })),
  modifiedAt: Timestamp,
  acceptedAt: Type.Optional({ ...Timestamp, description: 'When the acting user accepted them; absent for a client.' })
}, { $id: 'TermsOfService' })
export type TermsOfService = Static<typeof TermsOfService>

export const TermsOfServiceParams = Type.Object({ termsOfService: Type.Enum(TERMS_OF_SERVICE_CODES) })
export type TermsOfServiceParams = Static<typeof TermsOfServiceParams>
export const TermsOfServiceListQuery = Type.Object({
  type: Type.Optional(Type.Enum(TERMS_OF_SERVICE_TYPES)),
  country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  userType: Type.Optional(Type.Enum(USER_TYPES))
})
export type TermsOfServiceListQuery = Static<typeof TermsOfServiceListQuery>
export const TermsOfServiceList = Type.Object({ termsOfService: Type.Array(Type.Ref('TermsOfService')) })
export const TermsOfServiceAnswer = Type.Object({ termsOfService: Type.Ref('TermsOfService') })

// ---- File settings ----

export const FILE_CATEGORIES = ['document', 'image', 'video'] as const
export type FileCategory = typeof FILE_CATEGORIES[number]
export const FileCategorySettings = Type.Object({
  allowedContentTypes: Type.Array(Type.String()),
  minFileSize: Type.Integer({ description: 'Bytes.' }),
  maxFileSize: Type.Integer({ description: 'Bytes.' }),
  expiresIn: Type.Integer({ description: 'Seconds an upload link stays valid.' })
})
export const FileSettingsQuery = Type.Object({
  category: Type.Optional(Type.Array(Type.Enum(FILE_CATEGORIES), { uniqueItems: true, maxItems: 3, description: 'Comma-separated categories.' }))
})
export type FileSettingsQuery = Static<typeof FileSettingsQuery>
export const FileSettings = Type.Object({ settings: Type.Record(Type.String(), FileCategorySettings, { description: 'Settings by file category.' }) })

// ---- Sandbox controls ----

export const PinRateRequest = Type.Object({
  asset: Type.String({ minLength: 1, description: 'The asset whose USD mid price is pinned.' }),
  mid: Type.String({ pattern: '^(?!0+(\\.0+)?$)\\d+(\\.\\d+)?$', maxLength: 60, description: 'The USD mid price, a positive decimal string.' })
}, { ...Strict, examples: [{ asset: 'BTC', mid: '50000' }] })
export type PinRateRequest = Static<typeof PinRateRequest>
export const PinnedRate = Type.Object({ asset: Type.String(), mid: Type.String(), pinnedAt: Timestamp })
export const PinnedRates = Type.Object({ rates: Type.Array(PinnedRate) })
export const ReleaseRatesQuery = Type.Object({
  asset: Type.Optional(Type.String({ minLength: 1, description: 'Release only this asset; absent: every pinned price.' })),
  organizationId: Type.Optional({ ...Uuid, description: 'The admin token: release only this organization\'s pins.' })
}, Strict)
export type ReleaseRatesQuery = Static<typeof ReleaseRatesQuery>

// ---- Fixture keys (POST /_sandbox/fixtures, SEED_FILE) ----

const Amount = Type.String({ pattern: '^(?!0+(\\.0+)?$)\\d+(\\.\\d+)?$', maxLength: 60 })

export const FixtureAssets = Type.Array(Type.Object({
  code: Type.String({ pattern: '^[A-Z0-9]{2,12}$', description: 'A new code adds an asset; an existing one replaces it.' }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.Enum(ASSET_TYPES),
  symbol: Type.Optional(Type.String({ minLength: 1, maxLength: 8 })),
  decimals: Type.Integer({ minimum: 0, maximum: 30 }),
  features: Type.Optional(Type.Array(Type.Enum(ASSET_FEATURES), { uniqueItems: true, description: 'Default: none.' })),
  usdPrice: Type.Optional({ ...Amount, description: 'The USD mid price the model moves around; absent: the asset has no rates (until pinned).' }),
  volatility: Type.Optional(Type.Number({ minimum: 0, maximum: 2, description: 'How far the curve moves the price (largest change of its logarithm); default 0.03 for fiat, 0.35 for crypto.' })),
  supply: Type.Optional({ ...Amount, description: 'Units in circulation, for the `market-cap` sort.' })
}, Strict), { maxItems: 1000 })

export const FixtureNetworks = Type.Array(Type.Object({
  code: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,39}$' }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.Enum(NETWORK_TYPES),
  exampleAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  reference: Type.Optional(Type.Object({ type: Type.Enum(['destination-tag', 'memo', 'payment-reference']) }, Strict)),
  explorer: Type.Optional(Type.Object({ addressUrl: Type.String({ maxLength: 500 }), txUrl: Type.String({ maxLength: 500 }) }, Strict)),
  validator: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'The address validator\'s name for the network\'s coin (`btc`, `eth`, ...); absent: the code; unknown: any address passes.' }))
}, Strict), { maxItems: 1000 })

export const FixtureRails = Type.Array(Type.Object({
  type: Type.Enum(NETWORK_TYPES),
  network: Type.String({ minLength: 1 }),
  method: Type.Enum(RAIL_METHODS),
  asset: Type.String({ minLength: 1 }),
  decimals: Type.Integer({ minimum: 0, maximum: 30 }),
  features: Type.Array(Type.Enum(RAIL_FEATURES), { uniqueItems: true }),
  contractAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  constraints: Type.Optional(Type.Array(Type.Object({ rule: Type.Enum(['allowed-deposit-accounts']), allowed: Type.Enum(['default-only']) }, Strict), { maxItems: 1 }))
}, { ...Strict, description: 'A rail with the network, method and asset of an existing one replaces it.' }), { maxItems: 1000 })

export const FixtureCountries = Type.Array(Type.Object({
  code: Type.String({ pattern: '^[A-Z]{2}$' }),
  restrictions: Type.Optional(Type.Array(Type.Enum(COUNTRY_RESTRICTION_SCOPES), { uniqueItems: true, description: 'The country\'s restriction scopes (replacing its own; a country in UNSUPPORTED_COUNTRIES keeps all).' })),
  subdivisions: Type.Optional(Type.Array(Type.Object({
    code: Type.String({ pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$' }),
    restrictions: Type.Array(Type.Enum(['residence']), { uniqueItems: true, description: '`["residence"]` closes it to residents; `[]` opens it.' })
  }, Strict), { maxItems: 500 }))
}, Strict), { maxItems: 300 })

/** The catalogue's keys of a fixture document: entries to add or change, loaded with the rest of it or not at all. */
export const CatalogueFixture = Type.Object({
  assets: Type.Optional(FixtureAssets),
  networks: Type.Optional(FixtureNetworks),
  rails: Type.Optional(FixtureRails),
  countries: Type.Optional(FixtureCountries)
})
export type CatalogueFixture = Static<typeof CatalogueFixture>
