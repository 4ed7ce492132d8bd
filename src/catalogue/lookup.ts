// The catalogue as the other areas read it: one CatalogueService per storage (so per app), made on
// first use. Areas import these functions rather than the catalogue's internals.
import type { FastifyInstance } from 'fastify'
import { CatalogueService } from './service.js'
import { catalogueStore, type CatalogueStore } from './store.js'
import type { Catalogue } from './catalogue.js'
import type { AssetEntry } from './data.js'
import type { Country, CountryRestrictionScope } from '../../schemas/catalogue.js'

interface Held { service: CatalogueService, store: CatalogueStore }
const held = new WeakMap<object, Held>()

function hold (app: FastifyInstance): Held {
  let h = held.get(app.storage)
  if (h === undefined) {
    const store = catalogueStore(app.storage.db)
    h = { store, service: new CatalogueService(store, app.clock, app.config.unsupportedCountries) }
    held.set(app.storage, h)
  }
  return h
}

/** The catalogue's operations. */
export const catalogueService = (app: FastifyInstance): CatalogueService => hold(app).service
/** The catalogue's store (sandbox controls and fixtures write through it). */
export const catalogueStoreOf = (app: FastifyInstance): CatalogueStore => hold(app).store

/**
 * The catalogue snapshot this process holds, synchronously: for checks inside other operations.
 * The catalogue routes, fixtures and sandbox controls refresh it; another replica's writes reach
 * it with the next catalogue read here.
 */
export const catalogueNow = (app: FastifyInstance): Catalogue => hold(app).service.current

/** A country by ISO 3166-1 code, with its restrictions. */
export const findCountry = (app: FastifyInstance, code: string): Country | undefined => catalogueNow(app).country(code)

/** Whether the country exists and has no restriction of this scope (`residence`, `citizenship`, `phone`, `geolocation`). */
export const countryAllows = (app: FastifyInstance, code: string, scope: CountryRestrictionScope): boolean =>
  catalogueNow(app).countryAllows(code, scope)

/** Whether the subdivision is of the country and open to residents. */
export const subdivisionAllowsResidence = (app: FastifyInstance, country: string, subdivision: string): boolean =>
  catalogueNow(app).subdivisionAllowsResidence(country, subdivision)

/** An asset by code (with its decimals and features). */
export const findAsset = (app: FastifyInstance, code: string): AssetEntry | undefined => catalogueNow(app).asset(code)
