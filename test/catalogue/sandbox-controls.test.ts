// The catalogue's sandbox controls: fixture keys (checked with the rest, all or nothing) and
// pinned prices (POST, GET, DELETE /_sandbox/rates), and what the other areas see of them.
import t from 'tap'
import { accessToken, bearer, build, userIp } from '../helpers.js'

t.test('fixtures add and change assets, networks, rails and country restrictions', async t => {
  const app = await build(t)
  const token = await accessToken(app)
  const get = async (url: string) => (await app.inject({ method: 'GET', url, headers: bearer(token) })).json()
  const res = await app.inject({
    method: 'POST',
    url: '/_sandbox/fixtures',
    payload: {
      assets: [
        { code: 'ABC', name: 'Abc token', type: 'crypto', decimals: 4, features: ['buy', 'sell'], usdPrice: '2.5', supply: '1000' },
        { code: 'BTC', name: 'Bitcoin', type: 'crypto', decimals: 8, features: ['sell'], usdPrice: '62000' }
      ],
      networks: [{ code: 'abc-chain', name: 'Abc chain', type: 'crypto', exampleAddress: 'abc1' }],
      rails: [{ type: 'crypto', network: 'abc-chain', method: 'crypto-transaction', asset: 'ABC', decimals: 4, features: ['deposit'] }],
      countries: [{ code: 'US', subdivisions: [{ code: 'US-NY', restrictions: ['residence'] }] }, { code: 'FR', restrictions: ['phone'] }]
    }
  })
  t.equal(res.statusCode, 201, res.body)
  t.match(res.json(), { assets: ['ABC', 'BTC'], networks: ['abc-chain'], rails: ['abc-chain crypto-transaction ABC'], countries: ['US', 'FR'] })

  t.same((await get('/core/assets/ABC')).asset, { code: 'ABC', name: 'Abc token', type: 'crypto', decimals: 4, features: ['buy', 'sell'], cooldowns: [] })
  t.same((await get('/core/assets/BTC')).asset.features, ['sell'])
  // The fixture's USD price moved by the price model's curve (within about 35% for crypto), whatever the instant.
  const mid = Number((await get('/core/assets/ABC/rates?denomination=USD')).rates.USD.mid)
  t.ok(mid > 2.5 * 0.6 && mid < 2.5 * 1.5, `ABC's mid ${mid} is around its fixture price, 2.5`)
  t.same((await get('/core/rails?network=abc-chain')).rails.length, 1)
  const ny = (await get('/core/countries/US')).country.subdivisions.find((s: { code: string }) => s.code === 'US-NY')
  t.same(ny.restrictions, [{ scope: 'residence' }])
  t.same((await get('/core/countries/FR')).country.restrictions, [{ scope: 'phone' }])

  // The users area reads the same catalogue.
  const create = (body: object) => app.inject({ method: 'POST', url: '/core/users', headers: { ...bearer(token), ...userIp() }, payload: { email: `u${Math.random()}@example.com`, termsOfService: 'general-us-hq', primaryCitizenship: 'US', ...body } })
  const closed = await create({ address: { country: 'US', subdivision: 'US-NY' } })
  t.equal(closed.statusCode, 409)
  t.same(closed.json(), { code: 'subdivision_not_supported', message: 'The subdivision is not supported', details: { context: 'body', property: 'address.subdivision' } })
  t.equal((await create({ address: { country: 'US', subdivision: 'US-CA' } })).statusCode, 201)
  const phone = await create({ address: { country: 'US' }, phone: { number: '+33123456789', country: 'FR' } })
  t.equal(phone.statusCode, 409)
  t.same(phone.json().details, { context: 'body', property: 'phone.country' })
  t.equal((await create({ termsOfService: 'general-lt-fcs', address: { country: 'FR' } })).statusCode, 201, 'a phone restriction does not stop residents')

  // A full reset brings the start catalogue back.
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/reset' })).statusCode, 204)
  const fresh = await accessToken(app)
  t.equal((await app.inject({ method: 'GET', url: '/core/assets/ABC', headers: bearer(fresh) })).statusCode, 404)
  const again = await app.inject({ method: 'POST', url: '/core/users', headers: { ...bearer(fresh), ...userIp() }, payload: { email: 'ny@example.com', termsOfService: 'general-us-hq', primaryCitizenship: 'US', address: { country: 'US', subdivision: 'US-NY' } } })
  t.equal(again.statusCode, 201, 'the restriction went with the reset')
})

t.test('a bad catalogue entry names its path and nothing of the fixture is loaded', async t => {
  const app = await build(t)
  const res = await app.inject({
    method: 'POST',
    url: '/_sandbox/fixtures',
    payload: {
      users: [{ email: 'kept-out@example.com' }],
      assets: [{ code: 'NEW', name: 'New', type: 'crypto', decimals: 2 }, { code: 'NEW', name: 'Again', type: 'crypto', decimals: 2 }],
      networks: [{ code: 'iban-net', name: 'Bank', type: 'bank', reference: { type: 'memo' } }],
      rails: [
        { type: 'crypto', network: 'nowhere', method: 'crypto-transaction', asset: 'NOPE', decimals: 2, features: [] },
        { type: 'card', network: 'bitcoin', method: 'paypal', asset: 'BTC', decimals: 2, features: [] }
      ],
      countries: [{ code: 'ZZ' }, { code: 'GB', subdivisions: [{ code: 'US-CA', restrictions: ['residence'] }] }]
    }
  })
  t.equal(res.statusCode, 400)
  t.same(res.json().details.violations, [
    { property: 'assets.1.code', rule: 'unique' },
    { property: 'networks.0.reference.type', rule: 'match', ruleParams: { allowedValues: ['payment-reference'] } },
    { property: 'rails.0.network', rule: 'exists', ruleParams: { entity: 'network' } },
    { property: 'rails.0.asset', rule: 'exists', ruleParams: { entity: 'asset' } },
    { property: 'rails.1.type', rule: 'match', ruleParams: { network: 'crypto' } },
    { property: 'rails.1.method', rule: 'match', ruleParams: { allowedValues: ['credit-card', 'debit-card'] } },
    { property: 'countries.0.code', rule: 'exists', ruleParams: { entity: 'country' } },
    { property: 'countries.1.subdivisions.0.code', rule: 'exists', ruleParams: { entity: 'subdivision' } }
  ])
  const token = await accessToken(app)
  t.equal((await app.inject({ method: 'GET', url: '/core/assets/NEW', headers: bearer(token) })).statusCode, 404)
  t.equal(await app.storage.users.findByEmail(app.config.demoClient.organizationId, 'kept-out@example.com'), undefined)
  const schema = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { assets: [{ code: 'lower', name: 'x', type: 'crypto', decimals: 2 }] } })
  t.match(schema.json(), { code: 'request_invalid', details: { violations: [{ property: 'assets.0.code', rule: 'pattern' }] } })
})

t.test('pinned prices: pin, list, every cross rate moves, release, reset', async t => {
  const app = await build(t, { serviceName: 'uphold' })
  const token = await accessToken(app)
  const rates = async (asset: string, denominations: string) =>
    (await app.inject({ method: 'GET', url: `/core/assets/${asset}/rates?denomination=${denominations}`, headers: bearer(token) })).json().rates
  const before = await rates('ETH', 'BTC,GBP,USD')
  const inverseBefore = await rates('GBP', 'ETH')

  const pin = await app.inject({ method: 'POST', url: '/_sandbox/rates', payload: { asset: 'ETH', mid: '1000' } })
  t.equal(pin.statusCode, 201)
  t.same(pin.json(), { asset: 'ETH', mid: '1000', pinnedAt: app.clock.iso() })
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/rates' })).json(), { rates: [{ asset: 'ETH', mid: '1000', pinnedAt: app.clock.iso() }] })

  const after = await rates('ETH', 'BTC,GBP,USD')
  t.equal(after.USD.mid, '1000')
  t.equal(after.USD.bid, '997.5')
  t.equal(after.USD.ask, '1002.5')
  for (const d of ['BTC', 'GBP']) t.not(after[d].mid, before[d].mid, `ETH-${d} moves`)
  t.not((await rates('GBP', 'ETH')).ETH.mid, inverseBefore.ETH.mid, 'GBP-ETH moves too')

  app.clock.advance(60)
  t.equal((await rates('ETH', 'USD')).USD.mid, '1000', 'pinned until released')
  const history = (await app.inject({ method: 'GET', url: '/core/assets/ETH/historical-rates?interval=one-hour', headers: bearer(token) })).json().historicalRates.USD
  t.equal(history.at(-1).rate.mid, '1000', 'history from the pin on shows it')
  t.not(history[0].rate.mid, '1000', 'history before it is the curve')

  t.equal((await app.inject({ method: 'DELETE', url: '/_sandbox/rates?asset=ETH' })).statusCode, 204)
  t.not((await rates('ETH', 'USD')).USD.mid, '1000')
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/rates' })).json(), { rates: [] })

  await app.inject({ method: 'POST', url: '/_sandbox/rates', payload: { asset: 'BTC', mid: '1' } })
  await app.inject({ method: 'POST', url: '/_sandbox/rates', payload: { asset: 'SOL', mid: '2' } })
  t.equal((await app.inject({ method: 'DELETE', url: '/_sandbox/rates' })).statusCode, 204)
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/rates' })).json(), { rates: [] })
  await app.inject({ method: 'POST', url: '/_sandbox/rates', payload: { asset: 'BTC', mid: '1' } })
  await app.inject({ method: 'POST', url: '/_sandbox/reset' })
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/rates' })).json(), { rates: [] }, 'a reset releases them')

  const unknown = await app.inject({ method: 'POST', url: '/_sandbox/rates', payload: { asset: 'NOPE', mid: '1' } })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { code: 'entity_not_found', message: 'The asset cannot be found', details: { entity: 'asset' } })
  const usd = await app.inject({ method: 'POST', url: '/_sandbox/rates', payload: { asset: 'USD', mid: '2' } })
  t.equal(usd.statusCode, 409)
  t.equal(usd.json().code, 'asset_not_supported')
  for (const payload of [{ asset: 'BTC', mid: '0' }, { asset: 'BTC', mid: '-1' }, { asset: 'BTC', mid: 5 }, { asset: 'BTC' }, { asset: 'BTC', mid: '1', extra: 1 }]) {
    t.equal((await app.inject({ method: 'POST', url: '/_sandbox/rates', payload })).statusCode, 400, JSON.stringify(payload))
  }
})

t.test('the rate controls are guarded by the admin token when one is set', async t => {
  const app = await build(t, { adminToken: 'a-long-enough-admin-token' })
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/rates', payload: { asset: 'BTC', mid: '1' } })).statusCode, 401)
  t.equal((await app.inject({ method: 'DELETE', url: '/_sandbox/rates' })).statusCode, 401)
  t.equal((await app.inject({ method: 'POST', url: '/_sandbox/rates', headers: bearer('a-long-enough-admin-token'), payload: { asset: 'BTC', mid: '1' } })).statusCode, 201)
})

t.test('pins keep their history: each is in force until the next; a pin after the clock moved back drops later ones', async t => {
  const app = await build(t, { serviceName: 'uphold' })
  const token = await accessToken(app)
  const pin = async (mid: string) => await app.inject({ method: 'POST', url: '/_sandbox/rates', payload: { asset: 'ETH', mid } })
  const start = Date.UTC(2026, 0, 1, 12)
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: new Date(start).toISOString() } })
  await pin('1000')
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: new Date(start + 30 * 60_000).toISOString() } })
  await pin('2000')
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: new Date(start + 45 * 60_000).toISOString() } })
  const history = async () => (await app.inject({ method: 'GET', url: '/core/assets/ETH/historical-rates?interval=one-hour', headers: bearer(token) })).json().historicalRates.USD as Array<{ timestamp: string, rate?: { mid: string } }>
  const at = async (ms: number) => (await history()).find(p => p.timestamp === new Date(ms).toISOString())?.rate?.mid
  t.equal(await at(start + 10 * 60_000), '1000', 'the first pin between the two')
  t.equal(await at(start + 40 * 60_000), '2000', 'the second from its instant on')
  t.not(await at(start - 10 * 60_000), '1000', 'the curve before the first')
  t.same((await app.inject({ method: 'GET', url: '/_sandbox/rates' })).json().rates, [{ asset: 'ETH', mid: '2000', pinnedAt: new Date(start + 30 * 60_000).toISOString() }], 'the list shows the one in force')

  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: new Date(start + 20 * 60_000).toISOString() } })
  await pin('1500')
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: new Date(start + 45 * 60_000).toISOString() } })
  t.equal(await at(start + 10 * 60_000), '1000')
  t.equal(await at(start + 40 * 60_000), '1500', 'the later pin went')
})
