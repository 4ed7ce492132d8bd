// The catalogue's fixture keys (`assets`, `networks`, `rails`, `countries`): checked against the
// catalogue and each other, reported as violations of their paths, and loaded all or nothing.
import type { FastifyInstance } from 'fastify'
import { iso31662 } from 'iso-3166'
import type { Violation } from '../errors.js'
import type { CatalogueFixture, NetworkType, Rail } from '../../schemas/catalogue.js'
import { railKey } from './catalogue.js'
import { isIsoCountry } from './countries.js'
import type { CatalogueEntries } from './store.js'
import { catalogueService, catalogueStoreOf } from './lookup.js'

const SUBDIVISIONS = new Set(iso31662.map(s => s.code))

/** The methods each kind of rail moves money by. */
const METHODS: Record<NetworkType, readonly Rail['method'][]> = {
  crypto: ['crypto-transaction'],
  card: ['credit-card', 'debit-card'],
  bank: ['bank-transfer'],
  apm: ['apple-pay', 'paypal', 'venmo']
}
const REFERENCES: Record<NetworkType, readonly string[]> = { crypto: ['destination-tag', 'memo'], bank: ['payment-reference'], card: [], apm: [] }

export type CatalogueFixtureCheck = { ok: false, violations: Violation[] } | { ok: true, entries: CatalogueEntries }

/** Checks a fixture's catalogue keys (already valid against CatalogueFixture). */
export async function checkCatalogueFixture (app: FastifyInstance, doc: CatalogueFixture): Promise<CatalogueFixtureCheck> {
  const catalogue = await catalogueService(app).fresh()
  const violations: Violation[] = []
  const bad = (property: string, rule: string, ruleParams?: Record<string, unknown>): void => {
    violations.push(ruleParams === undefined ? { property, rule } : { property, rule, ruleParams })
  }
  const entries: CatalogueEntries = { assets: [], networks: [], rails: [], countries: [] }

  const assets = new Set<string>()
  for (const [i, a] of (doc.assets ?? []).entries()) {
    if (assets.has(a.code)) { bad(`assets.${i}.code`, 'unique'); continue }
    assets.add(a.code)
    const volatility = a.volatility ?? (a.type === 'fiat' ? 0.03 : 0.35)
    entries.assets.push({ ...a, features: a.features ?? [], ...(a.usdPrice === undefined ? {} : { volatility }) })
  }

  const networks = new Map<string, NetworkType>()
  for (const [i, n] of (doc.networks ?? []).entries()) {
    if (networks.has(n.code)) { bad(`networks.${i}.code`, 'unique'); continue }
    networks.set(n.code, n.type)
    if (n.reference !== undefined && !REFERENCES[n.type].includes(n.reference.type)) {
      bad(`networks.${i}.reference.type`, 'match', { allowedValues: REFERENCES[n.type] })
    }
    entries.networks.push(n)
  }

  const rails = new Set<string>()
  for (const [i, r] of (doc.rails ?? []).entries()) {
    const key = railKey(r)
    if (rails.has(key)) { bad(`rails.${i}`, 'unique'); continue }
    rails.add(key)
    const networkType = networks.get(r.network) ?? catalogue.network(r.network)?.type
    if (networkType === undefined) bad(`rails.${i}.network`, 'exists', { entity: 'network' })
    else if (networkType !== r.type) bad(`rails.${i}.type`, 'match', { network: networkType })
    if (!assets.has(r.asset) && catalogue.asset(r.asset) === undefined) bad(`rails.${i}.asset`, 'exists', { entity: 'asset' })
    if (!METHODS[r.type].includes(r.method)) bad(`rails.${i}.method`, 'match', { allowedValues: METHODS[r.type] })
    if (r.constraints !== undefined && r.type !== 'bank') bad(`rails.${i}.constraints`, 'match', { type: 'bank' })
    entries.rails.push(r)
  }

  const countries = new Set<string>()
  const changedBefore = (doc.countries ?? []).length === 0 ? [] : (await catalogueStoreOf(app).load()).changes.countries
  for (const [i, c] of (doc.countries ?? []).entries()) {
    if (countries.has(c.code)) { bad(`countries.${i}.code`, 'unique'); continue }
    countries.add(c.code)
    if (!isIsoCountry(c.code)) { bad(`countries.${i}.code`, 'exists', { entity: 'country' }); continue }
    const subdivisions: Record<string, boolean> = {}
    for (const [j, s] of (c.subdivisions ?? []).entries()) {
      if (!SUBDIVISIONS.has(s.code) || !s.code.startsWith(`${c.code}-`)) bad(`countries.${i}.subdivisions.${j}.code`, 'exists', { entity: 'subdivision' })
      else if (s.code in subdivisions) bad(`countries.${i}.subdivisions.${j}.code`, 'unique')
      else subdivisions[s.code] = s.restrictions.length > 0
    }
    // A country a fixture changed before keeps what this fixture does not mention.
    const before = changedBefore.find(o => o.code === c.code)
    entries.countries.push({
      code: c.code,
      restrictions: c.restrictions ?? before?.restrictions ?? [],
      subdivisions: { ...before?.subdivisions, ...subdivisions }
    })
  }

  return violations.length > 0 ? { ok: false, violations } : { ok: true, entries }
}

/** Whether a checked fixture has any catalogue entry. */
export const hasCatalogueEntries = (e: CatalogueEntries): boolean =>
  e.assets.length + e.networks.length + e.rails.length + e.countries.length > 0

/** Loads checked catalogue entries in one transaction and refreshes this process's snapshot. */
export async function loadCatalogueFixture (app: FastifyInstance, entries: CatalogueEntries): Promise<void> {
  if (!hasCatalogueEntries(entries)) return
  await catalogueStoreOf(app).putEntries(entries)
  await catalogueService(app).reload()
}
