// Each catalogue operation's success and each documented error, as an integrator sees them, under
// the reference's names (SERVICE_NAME=uphold, PARTNER_AREA=topper). Every answer is also checked
// against the response schema of its status in the app's own OpenAPI document.
import t, { type Test } from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { accessToken, bearer, build, makeUser, onBehalfOf, UUID_RE } from '../helpers.js'
import { ownDocumentChecker } from './openapi-check.js'

const REQUEST_ID = 'x-uphold-request-id'

async function setup (t: Test) {
  const app = await build(t, { serviceName: 'uphold', partnerArea: 'topper' })
  const token = await accessToken(app)
  const check = await ownDocumentChecker(app)
  const call = async (method: 'GET' | 'POST', url: string, { payload, headers = {}, auth = token }: { payload?: unknown, headers?: Record<string, string>, auth?: string | null } = {}): Promise<LightMyRequestResponse> => {
    const res = await app.inject({ method, url, payload: payload as object, headers: { ...(auth === null ? {} : bearer(auth)), ...headers } })
    t.match(res.headers[REQUEST_ID], UUID_RE, `${method} ${url}: request id`)
    t.same(check(method, url, res), [], `${method} ${url} ${res.statusCode}: conforms to the app's own OpenAPI document`)
    return res
  }
  return { app, token, call }
}

const rateOk = (rate: { bid?: string, mid: string, ask?: string }): boolean =>
  Number(rate.bid) <= Number(rate.mid) && Number(rate.mid) <= Number(rate.ask)

t.test('countries: list and get; 404 for an unknown code, 400 for a malformed one', async t => {
  const { call } = await setup(t)
  const list = await call('GET', '/core/countries')
  t.equal(list.statusCode, 200)
  const { countries } = list.json()
  t.ok(countries.length >= 249)
  t.match(countries.find((c: { code: string }) => c.code === 'KP'), { asset: 'KPW', restrictions: [{ scope: 'citizenship' }, { scope: 'geolocation' }, { scope: 'phone' }, { scope: 'residence' }] })
  const gb = await call('GET', '/core/countries/GB')
  t.equal(gb.statusCode, 200)
  t.match(gb.json().country, { code: 'GB', asset: 'GBP', restrictions: [] })
  t.ok(gb.json().country.subdivisions.some((s: { code: string }) => s.code === 'GB-LND'))
  const unknown = await call('GET', '/core/countries/ZZ')
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { code: 'entity_not_found', message: 'The country cannot be found', details: { entity: 'country' } })
  const bad = await call('GET', '/core/countries/gbr')
  t.equal(bad.statusCode, 400)
  t.match(bad.json(), { code: 'request_invalid', details: { context: 'params', violations: [{ property: 'country', rule: 'pattern' }] } })
})

t.test('assets: list with type and sort, get, get many; 404 and 400', async t => {
  const { call } = await setup(t)
  const list = await call('GET', '/core/assets')
  t.equal(list.statusCode, 200)
  const codes = list.json().assets.map((a: { code: string }) => a.code)
  for (const c of ['USD', 'EUR', 'GBP', 'BTC', 'ETH', 'USDC', 'USDT', 'SOL', 'XRP', 'LTC', 'DOGE']) t.ok(codes.includes(c), c)
  t.same(codes, [...codes].sort(), 'code:asc by default')
  const decimals = Object.fromEntries(list.json().assets.map((a: { code: string, decimals: number }) => [a.code, a.decimals]))
  t.match(decimals, { GBP: 2, BTC: 8, ETH: 18, USDC: 6 })

  const fiat = await call('GET', '/core/assets?type=fiat&sort=name:desc')
  t.same(fiat.json().assets.map((a: { code: string }) => a.code), ['USD', 'EUR', 'GBP'])
  const both = await call('GET', '/core/assets?type=fiat,crypto&sort=market-cap:desc')
  t.equal(both.json().assets[0].code, 'BTC')
  const movers = await call('GET', '/core/assets?sort=price-delta:desc:one-week')
  t.equal(movers.statusCode, 200)

  for (const query of ['type=stocks', 'sort=price-delta:up:one-day', 'type=fiat,fiat']) {
    const bad = await call('GET', `/core/assets?${query}`)
    t.equal(bad.statusCode, 400, query)
    t.match(bad.json(), { code: 'request_invalid', details: { context: 'query' } })
  }

  const btc = await call('GET', '/core/assets/BTC')
  t.same(btc.json(), { asset: { code: 'BTC', name: 'Bitcoin', type: 'crypto', symbol: '₿', decimals: 8, features: ['buy', 'deposit', 'sell', 'transfer', 'withdraw'], cooldowns: [] } })
  const missing = await call('GET', '/core/assets/NOPE')
  t.equal(missing.statusCode, 404)
  t.same(missing.json(), { code: 'entity_not_found', message: 'The asset cannot be found', details: { entity: 'asset' } })

  const many = await call('POST', '/core/assets/_mget', { payload: { codes: ['BTC', 'ETH', 'NOPE'] } })
  t.equal(many.statusCode, 200)
  t.same(Object.keys(many.json().assets), ['BTC', 'ETH'])
  for (const payload of [{}, { codes: [] }, { codes: [''] }, { codes: 'BTC' }]) {
    const bad = await call('POST', '/core/assets/_mget', { payload })
    t.equal(bad.statusCode, 400, JSON.stringify(payload))
    t.match(bad.json(), { code: 'request_invalid', details: { context: 'body' } })
  }
})

t.test('rates: every other asset by default, chosen denominations, 404 and 409', async t => {
  const { app, call } = await setup(t)
  const all = await call('GET', '/core/assets/BTC/rates')
  t.equal(all.statusCode, 200)
  const rates = all.json().rates
  t.notOk('BTC' in rates)
  t.ok(Object.keys(rates).length >= 10)
  t.ok(Object.values(rates).every(r => rateOk(r as { mid: string })), 'bid <= mid <= ask')
  const two = await call('GET', '/core/assets/BTC/rates?denomination=USD,GBP')
  t.same(Object.keys(two.json().rates), ['USD', 'GBP'])
  t.equal(two.json().rates.USD.mid, rates.USD.mid, 'the same instant, the same rate')

  app.clock.advance(60)
  const later = await call('GET', '/core/assets/BTC/rates?denomination=USD')
  t.not(later.json().rates.USD.mid, rates.USD.mid, 'prices move with the sandbox clock')

  const missing = await call('GET', '/core/assets/NOPE/rates')
  t.equal(missing.statusCode, 404)
  t.same(missing.json(), { code: 'entity_not_found', message: 'The asset cannot be found', details: { entity: 'asset' } })
  const pair = await call('GET', '/core/assets/BTC/rates?denomination=USD,NOPE')
  t.equal(pair.statusCode, 409)
  t.same(pair.json(), { code: 'asset_pair_not_supported', message: 'Rates are not available for the requested asset pair' })
})

t.test('historical rates: the interval\'s points, never after now; 404 and 409 with their details', async t => {
  const { app, call } = await setup(t)
  app.clock.set(Date.UTC(2026, 10, 24, 12, 34, 56))
  const day = await call('GET', '/core/assets/BTC/historical-rates')
  t.equal(day.statusCode, 200)
  const points = day.json().historicalRates.USD
  t.equal(points.length, 48)
  t.equal(points.at(-1).timestamp, '2026-11-24T12:30:00.000Z')
  t.ok(points.every((p: { timestamp: string }) => Date.parse(p.timestamp) <= app.clock.now() && Date.parse(p.timestamp) % 1_800_000 === 0))
  const hour = await call('GET', '/core/assets/ETH/historical-rates?denomination=GBP&interval=one-hour')
  t.same(Object.keys(hour.json().historicalRates), ['GBP'])
  t.equal(hour.json().historicalRates.GBP.length, 60)

  const asset = await call('GET', '/core/assets/NOPE/historical-rates')
  t.equal(asset.statusCode, 404)
  t.same(asset.json(), { code: 'entity_not_found', message: 'The asset cannot be found', details: { context: 'path', entity: 'asset' } })
  const denomination = await call('GET', '/core/assets/BTC/historical-rates?denomination=NOPE')
  t.equal(denomination.statusCode, 404)
  t.same(denomination.json(), { code: 'entity_not_found', message: 'The asset cannot be found', details: { context: 'query', property: 'denomination', entity: 'asset' } })
  const interval = await call('GET', '/core/assets/BTC/historical-rates?interval=one-decade')
  t.equal(interval.statusCode, 400)

  // An asset without a price, added by a fixture: its pairs are not supported.
  const fixture = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { assets: [{ code: 'NOPRICE', name: 'No price', type: 'crypto', decimals: 2, features: [] }] } })
  t.equal(fixture.statusCode, 201, fixture.body)
  const unsupported = await call('GET', '/core/assets/BTC/historical-rates?denomination=NOPRICE')
  t.equal(unsupported.statusCode, 409)
  t.same(unsupported.json(), { code: 'asset_not_supported', message: 'The asset is not supported', details: { context: 'query', property: 'denomination' } })
  const pair = await call('GET', '/core/assets/NOPRICE/rates')
  t.equal(pair.statusCode, 409)
  t.equal(pair.json().code, 'asset_pair_not_supported')
})

t.test('networks: list by type, get, 404', async t => {
  const { call } = await setup(t)
  const list = await call('GET', '/core/networks')
  const byType = (type: string) => list.json().networks.filter((n: { type: string }) => n.type === type).map((n: { code: string }) => n.code)
  t.same(byType('bank'), ['ach', 'fednow', 'rtp', 'wire', 'sepa', 'fps'])
  t.same(byType('card'), ['visa', 'mastercard'])
  t.ok(byType('crypto').length >= 6)
  t.ok(byType('apm').includes('paypal'))
  const crypto = await call('GET', '/core/networks?type=crypto')
  t.ok(crypto.json().networks.every((n: { type: string, exampleAddress?: string }) => n.type === 'crypto' && n.exampleAddress !== undefined))
  const xrp = await call('GET', '/core/networks/xrp-ledger')
  t.match(xrp.json(), { network: { code: 'xrp-ledger', type: 'crypto', reference: { type: 'destination-tag' } } })
  t.notOk('validator' in xrp.json().network, 'internal fields stay inside')
  const missing = await call('GET', '/core/networks/nope')
  t.equal(missing.statusCode, 404)
  t.same(missing.json(), { code: 'entity_not_found', message: 'The network cannot be found', details: { entity: 'network' } })
  t.equal((await call('GET', '/core/networks?type=satellite')).statusCode, 400)
})

t.test('address validation: valid, invalid address or reference (200), 400, 404, 409', async t => {
  const { call } = await setup(t)
  const url = (n: string) => `/core/networks/${n}/validate-address`
  t.same((await call('POST', url('bitcoin'), { payload: { address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' } })).json(), { isValid: true })
  t.same((await call('POST', url('ethereum'), { payload: { address: '0x742d35Cc6634C0532925a3b844Bc454e4438f44e' } })).json(), { isValid: true })
  const bad = await call('POST', url('bitcoin'), { payload: { address: '0x742d35Cc6634C0532925a3b844Bc454e4438f44e' } })
  t.equal(bad.statusCode, 200)
  t.same(bad.json(), { isValid: false, error: { code: 'address_invalid', message: 'The address is invalid' } })
  const tag = await call('POST', url('xrp-ledger'), { payload: { address: 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe', reference: '-1' } })
  t.equal(tag.json().error.code, 'reference_invalid')
  const missingTag = await call('POST', url('xrp-ledger'), { payload: { address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh' } })
  t.equal(missingTag.json().error.code, 'reference_missing')

  const noAddress = await call('POST', url('bitcoin'), { payload: { reference: '1' } })
  t.equal(noAddress.statusCode, 400)
  t.match(noAddress.json(), { code: 'request_invalid', details: { context: 'body', violations: [{ property: 'address', rule: 'required' }] } })
  t.equal((await call('POST', url('bitcoin'), { payload: { address: ' padded ' } })).statusCode, 400)
  const unknown = await call('POST', url('nope'), { payload: { address: 'x' } })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { code: 'entity_not_found', message: 'The network cannot be found', details: { entity: 'network' } })
  const bank = await call('POST', url('sepa'), { payload: { address: 'DE89370400440532013000' } })
  t.equal(bank.statusCode, 409)
  t.same(bank.json(), { code: 'operation_not_allowed', message: 'Network must be a crypto network' })
})

t.test('rails: every network type, filters', async t => {
  const { call } = await setup(t)
  const all = (await call('GET', '/core/rails')).json().rails
  t.ok(all.length >= 20)
  t.same([...new Set(all.map((r: { type: string }) => r.type))].sort(), ['apm', 'bank', 'card', 'crypto'])
  const ach = all.find((r: { network: string }) => r.network === 'ach')
  t.same(ach.constraints, [{ rule: 'allowed-deposit-accounts', allowed: 'default-only' }])
  const usdc = (await call('GET', '/core/rails?asset=USDC&network=ethereum,solana')).json().rails
  t.equal(usdc.length, 2)
  t.ok(usdc.every((r: { contractAddress?: string }) => r.contractAddress !== undefined))
  const debit = (await call('GET', '/core/rails?type=card&method=debit-card')).json().rails
  t.ok(debit.length > 0 && debit.every((r: { method: string }) => r.method === 'debit-card'))
  t.equal((await call('GET', '/core/rails?method=cheque')).statusCode, 400)
})

t.test('terms of service and file settings: filters, and 403 without their scopes', async t => {
  const { app, call } = await setup(t)
  const all = await call('GET', '/core/terms-of-service')
  t.equal(all.json().termsOfService.length, 6)
  const gb = await call('GET', '/core/terms-of-service?country=GB&type=general')
  t.same(gb.json().termsOfService.map((x: { code: string }) => x.code), ['general-gb-fca'])
  const one = await call('GET', '/core/terms-of-service/unique-account-number-viban')
  t.match(one.json(), { termsOfService: { code: 'unique-account-number-viban', type: 'unique-account-number', userTypes: ['individual'] } })
  t.equal((await call('GET', '/core/terms-of-service/general-xx')).statusCode, 400)
  t.equal((await call('GET', '/core/terms-of-service?country=gb')).statusCode, 400)

  const settings = await call('GET', '/core/files/settings')
  t.same(Object.keys(settings.json().settings), ['document', 'image', 'video'])
  t.same((await call('GET', '/core/files/settings?category=video')).json(), { settings: { video: { allowedContentTypes: ['video/mp4', 'video/mpeg'], minFileSize: 1, maxFileSize: 100_000_000, expiresIn: 900 } } })
  t.equal((await call('GET', '/core/files/settings?category=audio')).statusCode, 400)

  const narrow = await accessToken(app, { scope: 'core.users:read' })
  const tos = await call('GET', '/core/terms-of-service', { auth: narrow })
  t.equal(tos.statusCode, 403)
  t.match(tos.json(), { code: 'token_insufficient_scopes', details: { security: [{ scheme: 'OAuth', schemeScopes: ['core.terms-of-service:read'], tokenScopes: ['core.users:read'] }] } })
  const files = await call('GET', '/core/files/settings', { auth: narrow })
  t.equal(files.statusCode, 403)
  t.match(files.json(), { details: { security: [{ schemeScopes: ['core.files:read'] }] } })
  t.equal((await call('GET', '/core/assets', { auth: narrow })).statusCode, 200, 'operations without a scope take any valid token')
})

t.test('every operation: 401 without a valid token, 403 acting for a user without the scope, 200 for a user subject, user-context headers checked', async t => {
  const { app, call } = await setup(t)
  const user = await makeUser(app)
  const gets = ['/core/countries/GB', '/core/assets', '/core/assets/BTC', '/core/assets/BTC/rates', '/core/assets/BTC/historical-rates',
    '/core/networks', '/core/networks/bitcoin', '/core/rails', '/core/terms-of-service', '/core/terms-of-service/general-us-hq', '/core/files/settings']
  const noActing = await accessToken(app, { scope: 'core.terms-of-service:read core.files:read' })
  for (const url of gets) {
    const acting = await call('GET', url, { auth: noActing, headers: onBehalfOf(user.id) })
    t.equal(acting.statusCode, 403, `${url}: acting for a user needs core.users:act-on-behalf-of`)
    t.match(acting.json(), { code: 'token_insufficient_scopes', details: { security: [{ schemeScopes: ['core.users:act-on-behalf-of'] }] } })
    const none = await call('GET', url, { auth: null })
    t.equal(none.statusCode, 401, url)
    t.equal(none.json().code, 'token_invalid')
    t.equal((await call('GET', url, { auth: 'nope' })).statusCode, 401)
    t.equal((await call('GET', url, { headers: onBehalfOf(user.id) })).statusCode, 200, `${url} as a user`)
  }
  t.equal((await call('POST', '/core/assets/_mget', { auth: null, payload: { codes: ['BTC'] } })).statusCode, 401)
  t.equal((await call('POST', '/core/networks/bitcoin/validate-address', { auth: null, payload: { address: 'x' } })).statusCode, 401)
  const context = { 'x-uphold-user-ip': '47.174.97.164', 'x-uphold-user-agent': 'curl/8', 'x-uphold-user-country': 'US', 'x-uphold-user-subdivision': 'US-CA', 'x-uphold-user-city': 'San Francisco', 'x-uphold-user-origin': 'https://example.com' }
  t.equal((await call('GET', '/core/assets', { headers: context })).statusCode, 200)
  const badIp = await call('GET', '/core/assets', { headers: { 'x-uphold-user-ip': '999.1.1.1' } })
  t.equal(badIp.statusCode, 400)
  t.match(badIp.json(), { details: { context: 'headers', violations: [{ property: 'x-uphold-user-ip' }] } })
})

t.test('the OpenAPI document and /docs list the 14 operations with their tags, scopes and subjects', async t => {
  const { app } = await setup(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const ops = new Map<string, { tags: string[], security: Array<Record<string, string[]>>, 'x-subjects': string[] }>()
  for (const item of Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)) {
    for (const op of Object.values(item)) ops.set(op.operationId, op as never)
  }
  const expected: Record<string, [string, string[]]> = {
    listCountries: ['Countries', []],
    getCountry: ['Countries', []],
    listAssets: ['Assets', []],
    getManyAssets: ['Assets', []],
    getAsset: ['Assets', []],
    getAssetRates: ['Assets', []],
    getAssetHistoricalRates: ['Assets', []],
    listNetworks: ['Assets', []],
    getNetwork: ['Assets', []],
    validateNetworkAddress: ['Assets', []],
    listRails: ['Assets', []],
    listTermsOfService: ['Terms of service', ['core.terms-of-service:read']],
    getTermsOfService: ['Terms of service', ['core.terms-of-service:read']],
    listFilesSettings: ['Files', ['core.files:read']]
  }
  for (const [id, [tag, scopes]] of Object.entries(expected)) {
    const op = ops.get(id)
    t.ok(op, `${id} is documented`)
    t.same(op?.tags, [tag])
    t.same(op?.security, [{ OAuth2: scopes }])
    t.same(op?.['x-subjects'], ['client', 'user:business', 'user:individual'])
  }
  for (const tag of ['Countries', 'Assets', 'Terms of service', 'Files']) t.ok(doc.tags.some((x: { name: string }) => x.name === tag), `tag ${tag}`)
  t.equal((await app.inject({ method: 'GET', url: '/docs/' })).statusCode, 200)
})

t.test('429 too_many_requests with Retry-After when a rate limit is set, as documented', async t => {
  const app = await build(t, { serviceName: 'uphold', rateLimitPerMinute: 2 })
  const token = await accessToken(app)
  const check = await ownDocumentChecker(app)
  let last: LightMyRequestResponse | undefined
  for (let i = 0; i < 4; i++) last = await app.inject({ method: 'GET', url: '/core/assets', headers: bearer(token) })
  t.equal(last!.statusCode, 429)
  t.match(last!.json(), { code: 'too_many_requests', message: 'Try again later' })
  t.ok(Number(last!.headers['retry-after']) > 0)
  t.same(check('GET', '/core/assets', last!), [])
})
