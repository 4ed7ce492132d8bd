import t from 'tap'
import { iso31661, iso31662 } from 'iso-3166'
import { Catalogue, noChanges } from '../../src/catalogue/catalogue.js'
import { buildCountries } from '../../src/catalogue/countries.js'
import { COUNTRY_RESTRICTION_SCOPES } from '../../schemas/catalogue.js'

t.test('every ISO 3166-1 country with every ISO 3166-2 subdivision, ordered by code', async t => {
  const countries = buildCountries([])
  t.equal(countries.length, iso31661.length)
  t.equal(countries.reduce((n, c) => n + c.subdivisions.length, 0), iso31662.length)
  t.same(countries.map(c => c.code), [...countries.map(c => c.code)].sort())
  const gb = countries.find(c => c.code === 'GB')!
  t.equal(gb.asset, 'GBP')
  t.same(gb.restrictions, [])
  t.match(gb.subdivisions.find(s => s.code === 'GB-LND'), { code: 'GB-LND', name: /London/, restrictions: [] })
  t.equal(countries.find(c => c.code === 'US')!.asset, 'USD')
  t.equal(countries.find(c => c.code === 'PT')!.asset, 'EUR')
  t.ok(countries.every(c => /^[A-Z]{3}$/.test(c.asset)), 'each has a currency')
  t.ok(countries.every(c => c.subdivisions.every(s => s.code.startsWith(`${c.code}-`))), 'subdivisions belong to their country')
})

t.test('an unsupported country carries every restriction scope, and its subdivisions the residence one', async t => {
  const catalogue = new Catalogue(['VE', 'CU'])
  const ve = catalogue.country('VE')!
  t.same(ve.restrictions.map(r => r.scope), [...COUNTRY_RESTRICTION_SCOPES])
  t.ok(ve.subdivisions.length > 0 && ve.subdivisions.every(s => s.restrictions.length === 1 && s.restrictions[0].scope === 'residence'))
  t.notOk(catalogue.countryAllows('VE', 'residence'))
  t.notOk(catalogue.countryAllows('CU', 'citizenship'))
  t.ok(catalogue.countryAllows('GB', 'residence'))
  t.notOk(catalogue.countryAllows('ZZ', 'residence'), 'an unknown code allows nothing')
  t.notOk(catalogue.subdivisionAllowsResidence('VE', 'VE-A'))
  t.ok(catalogue.subdivisionAllowsResidence('GB', 'GB-LND'))
  t.notOk(catalogue.subdivisionAllowsResidence('GB', 'US-CA'), 'another country\'s subdivision')
})

t.test('fixtures restrict more countries and subdivisions', async t => {
  const catalogue = new Catalogue([], { ...noChanges(), countries: [{ code: 'US', restrictions: ['phone'], subdivisions: { 'US-NY': true } }] })
  const us = catalogue.country('US')!
  t.same(us.restrictions, [{ scope: 'phone' }])
  t.same(us.subdivisions.find(s => s.code === 'US-NY')!.restrictions, [{ scope: 'residence' }])
  t.same(us.subdivisions.find(s => s.code === 'US-CA')!.restrictions, [])
  t.ok(catalogue.countryAllows('US', 'residence'))
  t.notOk(catalogue.countryAllows('US', 'phone'))
  t.notOk(catalogue.subdivisionAllowsResidence('US', 'US-NY'))
})
