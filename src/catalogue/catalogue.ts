// The catalogue as one immutable snapshot: the start data, the entries fixtures added or changed,
// and the pinned prices. Every area reads countries and assets through it (`lookup.ts`), and the
// price model reads it as its PriceSource.
import type { Country, CountryRestrictionScope, Network, Rail } from '../../schemas/catalogue.js'
import { ASSETS, NETWORKS, RAILS, type AssetEntry, type NetworkEntry } from './data.js'
import { buildCountries, type CountryOverride } from './countries.js'
import type { Pin, PriceSource } from './prices.js'

/** What fixtures and the sandbox controls changed, as the store keeps it. */
export interface CatalogueChanges {
  assets: AssetEntry[]
  networks: NetworkEntry[]
  rails: Rail[]
  countries: CountryOverride[]
  /** The pin in force now, by asset. */
  pins: Record<string, Pin>
  /** Every pin of each asset, oldest first (absent or empty: the one of `pins`). */
  pinHistory: Record<string, Pin[]>
  /** Organizations' own pins, which replace the ones above for the assets they pinned. */
  organizationPins: Record<string, { pins: Record<string, Pin>, pinHistory: Record<string, Pin[]> }>
}

export const noChanges = (): CatalogueChanges => ({ assets: [], networks: [], rails: [], countries: [], pins: {}, pinHistory: {}, organizationPins: {} })

interface Pins { current: Map<string, Pin>, history: Map<string, Pin[]> }

const pinsOf = (pins: Record<string, Pin>, pinHistory: Record<string, Pin[]>): Pins => ({
  current: new Map(Object.entries(pins)),
  history: new Map(Object.entries(pins).map(([code, pin]) => {
    const history = pinHistory[code] ?? []
    return [code, history.length > 0 ? history : [pin]]
  }))
})

/** A rail is known by its network, method and asset: a fixture's rail with the same three replaces it. */
export const railKey = (r: Pick<Rail, 'network' | 'method' | 'asset'>): string => `${r.network} ${r.method} ${r.asset}`

const byCode = <T extends { code: string }>(base: T[], changes: T[]): Map<string, T> => {
  const map = new Map(base.map(e => [e.code, e]))
  for (const e of changes) map.set(e.code, e)
  return map
}

export class Catalogue implements PriceSource {
  readonly #assets: Map<string, AssetEntry>
  readonly #networks: Map<string, NetworkEntry>
  readonly #rails: Rail[]
  readonly #countries: Map<string, Country>
  readonly #countryList: Country[]
  readonly #pins: Pins
  readonly #organizationPins: Map<string, Pins>
  /** The organization whose prices are asked for (the sandbox clock's current one). */
  readonly #organization: () => string | undefined

  constructor (unsupportedCountries: readonly string[], changes: CatalogueChanges = noChanges(), organization: () => string | undefined = () => undefined) {
    this.#organization = organization
    this.#assets = byCode(ASSETS, changes.assets)
    this.#networks = byCode(NETWORKS, changes.networks)
    const rails = new Map(RAILS.map(r => [railKey(r), r]))
    for (const r of changes.rails) rails.set(railKey(r), r)
    this.#rails = [...rails.values()]
    this.#countryList = buildCountries(unsupportedCountries, changes.countries)
    this.#countries = new Map(this.#countryList.map(c => [c.code, c]))
    this.#pins = pinsOf(changes.pins, changes.pinHistory)
    this.#organizationPins = new Map(Object.entries(changes.organizationPins).map(([id, own]) => [id, pinsOf(own.pins, own.pinHistory)]))
  }

  // ---- Assets and prices ----

  asset (code: string): AssetEntry | undefined { return this.#assets.get(code) }
  assets (): AssetEntry[] { return [...this.#assets.values()] }
  /** The pins that price an asset for the current organization: its own of the asset, else every organization's. */
  #pinsFor (code: string): Pins {
    const organization = this.#organization()
    const own = organization === undefined ? undefined : this.#organizationPins.get(organization)
    return own !== undefined && own.history.has(code) ? own : this.#pins
  }

  pin (code: string): Pin | undefined { return this.#pinsFor(code).current.get(code) }
  /** The pin in force at an instant: the asset's last one pinned at or before it. */
  pinAt (code: string, ms: number): Pin | undefined {
    const history = this.#pinsFor(code).history.get(code)
    if (history === undefined) return undefined
    for (let i = history.length - 1; i >= 0; i--) if (history[i].pinnedAt <= ms) return history[i]
    return undefined
  }

  /** The pins of one organization (its own only), or (undefined) those for every organization. */
  pins (organizationId?: string): Array<[string, Pin]> {
    const pins = organizationId === undefined ? this.#pins : this.#organizationPins.get(organizationId)
    return pins === undefined ? [] : [...pins.current.entries()]
  }

  // ---- Networks and rails ----

  network (code: string): NetworkEntry | undefined { return this.#networks.get(code) }
  networks (): NetworkEntry[] { return [...this.#networks.values()] }
  rails (): Rail[] { return this.#rails }

  // ---- Countries ----

  country (code: string): Country | undefined { return this.#countries.get(code) }
  countries (): Country[] { return this.#countryList }

  /** Whether the country exists and has no restriction of this scope. */
  countryAllows (code: string, scope: CountryRestrictionScope): boolean {
    const country = this.#countries.get(code)
    return country !== undefined && !country.restrictions.some(r => r.scope === scope)
  }

  /** Whether the subdivision belongs to the country and residence there is not restricted. */
  subdivisionAllowsResidence (country: string, subdivision: string): boolean {
    const found = this.#countries.get(country)?.subdivisions.find(s => s.code === subdivision)
    return found !== undefined && found.restrictions.length === 0
  }
}

/** The network as the API shows it (without the validator's name). */
export function networkView (entry: NetworkEntry): Network {
  const { validator: _validator, ...network } = entry
  return network
}
