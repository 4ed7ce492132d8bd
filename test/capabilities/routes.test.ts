// Capabilities through the API: user states mapped to the capabilities' answers and to the 409 an
// account operation then gets; accepting the vIBAN terms and acceptedAt; the financial-promotions
// cooldown in assets, ended by the clock or the test helper, its event delivered to a receiver.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { addEndpoint, managementLink, startReceiver } from '../webhooks/support.js'
import { USER_IP, forceKyc, ready, setup, type Setup } from '../accounts/support.js'

const deposit = (accountId: string, type: string, asset: string, network: string): string =>
  `/core/accounts/${accountId}/deposit-method?type=${type}&asset=${asset}&network=${network}`

/** Rewrites the stored user (its country or type), as an integrator's other data would have made it. */
async function reshape (app: FastifyInstance, userId: string, path: string[], value: string): Promise<void> {
  const db = app.storage.db
  await db.write(async () => {
    const record = JSON.parse((await db.prepare<[string], string>('SELECT record FROM users WHERE id = ?').pluck().get(userId))!) as Record<string, unknown>
    let at = record
    for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>
    at[path[path.length - 1]] = value
    await db.prepare('UPDATE users SET record = ? WHERE id = ?').run(JSON.stringify(record), userId)
  })
  app.storage.forget()
}

async function capability (call: Setup['call'], code: string): Promise<{ enabled: boolean, requirements: string[], restrictions: string[] }> {
  const res = await call('GET', `/core/capabilities/${code}`)
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`)
  return res.json().capability
}

async function accountIn (call: Setup['call'], asset: string): Promise<string> {
  return (await call('POST', '/core/accounts', { payload: { label: asset, asset } })).json().account.id
}

t.test('user states, their capabilities, and the 409 a deposit-method setup then gets', async t => {
  const cases: Array<{
    name: string
    arrange: (s: Setup) => Promise<void>
    overrides?: Record<string, unknown>
    rail: [string, string, string]
    capability: { code: string, requirements: string[], restrictions: string[] }
  }> = [
    {
      name: 'KYC incomplete',
      arrange: async () => {},
      rail: ['bank', 'USD', 'ach'],
      capability: {
        code: 'bank-deposits',
        requirements: ['user-must-submit-residential-address', 'user-must-submit-customer-due-diligence', 'user-must-submit-full-name', 'user-must-submit-identity', 'user-must-submit-proof-of-address'],
        restrictions: []
      }
    },
    {
      name: 'vIBAN terms missing',
      arrange: async s => {
        await forceKyc(s.app, s.userId)
        await s.call('PUT', '/core/assets/test-helpers/skip-assets-cooldowns')
      },
      rail: ['bank', 'GBP', 'fps'],
      capability: { code: 'unique-account-number-viban', requirements: ['user-must-accept-unique-account-number-viban-terms-of-service'], restrictions: [] }
    },
    {
      name: 'cooldown running',
      arrange: async s => { await forceKyc(s.app, s.userId) },
      rail: ['crypto', 'BTC', 'bitcoin'],
      capability: { code: 'crypto-deposits', requirements: [], restrictions: ['financial-promotion-cooldown-running'] }
    },
    {
      name: 'restricted country',
      arrange: async s => { await forceKyc(s.app, s.userId) },
      overrides: { unsupportedCountries: ['GB'] },
      rail: ['bank', 'EUR', 'sepa'],
      capability: { code: 'bank-deposits', requirements: [], restrictions: ['user-country-not-supported'] }
    }
  ]
  for (const c of cases) {
    await t.test(c.name, async t => {
      const s = await setup(t, c.overrides)
      await c.arrange(s)
      const shown = await capability(s.call, c.capability.code)
      t.same({ requirements: shown.requirements, restrictions: shown.restrictions }, { requirements: c.capability.requirements, restrictions: c.capability.restrictions })
      t.equal(shown.enabled, c.capability.restrictions.length === 0)
      const list = (await s.call('GET', '/core/capabilities')).json().capabilities as Array<{ code: string }>
      t.equal(list.length, 17)
      t.same(list.find(x => x.code === c.capability.code), { ...shown, code: c.capability.code })

      const account = await accountIn(s.call, c.rail[1])
      for (const method of ['PUT', 'GET'] as const) {
        const res = await s.call(method, deposit(account, ...c.rail))
        t.equal(res.statusCode, 409, `${method} deposit method`)
        t.same(res.json(), { code: 'user_capability_failure', message: 'The user has capability constraints', details: { capability: c.capability } })
      }
    })
  }

  await t.test('everything done: the deposit method is set up', async t => {
    const s = await setup(t)
    await ready(s)
    const all = (await s.call('GET', '/core/capabilities')).json().capabilities as Array<{ code: string, enabled: boolean, requirements: string[] }>
    for (const code of ['crypto-deposits', 'bank-deposits', 'trades', 'unique-account-number-viban']) {
      t.match(all.find(c => c.code === code), { enabled: true, requirements: [] }, code)
    }
    t.equal((await s.call('PUT', deposit(await accountIn(s.call, 'GBP'), 'bank', 'GBP', 'fps'))).statusCode, 201)
  })
})

t.test('get-capability: an unknown code is 400; a client is refused', async t => {
  const { call } = await setup(t)
  t.equal((await call('GET', '/core/capabilities/flying')).statusCode, 400)
  t.equal((await call('GET', '/core/capabilities', { user: null })).statusCode, 403)
})

t.test('accepting the vIBAN terms: the IP header, applicability, once; acceptedAt when acting for the user', async t => {
  const { app, userId, call } = await setup(t)
  const noIp = await call('POST', '/core/terms-of-service/unique-account-number-viban/accept')
  t.equal(noIp.statusCode, 409)
  t.same(noIp.json(), { code: 'operation_not_allowed', message: 'Request not allowed due to missing user context: send the X-Uphold-User-Ip header', details: { reasons: ['missing-user-ip-header'] } })
  t.equal((await call('POST', '/core/terms-of-service/general-gb-fca/accept', { headers: USER_IP })).statusCode, 400, 'only the vIBAN terms')

  const before = (await call('GET', '/core/terms-of-service/unique-account-number-viban')).json().termsOfService
  t.notOk('acceptedAt' in before)
  const general = (await call('GET', '/core/terms-of-service/general-gb-fca')).json().termsOfService
  t.equal(general.acceptedAt, app.clock.iso(), 'the general terms of the user\'s country: accepted at creation')

  app.clock.advance(30)
  const accepted = await call('POST', '/core/terms-of-service/unique-account-number-viban/accept', { headers: USER_IP })
  t.equal(accepted.statusCode, 201)
  t.same(accepted.json().termsOfService, { code: 'unique-account-number-viban', type: 'unique-account-number', countries: ['GB', 'PT'], userTypes: ['individual'], modifiedAt: before.modifiedAt, acceptedAt: app.clock.iso() })
  const again = await call('POST', '/core/terms-of-service/unique-account-number-viban/accept', { headers: USER_IP })
  t.equal(again.statusCode, 409)
  t.same(again.json().details, { reasons: ['terms-of-service-already-accepted'] })
  t.equal(again.json().message, 'The terms of service have already been accepted')

  const listed = (await call('GET', '/core/terms-of-service')).json().termsOfService as Array<{ code: string, acceptedAt?: string }>
  t.equal(listed.find(x => x.code === 'unique-account-number-viban')?.acceptedAt, app.clock.iso())
  const asClient = (await call('GET', '/core/terms-of-service', { user: null })).json().termsOfService as Array<{ acceptedAt?: string }>
  t.ok(asClient.every(x => x.acceptedAt === undefined), 'a client sees no acceptedAt')

  await reshape(app, userId, ['address', 'country'], 'US')
  const other = await setup(t)
  await reshape(other.app, other.userId, ['address', 'country'], 'US')
  const country = await other.call('POST', '/core/terms-of-service/unique-account-number-viban/accept', { headers: USER_IP })
  t.equal(country.statusCode, 409)
  t.same(country.json(), {
    code: 'operation_not_allowed',
    message: 'The terms of service cannot be accepted because they do not apply to the user country of residence',
    details: { reasons: ['terms-of-service-not-applicable'] }
  })
})

t.test('the cooldown of a new GB user: in assets, ended by the clock with its event', async t => {
  const { app, call, renewToken } = await setup(t)
  const receiver = await startReceiver(t)
  await addEndpoint(app, await managementLink(app), { url: receiver.url })
  const endsAt = new Date(app.clock.now() + 24 * 3600 * 1000).toISOString()
  const btc = (await call('GET', '/core/assets/BTC')).json().asset
  t.same(btc.cooldowns, [{ rule: 'financial-promotions', features: ['buy', 'deposit'], endsAt }])
  t.same((await call('GET', '/core/assets/USD')).json().asset.cooldowns, [], 'fiat has none')
  t.same((await call('GET', '/core/assets/BTC', { user: null })).json().asset.cooldowns, [], 'a client sees none')
  const listed = (await call('GET', '/core/assets')).json().assets as Array<{ code: string, cooldowns: unknown[] }>
  t.equal(listed.find(a => a.code === 'ETH')?.cooldowns.length, 1)
  const many = (await call('POST', '/core/assets/_mget', { payload: { codes: ['ETH', 'GBP'] } })).json().assets
  t.equal(many.ETH.cooldowns.length, 1)
  t.same(many.GBP.cooldowns, [])
  t.same((await capability(call, 'trades')).restrictions, ['financial-promotion-cooldown-running'])

  app.clock.advance(24 * 3600)
  await app.clock.settle()
  const [delivery] = await receiver.waitFor(1)
  const body = JSON.parse(delivery.body)
  t.equal(body.type, 'core.assets.cooldown-ended')
  t.match(body.data, { assets: ['BTC', 'ETH', 'USDC', 'USDT', 'SOL', 'XRP', 'LTC', 'DOGE', 'XLM'], cooldown: { rule: 'financial-promotions', features: ['buy', 'deposit'], endsAt } })
  await renewToken()
  t.same((await call('GET', '/core/assets/BTC')).json().asset.cooldowns, [])
  t.same((await capability(call, 'trades')).restrictions, [])
})

t.test('the test helper ends the cooldown at once, with its event; then does nothing', async t => {
  const { app, userId, call } = await setup(t)
  const receiver = await startReceiver(t)
  await addEndpoint(app, await managementLink(app), { url: receiver.url })
  t.equal((await call('GET', '/core/assets/BTC')).json().asset.cooldowns.length, 1)
  const skipped = await call('PUT', '/core/assets/test-helpers/skip-assets-cooldowns')
  t.equal(skipped.statusCode, 204)
  t.same((await call('GET', '/core/assets/BTC')).json().asset.cooldowns, [])
  const [delivery] = await receiver.waitFor(1)
  t.match(JSON.parse(delivery.body), { type: 'core.assets.cooldown-ended', data: { userId } })
  t.equal((await call('PUT', '/core/assets/test-helpers/skip-assets-cooldowns')).statusCode, 204)
  app.clock.advance(2 * 24 * 3600)
  await app.clock.settle()
  await new Promise(resolve => setTimeout(resolve, 100))
  t.equal(receiver.received.length, 1, 'no second event')
})

t.test('a GB user nobody asked about still gets its cooldown, and its end is announced', async t => {
  const { app, userId } = await setup(t)
  const receiver = await startReceiver(t)
  await addEndpoint(app, await managementLink(app), { url: receiver.url })
  // The user of the setup was created, and nothing has read its capabilities or assets.
  await app.clock.settle()
  t.equal(await app.storage.db.prepare('SELECT count(*) AS n FROM cooldowns WHERE user_id = ? AND ended_at IS NULL').pluck().get(userId), 1,
    'its cooldown runs from its creation')
  app.clock.advance(24 * 3600)
  await app.clock.settle()
  const [delivery] = await receiver.waitFor(1)
  t.match(JSON.parse(delivery.body), { type: 'core.assets.cooldown-ended', data: { userId } })
})
