// Deposit methods: crypto addresses and bank details (FPS, SEPA, ACH) of each account, unique and
// valid for their rail, 201 then 200, 404 before setup, the rail's checks, and routing back.
import t from 'tap'
import addressValidator from 'multicoin-address-validator'
import { composeIBAN, isValidBIC, isValidIBAN } from 'ibantools'
import { makeUser } from '../helpers.js'
import { accountsStore } from '../../src/accounts/store.js'
import { ready, setup, type Setup } from './support.js'

const url = (accountId: string, type: string, asset: string, network: string): string =>
  `/core/accounts/${accountId}/deposit-method?type=${type}&asset=${asset}&network=${network}`

async function account ({ call }: Setup, asset: string, label = `My ${asset}`): Promise<string> {
  const res = await call('POST', '/core/accounts', { payload: { label, asset } })
  if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body}`)
  return res.json().account.id
}

t.test('a crypto address per account, valid on its network: 404 before, 201 on setup, 200 with the same after', async t => {
  const s = await setup(t)
  await ready(s)
  const { call, app } = s
  const first = await account(s, 'BTC')
  const second = await account(s, 'BTC', 'Another')
  const before = await call('GET', url(first, 'crypto', 'BTC', 'bitcoin'))
  t.equal(before.statusCode, 404)
  t.same(before.json(), { code: 'entity_not_found', message: 'A deposit method for the specified type, asset and network cannot be found', details: { entity: 'depositMethod' } })

  const made = await call('PUT', url(first, 'crypto', 'BTC', 'bitcoin'))
  t.equal(made.statusCode, 201)
  const { depositMethod } = made.json()
  t.match(depositMethod, { type: 'crypto', status: 'ok', details: { network: 'bitcoin', asset: 'BTC' } })
  t.ok(addressValidator.validate(depositMethod.details.address, 'btc', { networkType: 'both' }), 'a valid bitcoin address')
  for (const f of depositMethod.details.addressFormats) t.ok(addressValidator.validate(f.value, 'btc', { networkType: 'both' }), `${f.format} valid`)
  const again = await call('PUT', url(first, 'crypto', 'BTC', 'bitcoin'))
  t.equal(again.statusCode, 200)
  t.same(again.json().depositMethod, depositMethod)
  t.same((await call('GET', url(first, 'crypto', 'BTC', 'bitcoin'))).json().depositMethod, depositMethod)

  const other = (await call('PUT', url(second, 'crypto', 'BTC', 'bitcoin'))).json().depositMethod
  t.not(other.details.address, depositMethod.details.address, 'each account its own address')
  const routed = await app.storage.store(accountsStore).routeDeposit('crypto:bitcoin', depositMethod.details.address)
  t.equal(routed?.id, first, 'the address routes back to its account')

  // Every crypto network of the catalogue gets a valid address; those with references a tag or memo.
  const cases = [['ETH', 'ethereum', 'eth'], ['SOL', 'solana', 'sol'], ['XRP', 'xrp-ledger', 'xrp'], ['LTC', 'litecoin', 'ltc'], ['DOGE', 'dogecoin', 'doge'], ['XLM', 'stellar', 'xlm']]
  for (const [asset, network, validator] of cases) {
    const id = await account(s, asset)
    const res = await call('PUT', url(id, 'crypto', asset, network))
    t.equal(res.statusCode, 201, network)
    const details = res.json().depositMethod.details
    t.ok(addressValidator.validate(details.address, validator, { networkType: 'both' }), `${network}: ${details.address} valid`)
    if (network === 'xrp-ledger' || network === 'stellar') t.match(details.reference, /^\d+$/, `${network}: a reference`)
  }
})

t.test('bank details: FPS, SEPA and ACH, unique per account and valid for their rail', async t => {
  const s = await setup(t)
  await ready(s)
  const { call, app } = s
  const store = app.storage.store(accountsStore)

  const gbp = [await account(s, 'GBP'), await account(s, 'GBP', 'Second')]
  const fps = []
  for (const id of gbp) {
    const res = await call('PUT', url(id, 'bank', 'GBP', 'fps'))
    t.equal(res.statusCode, 201)
    fps.push(res.json().depositMethod.details)
  }
  t.match(fps[0], { network: 'fps', asset: 'GBP', sortCode: /^\d{6}$/, accountNumber: /^\d{8}$/, bankName: String, beneficiary: String, bankAddress: { line1: String } })
  t.not(fps[0].accountNumber, fps[1].accountNumber)
  for (const d of fps) {
    // A UK sort code and account number make a valid GB IBAN (any four-letter bank code).
    t.ok(isValidIBAN(composeIBAN({ countryCode: 'GB', bban: `SBXB${d.sortCode}${d.accountNumber}` }) ?? ''), `${d.sortCode} ${d.accountNumber} is a valid UK account`)
  }
  t.equal((await store.routeDeposit('fps', fps[1].sortCode + fps[1].accountNumber))?.id, gbp[1])

  const eur = [await account(s, 'EUR'), await account(s, 'EUR', 'Second')]
  const sepa = []
  for (const id of eur) sepa.push((await call('PUT', url(id, 'bank', 'EUR', 'sepa'))).json().depositMethod.details)
  for (const d of sepa) {
    t.ok(isValidIBAN(d.iban), `${d.iban} is a valid IBAN`)
    t.ok(isValidBIC(d.bic), `${d.bic} is a valid BIC`)
    t.ok(d.reference.length > 0)
  }
  t.not(sepa[0].iban, sepa[1].iban)
  t.equal((await store.routeDeposit('sepa', sepa[0].iban))?.id, eur[0])

  const usd = await account(s, 'USD')
  const ach = await call('PUT', url(usd, 'bank', 'USD', 'ach'))
  t.equal(ach.statusCode, 201)
  const d = ach.json().depositMethod.details
  t.match(d, { network: 'ach', asset: 'USD', routingNumber: /^\d{9}$/, accountNumber: /^[1-9]\d{11}$/, accountType: 'checking' })
  const digits = [...d.routingNumber as string].map(Number)
  t.equal((3 * (digits[0] + digits[3] + digits[6]) + 7 * (digits[1] + digits[4] + digits[7]) + (digits[2] + digits[5] + digits[8])) % 10, 0, 'an ABA routing number')
  t.same(d.secondaryNetworks, ['fednow', 'rtp', 'wire'])
  const wire = (await call('PUT', url(usd, 'bank', 'USD', 'wire'))).json().depositMethod.details
  t.equal(wire.accountNumber, d.accountNumber, 'the US networks of an account share its number')
  t.equal((await store.routeDeposit('us', d.accountNumber))?.id, usd)
})

t.test('the rail\'s checks: no rail, the account\'s asset, default-only, and the account\'s owner', async t => {
  const s = await setup(t)
  await ready(s)
  const { call, app } = s
  const usd = await account(s, 'USD')
  app.clock.advance(1)
  const second = await account(s, 'USD', 'Second')
  const noRail = await call('PUT', url(usd, 'bank', 'USD', 'sepa'))
  t.equal(noRail.statusCode, 404)
  t.same(noRail.json(), { code: 'entity_not_found', message: 'A rail for the specified type, asset and network cannot be found', details: { entity: 'rail' } })
  t.equal((await call('GET', url(usd, 'crypto', 'BTC', 'nowhere'))).statusCode, 404)

  const defaultOnly = await call('PUT', url(second, 'bank', 'USD', 'ach'))
  t.equal(defaultOnly.statusCode, 409)
  t.same(defaultOnly.json(), { code: 'rail_constraint_violated', message: 'Deposits for this rail are only available to the default account', details: { rule: 'allowed-deposit-accounts' } })
  t.equal((await call('PUT', url(second, 'bank', 'USD', 'fednow'))).statusCode, 201, 'other US rails take any account')

  // BTC into a USD account: converted on arrival, so the account's asset must be bought.
  t.equal((await call('PUT', url(usd, 'crypto', 'BTC', 'bitcoin'))).statusCode, 201)

  t.equal((await call('PUT', url(usd, 'card', 'USD', 'visa'))).statusCode, 400, 'type is crypto or bank')
  t.equal((await call('PUT', `/core/accounts/${usd}/deposit-method?type=crypto`)).statusCode, 400)
  const other = await makeUser(app)
  t.equal((await call('PUT', url(usd, 'bank', 'USD', 'ach'), { user: other.id })).statusCode, 404, 'another user\'s account')
})
