// The catalogue as the other areas read it: one CatalogueService per database (so per app), made
// on first use through the storage registry. Areas import these functions rather than the
// catalogue's internals; each answers from a snapshot checked against the store first, so another
// replica's fixture or pinned price is seen at once.
import type { FastifyInstance } from 'fastify'
import { CatalogueService } from './service.js'
import { catalogueStore, type CatalogueStore } from './store.js'
import type { Catalogue } from './catalogue.js'
import type { AssetEntry } from './data.js'
import type { Country, CountryRestrictionScope } from '../../schemas/catalogue.js'

const services = new WeakMap<CatalogueStore, CatalogueService>()

/** The catalogue's store (sandbox controls and fixtures write through it). */
export const catalogueStoreOf = (app: FastifyInstance): CatalogueStore => app.storage.store(catalogueStore)

/** The catalogue's operations. */
export function catalogueService (app: FastifyInstance): CatalogueService {
  const store = catalogueStoreOf(app)
  let service = services.get(store)
  if (service === undefined) services.set(store, service = new CatalogueService(store, app.clock, app.config.unsupportedCountries))
  return service
}

/** The catalogue, checked against the store. */
export const catalogueOf = (app: FastifyInstance): Promise<Catalogue> => catalogueService(app).fresh()

/** A country by ISO 3166-1 code, with its restrictions. */
export const findCountry = async (app: FastifyInstance, code: string): Promise<Country | undefined> => (await catalogueOf(app)).country(code)

/** Whether the country exists and has no restriction of this scope (`residence`, `citizenship`, `phone`, `geolocation`). */
export const countryAllows = async (app: FastifyInstance, code: string, scope: CountryRestrictionScope): Promise<boolean> =>
  (await catalogueOf(app)).countryAllows(code, scope)

/** Whether the subdivision is of the country and open to residents. */
export const subdivisionAllowsResidence = async (app: FastifyInstance, country: string, subdivision: string): Promise<boolean> =>
  (await catalogueOf(app)).subdivisionAllowsResidence(country, subdivision)

/** An asset by code (with its decimals and features). */
export const findAsset = async (app: FastifyInstance, code: string): Promise<AssetEntry | undefined> => (await catalogueOf(app)).asset(code)
