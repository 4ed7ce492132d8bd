// The catalogue's operations, as the routes call them: answers in the API's shapes, and the API's
// errors thrown. The catalogue itself is an immutable snapshot, rebuilt when the store's version
// moves (a fixture, a pinned or released price, a reset).
import { ApiError, conflict, entityNotFound } from '../errors.js'
import type { Clock } from '../clock.js'
import type {
  AddressValidation, Asset, AssetListQuery, Country, FileCategory, FileSettingsQuery, HistoricalRatesQuery, Network,
  NetworkListQuery, Rail, RailListQuery, Rate, RateInterval, TermsOfService, TermsOfServiceCode, TermsOfServiceListQuery
} from '../../schemas/catalogue.js'
import { Catalogue, networkView, type CatalogueChanges } from './catalogue.js'
import { FILE_SETTINGS, FILE_SETTINGS_ORDER, TERMS_OF_SERVICE, type AssetEntry } from './data.js'
import { crossRate, history, marketCap, priceDelta, usdMid, type HistoryPoint } from './prices.js'
import { validateAddress } from './addresses.js'
import { compareText } from './collate.js'
import type { Decimal } from '../money/decimal.js'

/** What the service reads of the area's store. */
export interface CatalogueChangeStore {
  /** A token that changes on every write (a reset empties it). */
  version: () => Promise<string>
  load: () => Promise<{ version: string, changes: CatalogueChanges }>
}

export const assetNotFound = (): ApiError => entityNotFound('asset')
export const assetPairNotSupported = (): ApiError => conflict('asset_pair_not_supported', 'Rates are not available for the requested asset pair')

/** The asset as the API shows it; `cooldowns` are a user's, and a client has none. */
export function assetView (entry: AssetEntry): Asset {
  const view: Asset = { code: entry.code, name: entry.name, type: entry.type, decimals: entry.decimals, features: entry.features, cooldowns: [] }
  if (entry.symbol !== undefined) view.symbol = entry.symbol
  return view
}

type SortKey = (entry: AssetEntry) => Decimal | string | undefined

export class CatalogueService {
  readonly #store: CatalogueChangeStore
  readonly #clock: Clock
  readonly #unsupported: readonly string[]
  #version: string | undefined
  // The snapshot this process answers from. It stays right when another replica writes: every
  // operation first compares the store's version with the one it was built from (`fresh`).
  #catalogue: Catalogue

  constructor (store: CatalogueChangeStore, clock: Clock, unsupportedCountries: readonly string[]) {
    this.#store = store
    this.#clock = clock
    this.#unsupported = unsupportedCountries
    this.#catalogue = new Catalogue(unsupportedCountries, undefined, () => clock.organization)
  }

  // Answers computed from the price model for one snapshot and one instant: requests within the
  // same millisecond (or under a frozen clock) share them. A new snapshot or instant drops them.
  #memo: { catalogue: Catalogue, ms: number, answers: Map<string, unknown> } | undefined

  /** `compute()` for this snapshot and instant, made once per key. */
  #priced<T> (catalogue: Catalogue, ms: number, key: string, compute: () => T): T {
    if (this.#memo === undefined || this.#memo.catalogue !== catalogue || this.#memo.ms !== ms) this.#memo = { catalogue, ms, answers: new Map() }
    // Each organization has its own pins: its answers are its own.
    const own = `${this.#clock.organization ?? ''} ${key}`
    let answer = this.#memo.answers.get(own) as T | undefined
    if (answer === undefined) {
      answer = compute()
      this.#memo.answers.set(own, answer)
    }
    return answer
  }

  /** The snapshot after making sure it matches the store. */
  async fresh (): Promise<Catalogue> {
    const version = await this.#store.version()
    if (version !== this.#version) await this.reload()
    return this.#catalogue
  }

  /** Rebuilds the snapshot from the store. */
  async reload (): Promise<void> {
    const { version, changes } = await this.#store.load()
    this.#catalogue = new Catalogue(this.#unsupported, changes, () => this.#clock.organization)
    this.#version = version
  }

  // ---- Countries ----

  async listCountries (): Promise<Country[]> {
    return (await this.fresh()).countries()
  }

  async getCountry (code: string): Promise<Country> {
    const country = (await this.fresh()).country(code)
    if (country === undefined) throw entityNotFound('country')
    return country
  }

  // ---- Assets ----

  async listAssets (query: AssetListQuery): Promise<Asset[]> {
    const catalogue = await this.fresh()
    const now = this.#clock.now()
    return this.#priced(catalogue, now, `assets ${query.type?.join(',') ?? ''} ${query.sort ?? ''}`, () => this.#listAssets(catalogue, now, query))
  }

  #listAssets (catalogue: Catalogue, now: number, query: AssetListQuery): Asset[] {
    const types = query.type
    const entries = catalogue.assets().filter(a => types === undefined || types.includes(a.type))
    const [field, direction, interval] = (query.sort ?? 'code:asc').split(':')
    const keys: Record<string, SortKey> = {
      code: a => a.code,
      name: a => a.name,
      price: a => usdMid(catalogue, a.code, now),
      'price-delta': a => priceDelta(catalogue, a.code, interval as RateInterval, now),
      'market-cap': a => marketCap(catalogue, a.code, now)
    }
    const key = keys[field]
    const sign = direction === 'desc' ? -1 : 1
    const keyed = entries.map(entry => ({ entry, key: key(entry) }))
    keyed.sort((x, y) => {
      // Assets without a price (or a supply) come last in either direction.
      if (x.key === undefined || y.key === undefined) {
        if (x.key !== y.key) return x.key === undefined ? 1 : -1
      } else {
        const c = typeof x.key === 'string' ? compareText(x.key, y.key as string) : x.key.comparedTo(y.key as Decimal)
        if (c !== 0) return sign * c
      }
      return x.entry.code < y.entry.code ? -1 : x.entry.code > y.entry.code ? 1 : 0
    })
    return keyed.map(k => assetView(k.entry))
  }

  async getManyAssets (codes: string[]): Promise<Record<string, Asset>> {
    const catalogue = await this.fresh()
    const out: Record<string, Asset> = {}
    for (const code of codes) {
      const entry = catalogue.asset(code)
      if (entry !== undefined) out[code] = assetView(entry)
    }
    return out
  }

  async getAsset (code: string): Promise<Asset> {
    const entry = (await this.fresh()).asset(code)
    if (entry === undefined) throw assetNotFound()
    return assetView(entry)
  }

  /** One unit of the asset in each denomination (every other priced asset by default). */
  async getRates (code: string, denominations?: string[]): Promise<Record<string, Rate>> {
    const catalogue = await this.fresh()
    if (catalogue.asset(code) === undefined) throw assetNotFound()
    const now = this.#clock.now()
    return this.#priced(catalogue, now, `rates ${code} ${denominations?.join(',') ?? ''}`, () => this.#rates(catalogue, now, code, denominations))
  }

  #rates (catalogue: Catalogue, now: number, code: string, denominations?: string[]): Record<string, Rate> {
    const wanted = denominations ?? catalogue.assets().filter(a => a.code !== code && usdMid(catalogue, a.code, now) !== undefined).map(a => a.code)
    const rates: Record<string, Rate> = {}
    for (const d of wanted) {
      const rate = crossRate(catalogue, code, d, now)
      if (rate === undefined) throw assetPairNotSupported()
      rates[d] = rate
    }
    if (denominations === undefined && Object.keys(rates).length === 0) throw assetPairNotSupported()
    return rates
  }

  /** The asset's mid in the denomination over the interval that ends now, by denomination. */
  async getHistoricalRates (code: string, query: HistoricalRatesQuery): Promise<Record<string, HistoryPoint[]>> {
    const catalogue = await this.fresh()
    const denomination = query.denomination ?? 'USD'
    const asset = catalogue.asset(code)
    if (asset === undefined) throw new ApiError(404, 'entity_not_found', 'The asset cannot be found', { context: 'path', entity: 'asset' })
    const quote = catalogue.asset(denomination)
    if (quote === undefined) {
      throw new ApiError(404, 'entity_not_found', 'The asset cannot be found', { context: 'query', property: 'denomination', entity: 'asset' })
    }
    const priced = (a: AssetEntry): boolean => a.usdPrice !== undefined || catalogue.pin(a.code) !== undefined
    if (!priced(asset)) throw conflict('asset_not_supported', 'The asset is not supported', { context: 'path', property: 'asset' })
    if (!priced(quote)) throw conflict('asset_not_supported', 'The asset is not supported', { context: 'query', property: 'denomination' })
    return { [denomination]: history(catalogue, code, denomination, query.interval ?? 'one-day', this.#clock.now()) }
  }

  // ---- Networks and rails ----

  async listNetworks (query: NetworkListQuery): Promise<Network[]> {
    const types = query.type
    return (await this.fresh()).networks().filter(n => types === undefined || types.includes(n.type)).map(networkView)
  }

  async getNetwork (code: string): Promise<Network> {
    const network = (await this.fresh()).network(code)
    if (network === undefined) throw entityNotFound('network')
    return networkView(network)
  }

  async validateNetworkAddress (code: string, address: string, reference?: string): Promise<AddressValidation> {
    const network = (await this.fresh()).network(code)
    if (network === undefined) throw entityNotFound('network')
    if (network.type !== 'crypto') throw conflict('operation_not_allowed', 'Network must be a crypto network')
    return validateAddress(network, address, reference)
  }

  async listRails (query: RailListQuery): Promise<Rail[]> {
    const { type, network, method, asset } = query
    return (await this.fresh()).rails().filter(r =>
      (type === undefined || type.includes(r.type)) &&
      (network === undefined || network.includes(r.network)) &&
      (method === undefined || method.includes(r.method)) &&
      (asset === undefined || asset.includes(r.asset)))
  }

  // ---- Terms of service and file settings ----

  listTermsOfService (query: TermsOfServiceListQuery): TermsOfService[] {
    const { type, country, userType } = query
    const listed = new Set(TERMS_OF_SERVICE.filter(t => t.type === 'general').flatMap(t => t.countries ?? []))
    return TERMS_OF_SERVICE.filter(t =>
      (type === undefined || t.type === type) &&
      (userType === undefined || t.userTypes === undefined || t.userTypes.includes(userType)) &&
      // General terms without countries cover every country that no other general terms list.
      (country === undefined || (t.countries === undefined ? !listed.has(country) : t.countries.includes(country))))
  }

  getTermsOfService (code: TermsOfServiceCode): TermsOfService {
    return TERMS_OF_SERVICE.find(t => t.code === code)!
  }

  fileSettings (query: FileSettingsQuery): Partial<Record<FileCategory, typeof FILE_SETTINGS[FileCategory]>> {
    const wanted = query.category ?? FILE_SETTINGS_ORDER
    return Object.fromEntries(FILE_SETTINGS_ORDER.filter(c => wanted.includes(c)).map(c => [c, FILE_SETTINGS[c]]))
  }
}
