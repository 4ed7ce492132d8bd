// The two card limits of the reference, set in the organization's configuration
// (`organizationPermissions.cardLimits`): cards held at once (over it, the `cards` capability
// requires `user-must-delete-card`, and deleting one lifts it) and distinct cards ever added (over
// it, the restriction `user-unique-card-limit-reached`, which deleting does not lift).
import t from 'tap'
import { accessToken, bearer, DEMO_ORG, makeClient, makeUser, onBehalfOf } from '../helpers.js'
import { ready, setup, type Call, type Setup } from '../accounts/support.js'
import { card } from './support.js'

// One ready user for the file, made before the first test (not at the top level, where the root
// test may end while a database round trip is pending).
let s: Setup
t.before(async () => {
  s = await setup(t, { cardCheckDelaySeconds: 0 })
  await ready(s)
})

const fixture = async (document: Record<string, unknown>): Promise<{ statusCode: number, json: () => any }> =>
  await s.app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: document })
const add = (number: string) => s.call('POST', '/core/external-accounts', { payload: card(number, { label: `Card ${number.slice(-4)}` }) })
const capability = async (): Promise<unknown> => (await s.call('GET', '/core/capabilities/cards')).json().capability
const held = async (): Promise<string[]> => (await s.call('GET', '/core/external-accounts')).json().externalAccounts.map((a: { details: { last4Digits: string } }) => a.details.last4Digits).sort()
const failure = (requirements: string[], restrictions: string[]) => ({
  code: 'user_capability_failure',
  message: 'The user has capability constraints',
  details: { capability: { code: 'cards', requirements, restrictions } }
})
const cards = (enabled: boolean, requirements: string[], restrictions: string[]) => ({ code: 'cards', name: 'Cards', enabled, requirements, restrictions })

// Luhn-valid Visa numbers, each a distinct card.
const A = '4111111111111111'
const B = '4242424242424242'
const C = '4012888888881881'
const D = '4222222222222'
const E = '4917610000000000'

t.test('the limits are the organization\'s: the fixture key takes them and refuses bad ones by path', async t => {
  const bad = await fixture({ organizationPermissions: [{ cardLimits: { active: 0, unique: 1.5 } }] })
  t.equal(bad.statusCode, 400)
  t.same(bad.json().details.violations.map((v: { property: string, rule: string }) => [v.property, v.rule]), [
    ['organizationPermissions.0.cardLimits.active', 'minimum'], ['organizationPermissions.0.cardLimits.unique', 'type']
  ])
  const good = await fixture({ organizationPermissions: [{ organizationId: DEMO_ORG, cardLimits: { active: 3, unique: 4 } }] })
  t.equal(good.statusCode, 201)
})

t.test('cards held: at the limit another needs one deleted, and deleting one lifts it', async t => {
  t.same(await capability(), cards(true, [], []))
  for (const n of [A, B, C]) t.equal((await add(n)).statusCode, 201, n)
  t.same(await capability(), cards(true, ['user-must-delete-card'], []), 'three held of three')
  const refused = await add(D)
  t.equal(refused.statusCode, 409)
  t.same(refused.json(), failure(['user-must-delete-card'], []))
  t.same(await held(), ['1111', '1881', '4242'], 'nothing was added')
  const first = (await s.call('GET', '/core/external-accounts')).json().externalAccounts.find((a: { details: { last4Digits: string } }) => a.details.last4Digits === '1111').id
  t.equal((await s.call('DELETE', `/core/external-accounts/${first}`)).statusCode, 204)
  t.same(await capability(), cards(true, [], []), 'deleting one lifts it')
  t.equal((await add(D)).statusCode, 201, 'the fourth distinct card')
})

t.test('distinct cards ever added: at the limit no new card, and deleting does not lift it', async t => {
  // Held: B, C, D; added: A, B, C, D (four of four).
  t.same(await capability(), cards(false, ['user-must-delete-card'], ['user-unique-card-limit-reached']), 'both limits at once')
  const second = (await s.call('GET', '/core/external-accounts')).json().externalAccounts.find((a: { details: { last4Digits: string } }) => a.details.last4Digits === '4242').id
  t.equal((await s.call('DELETE', `/core/external-accounts/${second}`)).statusCode, 204)
  t.same(await capability(), cards(false, [], ['user-unique-card-limit-reached']), 'deleting lifts the held limit, not the unique one')
  const refused = await add(E)
  t.equal(refused.statusCode, 409)
  t.same(refused.json(), failure([], ['user-unique-card-limit-reached']))
  t.same(await held(), ['1881', '2222'], 'nothing was added')
  // A card added before is no new distinct card: it comes back.
  t.equal((await add(A)).statusCode, 201, 'a card added before, deleted since, can be added again')
})

t.test('the limits concern adding a card: a card held still funds a quote', async t => {
  const account = (await s.call('POST', '/core/accounts', { payload: { label: 'GBP', asset: 'GBP' } })).json().account.id as string
  const cardId = (await s.call('GET', '/core/external-accounts')).json().externalAccounts[0].id as string
  // The card's check over: it is `ok`.
  t.equal((await s.app.inject({ method: 'POST', url: `/_sandbox/external-accounts/${cardId}/status`, payload: { status: 'ok' } })).statusCode, 200)
  t.same((await capability() as { restrictions: string[] }).restrictions, ['user-unique-card-limit-reached'])
  const quote = await s.call('POST', '/core/transactions/quote', {
    payload: { origin: { type: 'external-account', id: cardId }, destination: { type: 'account', id: account }, denomination: { asset: 'GBP', amount: '20' } }
  })
  t.equal(quote.statusCode, 201, quote.body)
})

t.test('an organization without its own limits has the defaults: 5 held, 10 distinct ever added', async t => {
  const other = await makeClient(s.app)
  const token = await accessToken(s.app, { clientId: other.clientId, secret: other.secret })
  const user = await makeUser(s.app, other.organizationId)
  const call: Call = async (method, url, { payload, headers = {} } = {}) =>
    await s.app.inject({ method, url, payload: payload as object, headers: { ...bearer(token), ...onBehalfOf(user.id), ...headers } })
  await ready({ app: s.app, userId: user.id, call })
  const numbers = Array.from({ length: 11 }, (_, i) => luhn(`4000123400${String(i).padStart(5, '0')}`))
  const addAs = (number: string) => call('POST', '/core/external-accounts', { payload: card(number) })
  const remove = async (): Promise<void> => {
    for (const a of (await call('GET', '/core/external-accounts')).json().externalAccounts) await call('DELETE', `/core/external-accounts/${a.id as string}`)
  }
  for (const n of numbers.slice(0, 5)) t.equal((await addAs(n)).statusCode, 201)
  t.same((await addAs(numbers[5])).json(), failure(['user-must-delete-card'], []), 'a sixth card held')
  await remove()
  for (const n of numbers.slice(5, 10)) t.equal((await addAs(n)).statusCode, 201)
  await remove()
  t.same((await addAs(numbers[10])).json(), failure([], ['user-unique-card-limit-reached']), 'an eleventh distinct card')
  t.equal((await addAs(numbers[0])).statusCode, 201, 'one added before')
})

/** The number with its Luhn check digit appended. */
function luhn (body: string): string {
  let sum = 0
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i])
    if (i % 2 === 0) { d *= 2; if (d > 9) d -= 9 }
    sum += d
  }
  return `${body}${(10 - sum % 10) % 10}`
}
