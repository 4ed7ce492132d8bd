// The catalogue's fixture keys (`assets`, `networks`, `rails`, `countries`): checked against the
// catalogue and each other, reported as violations of their paths, and written in the fixture's
// one transaction with everything else, or not at all.
import { Type } from 'typebox'
import type { FixtureKey } from '../kit/area.js'
import type { FixtureContext } from '../kit/fixtures.js'
import {
  FixtureAssets, FixtureCountries, FixtureNetworks, FixtureRails, type CatalogueFixture, type NetworkType, type Rail
} from '../../schemas/catalogue.js'
import { railKey, type Catalogue } from './catalogue.js'
import type { CountryOverride } from './countries.js'
import { isCountryCode, isSubdivisionCode } from '../plugins/validation.js'
import type { AssetEntry } from './data.js'
import { catalogueOf, catalogueStoreOf } from './lookup.js'
import type { CatalogueEntries } from './store.js'

/** The methods each kind of rail moves money by, and the references each kind of network takes. */
const METHODS: Record<NetworkType, readonly Rail['method'][]> = {
  crypto: ['crypto-transaction'],
  card: ['credit-card', 'debit-card'],
  bank: ['bank-transfer'],
  apm: ['apple-pay', 'paypal', 'venmo']
}
const REFERENCES: Record<NetworkType, readonly string[]> = { crypto: ['destination-tag', 'memo'], bank: ['payment-reference'], card: [], apm: [] }

/** What the catalogue's keys of one fixture have seen so far: `rails` refers to `assets` and `networks`. */
interface Seen { catalogue: Catalogue, assets: Set<string>, networks: Map<string, NetworkType> }
const seen = new WeakMap<FixtureContext, Seen>()

async function seenBy (context: FixtureContext): Promise<Seen> {
  let s = seen.get(context)
  if (s === undefined) seen.set(context, s = { catalogue: await catalogueOf(context.app), assets: new Set(), networks: new Map() })
  return s
}

/** Plans the entries' write inside the fixture's transaction. */
function load (context: FixtureContext, entries: Partial<CatalogueEntries>): void {
  const store = catalogueStoreOf(context.app)
  context.load(async () => { await store.putEntriesNow({ assets: [], networks: [], rails: [], countries: [], ...entries }) })
}

const Codes = Type.Array(Type.String(), { description: 'Codes added or changed, in fixture order.' })

const assetsKey: FixtureKey = {
  key: 'assets',
  global: true,
  schema: FixtureAssets,
  summary: Codes,
  async check (context, items) {
    const s = await seenBy(context)
    const entries: AssetEntry[] = []
    for (const [i, a] of (items as NonNullable<CatalogueFixture['assets']>).entries()) {
      if (s.assets.has(a.code)) { context.bad(`assets.${i}.code`, 'unique'); continue }
      s.assets.add(a.code)
      const volatility = a.volatility ?? (a.type === 'fiat' ? 0.03 : 0.35)
      entries.push({ ...a, features: a.features ?? [], ...(a.usdPrice === undefined ? {} : { volatility }) })
    }
    if (entries.length > 0) load(context, { assets: entries })
    context.summarize('assets', entries.map(a => a.code))
  }
}

const networksKey: FixtureKey = {
  key: 'networks',
  global: true,
  schema: FixtureNetworks,
  summary: Codes,
  async check (context, items) {
    const s = await seenBy(context)
    const entries: NonNullable<CatalogueFixture['networks']> = []
    for (const [i, n] of (items as NonNullable<CatalogueFixture['networks']>).entries()) {
      if (s.networks.has(n.code)) { context.bad(`networks.${i}.code`, 'unique'); continue }
      s.networks.set(n.code, n.type)
      if (n.reference !== undefined && !REFERENCES[n.type].includes(n.reference.type)) {
        context.bad(`networks.${i}.reference.type`, 'match', { allowedValues: REFERENCES[n.type] })
      }
      entries.push(n)
    }
    if (entries.length > 0) load(context, { networks: entries })
    context.summarize('networks', entries.map(n => n.code))
  }
}

const railsKey: FixtureKey = {
  key: 'rails',
  global: true,
  after: ['assets', 'networks'],
  schema: FixtureRails,
  summary: Type.Array(Type.String(), { description: 'Rails added or changed, as `network method asset`.' }),
  async check (context, items) {
    const s = await seenBy(context)
    const entries: Rail[] = []
    const keys = new Set<string>()
    for (const [i, r] of (items as Rail[]).entries()) {
      const key = railKey(r)
      if (keys.has(key)) { context.bad(`rails.${i}`, 'unique'); continue }
      keys.add(key)
      const networkType = s.networks.get(r.network) ?? s.catalogue.network(r.network)?.type
      if (networkType === undefined) context.bad(`rails.${i}.network`, 'exists', { entity: 'network' })
      else if (networkType !== r.type) context.bad(`rails.${i}.type`, 'match', { network: networkType })
      if (!s.assets.has(r.asset) && s.catalogue.asset(r.asset) === undefined) context.bad(`rails.${i}.asset`, 'exists', { entity: 'asset' })
      if (!METHODS[r.type].includes(r.method)) context.bad(`rails.${i}.method`, 'match', { allowedValues: METHODS[r.type] })
      if (r.constraints !== undefined && r.type !== 'bank') context.bad(`rails.${i}.constraints`, 'match', { type: 'bank' })
      entries.push(r)
    }
    if (entries.length > 0) load(context, { rails: entries })
    context.summarize('rails', entries.map(railKey))
  }
}

const countriesKey: FixtureKey = {
  key: 'countries',
  global: true,
  schema: FixtureCountries,
  summary: Codes,
  async check (context, items) {
    const list = items as NonNullable<CatalogueFixture['countries']>
    // A country a fixture changed before keeps what this fixture does not mention.
    const before = list.length === 0 ? [] : (await catalogueStoreOf(context.app).load()).changes.countries
    const entries: CountryOverride[] = []
    const codes = new Set<string>()
    for (const [i, c] of list.entries()) {
      if (codes.has(c.code)) { context.bad(`countries.${i}.code`, 'unique'); continue }
      codes.add(c.code)
      if (!isCountryCode(c.code)) { context.bad(`countries.${i}.code`, 'exists', { entity: 'country' }); continue }
      const subdivisions: Record<string, boolean> = {}
      for (const [j, sub] of (c.subdivisions ?? []).entries()) {
        if (!isSubdivisionCode(sub.code) || !sub.code.startsWith(`${c.code}-`)) context.bad(`countries.${i}.subdivisions.${j}.code`, 'exists', { entity: 'subdivision' })
        else if (sub.code in subdivisions) context.bad(`countries.${i}.subdivisions.${j}.code`, 'unique')
        else subdivisions[sub.code] = sub.restrictions.length > 0
      }
      const earlier = before.find(o => o.code === c.code)
      entries.push({ code: c.code, restrictions: c.restrictions ?? earlier?.restrictions ?? [], subdivisions: { ...earlier?.subdivisions, ...subdivisions } })
    }
    if (entries.length > 0) load(context, { countries: entries })
    context.summarize('countries', entries.map(c => c.code))
  }
}

export const catalogueFixtures: FixtureKey[] = [assetsKey, networksKey, railsKey, countriesKey]
