// POST /core/users as an integrator sees it: the created user, its metadata, its event, and every
// refusal with nothing stored.
import t from 'tap'
import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { accessToken, bearer, build, DEMO_ORG, makeClient, makeUser, onBehalfOf, REQUEST_ID, userIp, UUID_RE } from '../helpers.js'
import { createUser } from '../../src/users/service.js'

const NOW = '2030-06-15T12:00:00.000Z'
const VALID = {
  email: 'John.Doe@Example.com',
  termsOfService: 'general-gb-fca',
  primaryCitizenship: 'GB',
  address: { country: 'GB', subdivision: 'GB-MAN' }
}
const TOO_LARGE = {
  code: 'content_too_large',
  message: 'The entity metadata size is greater than maximum size limit',
  details: { threshold: { unit: 'characters', limit: '1024' } }
}
const etag = (value: unknown): string => `"${createHash('sha256').update(JSON.stringify(value)).digest('hex')}"`

async function setup (t: Parameters<typeof build>[0], overrides = {}) {
  const app = await build(t, overrides)
  app.clock.set(Date.parse(NOW))
  const token = await accessToken(app)
  const create = (body: unknown, headers: Record<string, string> = {}) => app.inject({
    method: 'POST', url: '/core/users', headers: { ...bearer(token), ...userIp(), 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body)
  })
  return { app, token, create }
}

const usersOf = async (app: FastifyInstance, org = DEMO_ORG) => app.storage.users.recent(org, 1000)
// The outbox itself: the webhook dispatcher may already have handed an event on (it stays, marked).
const createdEvents = async (app: FastifyInstance) =>
  (await app.storage.db.prepare<[], { id: string, organization_id: string, payload: string }>("SELECT id, organization_id, payload FROM events WHERE type = 'core.user.created' ORDER BY seq").all())
    .map(r => ({ id: r.id, organizationId: r.organization_id, payload: JSON.parse(r.payload) as Record<string, unknown> }))

t.test('a valid body creates the user: 201 { user }, stored, and core.user.created in the outbox', async t => {
  const { app, create } = await setup(t)
  const res = await create(VALID)
  t.equal(res.statusCode, 201)
  t.match(res.headers[REQUEST_ID], UUID_RE)
  const body = res.json()
  t.same(Object.keys(body), ['user'], 'no errors member')
  t.match(body.user.id, UUID_RE)
  t.same(body.user, {
    id: body.user.id,
    type: 'individual',
    email: 'John.Doe@Example.com',
    primaryCitizenship: 'GB',
    address: { country: 'GB', subdivision: 'GB-MAN' },
    createdAt: NOW,
    updatedAt: NOW
  })
  const stored = await app.storage.users.get(DEMO_ORG, body.user.id)
  t.same(stored?.record, body.user)

  const events = await createdEvents(app)
  t.equal(events.length, 1)
  t.equal(events[0].organizationId, DEMO_ORG)
  t.match(events[0].payload, { id: events[0].id, type: 'core.user.created', createdAt: NOW })
  t.same(events[0].payload.data, { user: body.user })
})

t.test('every optional field is kept; partnerOnboardedAt is answered in UTC', async t => {
  const { create } = await setup(t)
  const res = await create({
    ...VALID,
    type: 'individual',
    email: 'full@example.com',
    fullName: 'John  Middle Doe',
    birthdate: '1987-01-01',
    address: { country: 'GB', subdivision: 'GB-MAN', city: 'Manchester', line1: '1 High Street', line2: 'Northern Quarter', postalCode: 'M4 1AA' },
    phone: { number: '+447400123456', country: 'GB' },
    partnerOnboardedAt: '2030-01-01T10:00:00+02:00'
  })
  t.equal(res.statusCode, 201)
  t.same(res.json().user, {
    id: res.json().user.id,
    type: 'individual',
    email: 'full@example.com',
    fullName: 'John  Middle Doe',
    birthdate: '1987-01-01',
    primaryCitizenship: 'GB',
    address: { country: 'GB', subdivision: 'GB-MAN', city: 'Manchester', line1: '1 High Street', line2: 'Northern Quarter', postalCode: 'M4 1AA' },
    phone: { number: '+447400123456', country: 'GB' },
    partnerOnboardedAt: '2030-01-01T08:00:00.000Z',
    createdAt: NOW,
    updatedAt: NOW
  })
})

t.test('metadata in the body becomes the user\'s metadata', async t => {
  const { app, token, create } = await setup(t)
  const metadata = { externalId: 123, tags: ['a'] }
  const res = await create({ ...VALID, metadata })
  t.equal(res.statusCode, 201)
  t.same(Object.keys(res.json()), ['user'])
  const get = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(token), ...onBehalfOf(res.json().user.id) } })
  t.equal(get.statusCode, 200)
  t.same(get.json(), { metadata })
  t.equal(get.headers.etag, etag(metadata))
})

t.test('metadata over 1024 characters: the user is still created, errors.metadata says why, no metadata is stored', async t => {
  const { app, token, create } = await setup(t)
  const pad = 1025 - [...JSON.stringify({ note: '😀' })].length
  const metadata = { note: '😀' + 'x'.repeat(pad) }
  t.equal([...JSON.stringify(metadata)].length, 1025)
  const res = await create({ ...VALID, metadata })
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.same(body.errors, { metadata: TOO_LARGE })
  t.same(body.user, { id: body.user.id, type: 'individual', email: VALID.email, primaryCitizenship: 'GB', address: VALID.address, createdAt: NOW, updatedAt: NOW })
  t.ok(await app.storage.users.get(DEMO_ORG, body.user.id), 'the user exists')
  t.equal((await createdEvents(app)).length, 1, 'and its event')
  const get = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(token), ...onBehalfOf(body.user.id) } })
  t.equal(get.statusCode, 404)
  t.same(get.json(), { code: 'entity_not_found', message: 'The entity metadata cannot be found', details: { entity: 'metadata' } })

  const exact = { note: '😀' + 'x'.repeat(pad - 1) }
  const ok = await create({ ...VALID, email: 'exact@example.com', metadata: exact })
  t.same(Object.keys(ok.json()), ['user'], '1024 characters are fine')
})

t.test('invalid bodies are 400 request_invalid with violations, and create nothing', async t => {
  const { app, create } = await setup(t)
  const cases: Array<[string, unknown, Array<{ property: string, rule: string }>]> = [
    ['empty body', {}, [
      { property: 'email', rule: 'required' }, { property: 'termsOfService', rule: 'required' },
      { property: 'primaryCitizenship', rule: 'required' }, { property: 'address', rule: 'required' }
    ]],
    ['not an e-mail', { ...VALID, email: 'nope' }, [{ property: 'email', rule: 'format' }]],
    ['e-mail over 254', { ...VALID, email: 'a'.repeat(250) + '@b.io' }, [{ property: 'email', rule: 'maxLength' }]],
    ['unknown property', { ...VALID, nickname: 'jd' }, [{ property: 'nickname', rule: 'additionalProperties' }]],
    ['business users', { ...VALID, type: 'business' }, [{ property: 'type', rule: 'enum' }]],
    ['terms of service', { ...VALID, termsOfService: 'general-xx' }, [{ property: 'termsOfService', rule: 'enum' }]],
    ['not a country', { ...VALID, primaryCitizenship: 'XX' }, [{ property: 'primaryCitizenship', rule: 'format' }]],
    ['lowercase country', { ...VALID, address: { country: 'gb' } }, [{ property: 'address.country', rule: 'pattern' }, { property: 'address.country', rule: 'format' }]],
    ['not a subdivision', { ...VALID, address: { country: 'GB', subdivision: 'GB-ZZZZ' } }, [{ property: 'address.subdivision', rule: 'pattern' }]],
    ['address without country', { ...VALID, address: { city: 'Leeds' } }, [{ property: 'address.country', rule: 'required' }]],
    ['address extra', { ...VALID, address: { country: 'GB', street: 'x' } }, [{ property: 'address.street', rule: 'additionalProperties' }]],
    ['padded city', { ...VALID, address: { country: 'GB', city: ' Leeds' } }, [{ property: 'address.city', rule: 'pattern' }]],
    ['one name', { ...VALID, fullName: 'John' }, [{ property: 'fullName', rule: 'pattern' }]],
    ['not a date', { ...VALID, birthdate: '1987-02-30' }, [{ property: 'birthdate', rule: 'format' }]],
    ['phone number', { ...VALID, phone: { number: '0740', country: 'GB' } }, [{ property: 'phone.number', rule: 'pattern' }]],
    ['not a date-time', { ...VALID, partnerOnboardedAt: 'yesterday' }, [{ property: 'partnerOnboardedAt', rule: 'format' }]],
    ['empty metadata', { ...VALID, metadata: {} }, [{ property: 'metadata', rule: 'minProperties' }]],
    ['metadata not an object', { ...VALID, metadata: [1] }, [{ property: 'metadata', rule: 'type' }]],
    ['not an object', [VALID], [{ property: '', rule: 'type' }]]
  ]
  for (const [name, body, violations] of cases) {
    const res = await create(body)
    t.equal(res.statusCode, 400, name)
    t.equal(res.json().code, 'request_invalid', name)
    t.equal(res.json().message, 'The request has missing or invalid parameters')
    t.equal(res.json().details.context, 'body')
    t.same(res.json().details.violations.map((v: { property: string, rule: string }) => ({ property: v.property, rule: v.rule })), violations, name)
  }
  t.same(await usersOf(app), [])
  t.same(await createdEvents(app), [])
})

t.test('a duplicate e-mail, in any case, is 409 email_already_exists; another organization may use it', async t => {
  const { app, create } = await setup(t)
  t.equal((await create(VALID)).statusCode, 201)
  for (const email of [VALID.email, VALID.email.toLowerCase(), VALID.email.toUpperCase()]) {
    const res = await create({ ...VALID, email, metadata: { a: 1 } })
    t.equal(res.statusCode, 409, email)
    t.same(res.json(), { code: 'email_already_exists', message: 'The provided email is already in use by another user' })
  }
  t.equal((await usersOf(app)).length, 1)
  t.equal((await createdEvents(app)).length, 1, 'no event for a refused creation')

  const other = await makeClient(app)
  const otherToken = await accessToken(app, { clientId: other.clientId, secret: other.secret })
  const res = await app.inject({ method: 'POST', url: '/core/users', headers: { ...bearer(otherToken), ...userIp() }, payload: VALID })
  t.equal(res.statusCode, 201)
  t.equal((await usersOf(app, other.organizationId)).length, 1)
})

t.test('409 country_not_supported names the property; the list is configurable', async t => {
  const { app, create } = await setup(t, { unsupportedCountries: ['KP', 'GB'] })
  const cases: Array<[unknown, string]> = [
    [{ ...VALID, primaryCitizenship: 'KP', address: { country: 'PT' } }, 'primaryCitizenship'],
    [{ ...VALID, primaryCitizenship: 'PT', address: { country: 'GB' } }, 'address.country'],
    [{ ...VALID, primaryCitizenship: 'PT', address: { country: 'PT' }, phone: { number: '+4474', country: 'GB' } }, 'phone.country']
  ]
  for (const [body, property] of cases) {
    const res = await create(body)
    t.equal(res.statusCode, 409, property)
    t.same(res.json(), { code: 'country_not_supported', message: 'The country is not supported', details: { context: 'body', property } })
  }
  t.same(await usersOf(app), [])
  t.equal((await create({ ...VALID, termsOfService: 'general-pt-bop', primaryCitizenship: 'PT', address: { country: 'PT' } })).statusCode, 201)
})

t.test('a subdivision of another country is 409 subdivision_not_supported', async t => {
  const { app, create } = await setup(t)
  const res = await create({ ...VALID, address: { country: 'GB', subdivision: 'US-CA' } })
  t.equal(res.statusCode, 409)
  t.same(res.json(), { code: 'subdivision_not_supported', message: 'The subdivision is not supported', details: { context: 'body', property: 'address.subdivision' } })
  t.same(await usersOf(app), [])
})

t.test('partnerOnboardedAt must be in the past of the sandbox clock', async t => {
  const { app, create } = await setup(t)
  const want = {
    code: 'date_invalid',
    message: 'The date must be in the past',
    details: { context: 'body', property: 'partnerOnboardedAt', rule: 'difference-greater-than-threshold', threshold: { limit: 0 } }
  }
  for (const at of [NOW, '2030-06-15T12:00:00.001Z', '2031-01-01T00:00:00Z']) {
    const res = await create({ ...VALID, partnerOnboardedAt: at })
    t.equal(res.statusCode, 409, at)
    t.same(res.json(), want)
  }
  t.same(await usersOf(app), [])
  t.equal((await create({ ...VALID, partnerOnboardedAt: '2030-06-15T11:59:59.999Z' })).statusCode, 201)
  app.clock.advance(365 * 24 * 3600)
  const later = await app.inject({
    method: 'POST', url: '/core/users', headers: { ...bearer(await accessToken(app)), ...userIp() }, payload: { ...VALID, email: 'later@example.com', partnerOnboardedAt: '2031-01-01T00:00:00Z' }
  })
  t.equal(later.statusCode, 201, 'past once the clock moves on')
})

t.test('birthdate: 18 to 100 years before the sandbox clock\'s date', async t => {
  const { app, create } = await setup(t)
  const under = await create({ ...VALID, birthdate: '2012-06-16' })
  t.equal(under.statusCode, 409)
  t.same(under.json(), {
    code: 'date_invalid',
    message: 'The date must be older than or equal to 18 years ago',
    details: { context: 'body', property: 'birthdate', rule: 'difference-greater-than-or-equal-to-threshold', threshold: { limit: 18, unit: 'years' } }
  })
  const over = await create({ ...VALID, birthdate: '1930-06-14' })
  t.equal(over.statusCode, 409)
  t.equal(over.json().details.rule, 'difference-less-than-or-equal-to-threshold')
  t.same(await usersOf(app), [])
  t.equal((await create({ ...VALID, email: 'a@example.com', birthdate: '2012-06-15' })).statusCode, 201, '18 today')
  t.equal((await create({ ...VALID, email: 'b@example.com', birthdate: '1930-06-15' })).statusCode, 201, '100 today')
})

t.test('client subject with core.users:create only', async t => {
  const { app, token } = await setup(t)
  const noToken = await app.inject({ method: 'POST', url: '/core/users', payload: VALID })
  t.equal(noToken.statusCode, 401)
  const narrow = await accessToken(app, { scope: 'core.users:read' })
  const scope = await app.inject({ method: 'POST', url: '/core/users', headers: bearer(narrow), payload: VALID })
  t.equal(scope.statusCode, 403)
  t.same(scope.json().details.security[0].schemeScopes, ['core.users:create'])
  const someone = await makeUser(app)
  const asUser = await app.inject({ method: 'POST', url: '/core/users', headers: { ...bearer(token), ...onBehalfOf(someone.id) }, payload: VALID })
  t.equal(asUser.statusCode, 403)
  t.same(asUser.json().details, { subjects: ['client'], tokenSubject: 'user' })
  t.equal((await usersOf(app)).length, 1, 'only the user made for the test')
})

t.test('createUser for other areas: an e-mail and a country are enough', async t => {
  const { app } = await setup(t)
  const { user, errors } = await createUser(app, DEMO_ORG, { email: 'kyc@example.com', address: { country: 'PT' } })
  t.equal(errors, undefined)
  t.same(user, { id: user.id, type: 'individual', email: 'kyc@example.com', primaryCitizenship: 'PT', address: { country: 'PT' }, createdAt: NOW, updatedAt: NOW })
  t.same((await createdEvents(app))[0].payload.data, { user })
  await t.rejects(createUser(app, DEMO_ORG, { email: 'KYC@example.com', address: { country: 'PT' } }), { statusCode: 409, code: 'email_already_exists' })
})

t.test('the OpenAPI document describes POST /core/users', async t => {
  const { app } = await setup(t)
  const op = (await app.inject({ method: 'GET', url: '/openapi.json' })).json().paths['/core/users'].post
  t.equal(op.operationId, 'createUser')
  t.same(op.tags, ['Users'])
  t.same(op.security, [{ OAuth2: ['core.users:create'] }])
  t.same(Object.keys(op.responses).sort(), ['201', '400', '401', '403', '409', '413', '415', '429'])
  t.ok(op.requestBody.content['application/json'].schema.properties.metadata)
})
