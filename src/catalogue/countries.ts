// Countries: every ISO 3166-1 country with its ISO 3166-2 subdivisions (the `iso-3166` package),
// its currency (ISO 4217, the `country-to-currency` package) and its restrictions: a country the
// sandbox does not serve (UNSUPPORTED_COUNTRIES) carries every restriction scope, and each of its
// subdivisions the residence one. Fixtures can restrict more countries and subdivisions.
import { iso31661, iso31662 } from 'iso-3166'
import countryToCurrency from 'country-to-currency'
import { COUNTRY_RESTRICTION_SCOPES, type Country, type CountryRestrictionScope } from '../../schemas/catalogue.js'

/** A fixture's change to a country: its restriction scopes and those of its subdivisions. */
export interface CountryOverride {
  code: string
  restrictions?: CountryRestrictionScope[]
  /** Subdivision code to whether residence there is restricted. */
  subdivisions?: Record<string, boolean>
}

const currencies = countryToCurrency as Record<string, string>

/** Subdivisions by country; a subdivision's country is the first two letters of its code. */
const SUBDIVISIONS = new Map<string, Array<{ code: string, name: string }>>()
for (const s of iso31662) {
  const country = s.code.slice(0, 2)
  let list = SUBDIVISIONS.get(country)
  if (list === undefined) SUBDIVISIONS.set(country, list = [])
  list.push({ code: s.code, name: s.name })
}
for (const list of SUBDIVISIONS.values()) list.sort((a, b) => a.code < b.code ? -1 : a.code > b.code ? 1 : 0)

/** Every country, ordered by code, as the API shows it. */
export function buildCountries (unsupported: readonly string[], overrides: readonly CountryOverride[] = []): Country[] {
  const blocked = new Set(unsupported)
  const changes = new Map(overrides.map(o => [o.code, o]))
  return [...iso31661]
    .sort((a, b) => a.alpha2 < b.alpha2 ? -1 : 1)
    .map(c => {
      const change = changes.get(c.alpha2)
      const all = blocked.has(c.alpha2)
      const scopes: readonly CountryRestrictionScope[] = all ? COUNTRY_RESTRICTION_SCOPES : (change?.restrictions ?? [])
      return {
        code: c.alpha2,
        name: c.name,
        asset: currencies[c.alpha2] ?? 'USD',
        restrictions: COUNTRY_RESTRICTION_SCOPES.filter(s => scopes.includes(s)).map(scope => ({ scope })),
        subdivisions: (SUBDIVISIONS.get(c.alpha2) ?? []).map(s => ({
          code: s.code,
          name: s.name,
          restrictions: all || change?.subdivisions?.[s.code] === true ? [{ scope: 'residence' as const }] : []
        }))
      }
    })
}
