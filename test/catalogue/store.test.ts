import t from 'tap'
import { Clock } from '../../src/clock.js'
import { catalogueStore } from '../../src/catalogue/store.js'
import { migrations } from '../../src/catalogue/migrations.js'
import { CatalogueService } from '../../src/catalogue/service.js'
import type { Db } from '../../src/storage/db.js'
import { migrate } from '../../src/storage/migrate.js'
import { emptyDatabase } from '../helpers.js'

interface Teardown { teardown: (fn: () => unknown) => void }

/** A database with the catalogue's tables only, on the suite's backend, closed when the test ends. */
async function catalogueDb (t: Teardown): Promise<Db> {
  const db = await emptyDatabase(t)
  await migrate(db, migrations)
  return db
}

async function open (t: Teardown) {
  const db = await catalogueDb(t)
  const clock = new Clock(() => Date.UTC(2026, 10, 24, 12))
  const store = catalogueStore(db)
  return { db, clock, store, service: new CatalogueService(store, clock, ['CU']) }
}

t.test('entries and pins round-trip; every write changes the version; a second service sees the first one\'s writes', async t => {
  const { db, clock, store, service } = await open(t)
  const other = new CatalogueService(catalogueStore(db), clock, ['CU'])
  const v0 = await store.version()
  t.equal(v0, 'empty')
  await store.putEntries({
    assets: [{ code: 'ABC', name: 'Abc token', type: 'crypto', decimals: 4, features: ['buy'], usdPrice: '2' }],
    networks: [{ code: 'abc-chain', name: 'Abc chain', type: 'crypto' }],
    rails: [{ type: 'crypto', network: 'abc-chain', method: 'crypto-transaction', asset: 'ABC', decimals: 4, features: ['deposit'] }],
    countries: [{ code: 'US', restrictions: ['phone'] }]
  })
  const v1 = await store.version()
  t.not(v1, v0)
  t.same(await service.getAsset('ABC'), { code: 'ABC', name: 'Abc token', type: 'crypto', decimals: 4, features: ['buy'], cooldowns: [] })
  t.same((await service.getCountry('US')).restrictions, [{ scope: 'phone' }])
  t.equal((await service.listRails({ network: ['abc-chain'] })).length, 1)

  await store.pin(undefined, 'ABC', '3.5', clock.now())
  t.not(await store.version(), v1)
  t.equal((await other.getRates('ABC', ['USD'])).USD.mid, '3.5', 'another replica\'s snapshot follows the store')
  t.equal(await store.release(undefined, 'ABC'), 1)
  t.equal(await store.release(undefined), 0)
  t.equal((await other.getRates('ABC', ['USD'])).USD.mid !== '3.5', true)

  await store.putEntries({ assets: [{ code: 'BTC', name: 'Bitcoin', type: 'crypto', decimals: 8, features: ['sell'] }], networks: [], rails: [], countries: [] })
  t.same((await service.getAsset('BTC')).features, ['sell'], 'a fixture changes a start entry')
  await t.rejects(service.getRates('BTC', ['USD']), { code: 'asset_pair_not_supported' }, 'without a price, no rates')

  await store.clear()
  t.same((await service.getAsset('BTC')).features, ['buy', 'deposit', 'sell', 'transfer', 'withdraw'])
  await t.rejects(service.getAsset('ABC'), { statusCode: 404, code: 'entity_not_found', details: { entity: 'asset' } })
})

t.test('sorts: code, name, price, price delta and market cap, unpriced assets last', async t => {
  const { service, store, clock } = await open(t)
  const codes = async (sort: string) => (await service.listAssets({ sort })).map(a => a.code)
  const all = await codes('code:asc')
  t.same(all, [...all].sort())
  t.same(await codes('code:desc'), [...all].sort().reverse())
  t.same((await service.listAssets({ type: ['fiat'] })).map(a => a.code), ['EUR', 'GBP', 'USD'])
  const byPrice = await codes('price:desc')
  t.equal(byPrice[0], 'BTC')
  t.same(await codes('price:asc'), [...byPrice].reverse(), 'ascending is descending reversed (no ties)')
  const cap = await codes('market-cap:desc')
  t.equal(cap[0], 'BTC')
  t.same(cap.slice(-3).sort(), ['EUR', 'GBP', 'USD'], 'fiat has no market cap: last')
  t.same((await codes('market-cap:asc')).slice(-3).sort(), ['EUR', 'GBP', 'USD'], 'last in either direction')
  // Pinning ETH far up makes it the top mover of the hour.
  await store.pin(undefined, 'ETH', '100000', clock.now() - 1000)
  t.equal((await codes('price-delta:desc:one-hour'))[0], 'ETH')
  t.equal((await codes('price-delta:asc:one-hour')).at(-1), 'ETH')
})

t.test('terms of service and file settings filters', async t => {
  const { service } = await open(t)
  t.same(service.listTermsOfService({ country: 'GB' }).map(x => x.code), ['general-gb-fca', 'unique-account-number-viban'])
  t.same(service.listTermsOfService({ country: 'FR' }).map(x => x.code), ['general-lt-fcs'])
  t.same(service.listTermsOfService({ country: 'BR' }).map(x => x.code), ['general-bs-scb'])
  t.same(service.listTermsOfService({ type: 'unique-account-number', userType: 'business' }), [])
  t.equal(service.listTermsOfService({}).length, 6)
  t.same(Object.keys(service.fileSettings({ category: ['video', 'image'] })), ['image', 'video'])
  t.same(Object.keys(service.fileSettings({})), ['document', 'image', 'video'])
})
