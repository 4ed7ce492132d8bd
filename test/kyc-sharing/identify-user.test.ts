import t from 'tap'
import { accessToken, bearer, build, DEMO_ORG, makeClient, makeUser, onBehalfOf, REQUEST_ID, UUID_RE } from '../helpers.js'

const URL = '/partner/kyc-sharing/identify-user'
const SCOPE = 'partner.kyc-sharing:identify-user'

interface EventRow { organization_id: string, type: string, payload: string }
const events = async (app: Awaited<ReturnType<typeof build>>): Promise<EventRow[]> =>
  await app.storage.db.prepare<[], EventRow>('SELECT organization_id, type, payload FROM events ORDER BY seq').all()

t.test('an unknown e-mail creates the user (201); the same e-mail in another case finds it (200)', async t => {
  const app = await build(t)
  const token = await accessToken(app, { scope: SCOPE })
  const first = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: 'Jane.Doe@Example.com', country: 'PT' } })
  t.equal(first.statusCode, 201)
  t.match(first.headers[REQUEST_ID], UUID_RE)
  const { user } = first.json()
  t.match(user.id, UUID_RE)
  t.same(first.json(), { user: { id: user.id, email: 'Jane.Doe@Example.com' } })

  const again = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: 'jane.doe@example.COM', country: 'PT' } })
  t.equal(again.statusCode, 200)
  t.same(again.json(), { user: { id: user.id, email: 'Jane.Doe@Example.com' } }, 'the stored address, as first given')

  const stored = await app.storage.users.get(DEMO_ORG, user.id)
  const now = app.clock.iso()
  t.same(stored?.record, {
    id: user.id,
    type: 'individual',
    email: 'Jane.Doe@Example.com',
    primaryCitizenship: 'PT',
    address: { country: 'PT' },
    createdAt: now,
    updatedAt: now
  })
})

t.test('a created user records one core.user.created event with the user as data', async t => {
  const app = await build(t)
  const token = await accessToken(app, { scope: SCOPE })
  const res = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: 'event@example.com', country: 'GB' } })
  await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: 'event@example.com', country: 'GB' } })
  const rows = await events(app)
  t.equal(rows.length, 1, 'the second (known) identification records nothing')
  t.equal(rows[0].type, 'core.user.created')
  t.equal(rows[0].organization_id, DEMO_ORG)
  const payload = JSON.parse(rows[0].payload)
  t.match(payload, { id: UUID_RE, type: 'core.user.created', createdAt: app.clock.iso() })
  t.same(payload.data.user, (await app.storage.users.get(DEMO_ORG, res.json().user.id))?.record)
})

t.test('two identical concurrent requests create exactly one user', async t => {
  const app = await build(t)
  const token = await accessToken(app, { scope: SCOPE })
  const send = () => app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: 'race@example.com', country: 'FR' } })
  const answers = await Promise.all([send(), send(), send()])
  t.same(answers.map(a => a.statusCode).sort(), [200, 200, 201])
  t.equal(new Set(answers.map(a => a.json().user.id)).size, 1, 'one id for all')
  t.equal((await app.storage.users.recent(DEMO_ORG, 1000)).length, 1)
  t.equal((await events(app)).length, 1)
})

t.test('losing the race to another writer answers 200 with the winner, creating nothing', async t => {
  const app = await build(t)
  const token = await accessToken(app, { scope: SCOPE })
  // Another request (another replica) inserts the same e-mail right after this one looked it up.
  const users = app.storage.users
  const findByEmail = users.findByEmail.bind(users)
  let winner: string | undefined
  users.findByEmail = async (org, email) => {
    if (winner === undefined) {
      winner = (await makeUser(app, org, email.toUpperCase())).id
      return undefined
    }
    return findByEmail(org, email)
  }
  const res = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: 'late@example.com', country: 'GB' } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { user: { id: winner, email: 'LATE@EXAMPLE.COM' } })
  t.equal((await app.storage.users.recent(DEMO_ORG, 1000)).length, 1)
  t.equal((await events(app)).length, 0, 'the loser records no event')
})

t.test('an unsupported country is 409 country_not_supported, for a known e-mail too', async t => {
  const app = await build(t)
  const token = await accessToken(app, { scope: SCOPE })
  const expected = { code: 'country_not_supported', message: 'The country is not supported', details: { context: 'body', property: 'country' } }
  const res = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: 'cu@example.com', country: 'CU' } })
  t.equal(res.statusCode, 409)
  t.same(res.json(), expected)
  t.equal((await app.storage.users.recent(DEMO_ORG, 1000)).length, 0, 'nothing created')

  await makeUser(app, DEMO_ORG, 'known@example.com')
  const known = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: 'known@example.com', country: 'KP' } })
  t.equal(known.statusCode, 409)
  t.same(known.json(), expected)
})

t.test('UNSUPPORTED_COUNTRIES decides which countries are refused', async t => {
  const app = await build(t, { unsupportedCountries: ['GB'] })
  const token = await accessToken(app, { scope: SCOPE })
  const gb = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: 'a@example.com', country: 'GB' } })
  const cu = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: 'b@example.com', country: 'CU' } })
  t.equal(gb.statusCode, 409)
  t.equal(cu.statusCode, 201)
})

t.test('bad input is 400 request_invalid naming each violation, and creates nothing', async t => {
  const app = await build(t)
  const token = await accessToken(app, { scope: SCOPE })
  const cases: Array<[string, unknown, Array<Record<string, unknown>>]> = [
    ['not a real country', { email: 'a@example.com', country: 'ZZ' }, [{ property: 'country', rule: 'format', ruleParams: { format: 'country-code' } }]],
    ['lowercase country', { email: 'a@example.com', country: 'gb' }, [
      { property: 'country', rule: 'pattern', ruleParams: { pattern: '^[A-Z]{2}$' } },
      { property: 'country', rule: 'format', ruleParams: { format: 'country-code' } }
    ]],
    ['three letters', { email: 'a@example.com', country: 'GBR' }, [
      { property: 'country', rule: 'pattern', ruleParams: { pattern: '^[A-Z]{2}$' } },
      { property: 'country', rule: 'format', ruleParams: { format: 'country-code' } }
    ]],
    ['not an e-mail', { email: 'not-an-email', country: 'GB' }, [{ property: 'email', rule: 'format', ruleParams: { format: 'email' } }]],
    ['e-mail too long', { email: `${'a'.repeat(244)}@example.com`, country: 'GB' }, [{ property: 'email', rule: 'maxLength', ruleParams: { limit: 255 } }]],
    ['missing both', {}, [{ property: 'email', rule: 'required' }, { property: 'country', rule: 'required' }]],
    ['wrong types', { email: 5, country: ['GB'] }, [
      { property: 'email', rule: 'type', ruleParams: { type: 'string' } },
      { property: 'country', rule: 'type', ruleParams: { type: 'string' } }
    ]]
  ]
  for (const [name, payload, violations] of cases) {
    const res = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: payload as object })
    t.equal(res.statusCode, 400, name)
    t.same(res.json(), { code: 'request_invalid', message: 'The request has missing or invalid parameters', details: { context: 'body', violations } }, name)
  }
  const longest = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload: { email: `${'a'.repeat(243)}@example.com`, country: 'GB' } })
  t.equal(longest.statusCode, 201, '255 characters pass')
  t.equal((await app.storage.users.recent(DEMO_ORG, 1000)).length, 1)
})

t.test('the scope and a client subject are required', async t => {
  const app = await build(t)
  const payload = { email: 'a@example.com', country: 'GB' }
  const none = await app.inject({ method: 'POST', url: URL, payload })
  t.equal(none.statusCode, 401)
  t.equal(none.json().code, 'token_invalid')

  const other = await accessToken(app, { scope: 'core.users:create' })
  const wrong = await app.inject({ method: 'POST', url: URL, headers: bearer(other), payload })
  t.equal(wrong.statusCode, 403)
  t.same(wrong.json(), {
    code: 'token_insufficient_scopes',
    message: 'Authorization failed due to insufficient scopes',
    details: { security: [{ scheme: 'OAuth', schemeScopes: [SCOPE], tokenScopes: ['core.users:create'] }] }
  })

  const user = await makeUser(app)
  const both = await accessToken(app, { scope: `${SCOPE} core.users:act-on-behalf-of` })
  const asUser = await app.inject({ method: 'POST', url: URL, headers: { ...bearer(both), ...onBehalfOf(user.id) }, payload })
  t.equal(asUser.statusCode, 403)
  t.equal(asUser.json().code, 'token_subject_not_allowed')
  t.equal((await app.storage.users.recent(DEMO_ORG, 1000)).length, 1, 'only the user made by the test')
})

t.test('organizations are isolated: the same e-mail is a different user in each', async t => {
  const app = await build(t)
  const other = await makeClient(app, { scopes: [SCOPE] })
  const demoToken = await accessToken(app, { scope: SCOPE })
  const otherToken = await accessToken(app, { clientId: other.clientId, secret: other.secret })
  const payload = { email: 'shared@example.com', country: 'GB' }
  const a = await app.inject({ method: 'POST', url: URL, headers: bearer(demoToken), payload })
  const b = await app.inject({ method: 'POST', url: URL, headers: bearer(otherToken), payload })
  t.equal(a.statusCode, 201)
  t.equal(b.statusCode, 201, 'unknown in the second organization')
  t.not(a.json().user.id, b.json().user.id)
  t.equal((await app.storage.users.get(other.organizationId, a.json().user.id)), undefined)
  const rows = await events(app)
  t.same(rows.map(r => r.organization_id), [DEMO_ORG, other.organizationId], 'each event belongs to its organization')
})

t.test('PARTNER_AREA names the path and the scope', async t => {
  const app = await build(t, { partnerArea: 'topper' })
  const token = await accessToken(app, { scope: 'topper.kyc-sharing:identify-user' })
  const payload = { email: 'a@example.com', country: 'GB' }
  const res = await app.inject({ method: 'POST', url: '/topper/kyc-sharing/identify-user', headers: bearer(token), payload })
  t.equal(res.statusCode, 201)
  const old = await app.inject({ method: 'POST', url: URL, headers: bearer(token), payload })
  t.equal(old.statusCode, 404)
  t.equal(old.json().code, 'route_not_found')
})
