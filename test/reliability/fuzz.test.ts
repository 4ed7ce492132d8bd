// Hostile input on every route: random and adversarial methods, paths, parameters, headers and
// bodies, near-valid bodies mutated at random places, against the API and the control plane. Every
// answer must be below 500, carry the request id, be empty where it must, and be in its route's
// error envelope; afterwards the server is healthy and Object.prototype is untouched.
// The requests act for a user at KYC ok who holds accounts, funds and a card, so they reach the
// handlers and not only the guard; each operation's own query parameters and body fields (read
// from the app's registered routes, not listed here) get valid and hostile values, first one at a
// time in a sweep, then at random.
// `npm test` runs a fixed seed; `npm run fuzz` runs longer (FUZZ_RUNS, FUZZ_SEED).
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { randomUUID } from 'node:crypto'
import { Agent, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../src/config.js'
import { backend, basic, bearer, build, closedPort, DEMO_ID, DEMO_SECRET, makeClient, onBehalfOf } from '../helpers.js'
import { webhooksStore } from '../../src/webhooks/store.js'
import { hashLinkToken } from '../../src/webhooks/service.js'
import { documentedRoutes, envelopeProblem, routesOf, type Route } from './support.js'
import { AreaRegistry } from '../../src/kit/area.js'
import { areas } from '../../src/areas.js'

// On PostgreSQL every statement is a round trip: fewer random runs after the same sweep, so the
// file stays well inside its time on a loaded 2-core machine.
const RUNS = Number(process.env.FUZZ_RUNS ?? (backend === 'postgres' ? 500 : 1500))
const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611)
// A long run (`npm run fuzz`) needs more than the suite's per-file timeout, and so does the sweep
// on PostgreSQL, where each of its statements is a round trip (about 100 s alone, more beside
// the other test files).
t.setTimeout(Math.max(backend === 'postgres' ? 600_000 : 120_000, RUNS * 25))
const ADMIN = 'fuzz-admin-token-0123456789'

// ---- The world a run plays in: two organizations with users, entities, metadata, a link, an endpoint and a message.

interface World {
  orgA: string
  clientA: string
  secretA: string
  tokenA: string
  refreshA: string
  userTokenA: string
  userA: string
  accountA: string
  accountGBP: string
  accountBTC: string
  fileA: string
  externalAccountA: string
  cardA: string
  quoteA: string
  sortCodeA: string
  fpsAccountA: string
  fpsReferenceA: string
  transactionA: string
  etagA: string
  linkA: string
  endpointA: string
  messageA: string
  orgB: string
  clientB: string
  tokenB: string
  userB: string
  accountB: string
  linkB: string
  linkExpired: string
  hookUrl: string
}

// Setup calls come from addresses of their own, so a rate limit the runs exhaust does not stop them.
let setupAddress = 0
async function call (app: FastifyInstance, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) {
  setupAddress++
  const res = await app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${ADMIN}`, ...headers },
    remoteAddress: `10.${(setupAddress >> 16) & 255}.${(setupAddress >> 8) & 255}.${setupAddress & 255}`,
    ...(payload === undefined ? {} : { payload: payload as string })
  })
  if (res.statusCode >= 300) throw new Error(`setup ${method} ${url}: ${res.statusCode} ${res.body}`)
  return res
}

/** A client-credentials token, asked from a setup address of its own (the runs may have used up their own address's rate limit). */
async function issue (app: FastifyInstance, clientId: string, secret: string): Promise<{ access_token: string, refresh_token?: string }> {
  const res = await call(app, 'POST', '/core/oauth2/token', 'grant_type=client_credentials', { authorization: basic(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' })
  return res.json()
}

// The end user's context, under the default SERVICE_NAME: POST /core/users and transactions need it.
const CONTEXT = { 'x-service-user-ip': '47.174.97.164', 'x-service-user-agent': 'fuzz/1.0' }
const KYC_PROCESSES = [
  'profile', 'address', 'email', 'phone', 'identity', 'proof-of-address', 'customer-due-diligence', 'enhanced-due-diligence',
  'crypto-risk-assessment', 'self-categorization-statement', 'tax-details', 'screening', 'risk'
]
let cards = 0

/** A Luhn-valid Visa number of its own (none of the test cards, which start 4000, 4111), so each world's card is new and approved. */
function cardNumber (): string {
  const body = `4929${String(++cards).padStart(11, '0')}`
  let sum = 0
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i])
    if (i % 2 === 0) { d *= 2; if (d > 9) d -= 9 }
    sum += d
  }
  return `${body}${(10 - sum % 10) % 10}`
}

async function makeWorld (app: FastifyInstance, hookUrl: string): Promise<World> {
  setupAddress++
  const a = await makeClient(app, { refreshTokens: true })
  const b = await makeClient(app)
  const issued = await issue(app, a.clientId, a.secret)
  const tokenB = (await issue(app, b.clientId, b.secret)).access_token
  const user = (await call(app, 'POST', '/core/users', {
    email: `fuzz-${randomUUID()}@example.com`,
    termsOfService: 'general-gb-fca',
    primaryCitizenship: 'GB',
    fullName: 'Fuzz Tester',
    birthdate: '1990-01-01',
    address: { country: 'GB', subdivision: 'GB-MAN', city: 'Manchester', line1: '1 High Street', postalCode: 'M4 1AA' }
  }, { ...bearer(issued.access_token), ...CONTEXT })).json().user
  // User A can do what the API offers: KYC ok, the cooldown over, the vIBAN terms accepted, accounts with funds, an ok card, a quote.
  const asA = { ...bearer(issued.access_token), ...onBehalfOf(user.id) }
  for (const process of KYC_PROCESSES) await call(app, 'POST', `/_sandbox/users/${user.id as string}/kyc/${process}`, { status: 'ok' })
  await call(app, 'PUT', '/core/assets/test-helpers/skip-assets-cooldowns', undefined, asA)
  await call(app, 'POST', '/core/terms-of-service/unique-account-number-viban/accept', undefined, { ...asA, ...CONTEXT })
  const newAccount = async (asset: string): Promise<string> => (await call(app, 'POST', '/core/accounts', { label: `Fuzz ${asset}`, asset }, asA)).json().account.id as string
  const accountGBP = await newAccount('GBP')
  const accountBTC = await newAccount('BTC')
  const fps = (await call(app, 'PUT', `/core/accounts/${accountGBP}/deposit-method?type=bank&asset=GBP&network=fps`, undefined, asA)).json().depositMethod.details
  await call(app, 'POST', '/core/accounts/test-helpers/bank-deposits', {
    network: 'fps', sortCode: fps.sortCode, accountNumber: fps.accountNumber, ...(fps.reference === undefined ? {} : { reference: fps.reference }), asset: 'GBP', amount: '5000'
  }, asA)
  const cardA = (await call(app, 'POST', '/core/external-accounts', {
    type: 'card', label: 'Fuzz card', number: cardNumber(), securityCode: '123', expiryDate: { month: 12, year: 2099 }
  }, asA)).json().externalAccount.id as string
  await call(app, 'POST', `/_sandbox/external-accounts/${cardA}/status`, { status: 'ok' })
  const quoteA = (await call(app, 'POST', '/core/transactions/quote', {
    origin: { type: 'account', id: accountGBP }, destination: { type: 'account', id: accountBTC }, denomination: { asset: 'GBP', amount: '10' }
  }, asA)).json().quote.id as string
  const userB = (await call(app, 'POST', '/_sandbox/fixtures', { users: [{ email: `b-${randomUUID()}@example.com`, organizationId: b.organizationId }] })).json().users[0].id as string
  const entity = async (type: string): Promise<string> => (await call(app, 'POST', `/_sandbox/entities/${type}`, { userId: user.id })).json().id as string
  const accountA = await entity('accounts')
  const fileA = await entity('files')
  const externalAccountA = await entity('external-accounts')
  const transactionA = await entity('transactions')
  const accountB = (await call(app, 'POST', '/_sandbox/entities/accounts', { userId: userB })).json().id as string
  const bound = await makeClient(app, { organizationId: a.organizationId, userId: user.id })
  const userTokenA = (await issue(app, bound.clientId, bound.secret)).access_token
  const etagA = (await call(app, 'PUT', '/core/users/me/metadata', { tier: 'gold', tags: ['a'] }, { ...bearer(issued.access_token), ...onBehalfOf(user.id) })).headers.etag as string
  const link = async (token: string): Promise<string> =>
    new URL((await call(app, 'POST', '/core/webhooks/management-link', undefined, bearer(token))).json().managementLink.url).pathname.split('/').pop()!
  const linkA = await link(issued.access_token)
  const linkB = await link(tokenB)
  // A link made long enough ago to have expired by now.
  const now = app.clock.now()
  app.clock.set(now - (app.config.managementLinkTtlSeconds + 60) * 1000)
  const linkExpired = await link(issued.access_token)
  app.clock.set(now)
  const endpointA = (await call(app, 'POST', `/webhooks/portal/${linkA}/api/endpoints`, { url: hookUrl })).json().endpoint.id as string
  const messageA = (await call(app, 'POST', `/webhooks/portal/${linkA}/api/endpoints/${endpointA}/test`)).json().message.id as string
  return {
    orgA: a.organizationId,
    clientA: a.clientId,
    secretA: a.secret,
    tokenA: issued.access_token,
    refreshA: issued.refresh_token ?? '',
    userTokenA,
    userA: user.id,
    accountA,
    accountGBP,
    accountBTC,
    fileA,
    externalAccountA,
    cardA,
    quoteA,
    sortCodeA: fps.sortCode,
    fpsAccountA: fps.accountNumber,
    fpsReferenceA: fps.reference ?? '',
    transactionA,
    etagA,
    linkA,
    endpointA,
    messageA,
    orgB: b.organizationId,
    clientB: b.clientId,
    tokenB,
    userB,
    accountB,
    linkB,
    linkExpired,
    hookUrl
  }
}

/** Whether the world still stands after a run (a reset, a rotation or a deletion may have undone it). */
async function standing (app: FastifyInstance, w: World): Promise<boolean> {
  try {
    await app.tokens.verify(w.tokenA)
    await app.tokens.verify(w.userTokenA)
  } catch {
    return false
  }
  if (await app.storage.users.get(w.orgA, w.userA) === undefined) return false
  return await app.storage.store(webhooksStore).findManagementLink(hashLinkToken(w.linkA)) !== undefined
}

// Placeholders `{{name}}` in generated text name values of the current world, which a run may renew.
// `{{n}}` is a new number each time, for e-mail addresses and ids that must be new.
let counter = 0
const fill = (text: string, w: World): string => text.replace(/\{\{(\w+)\}\}/g, (all, name: string) => {
  if (name === 'n') return String(++counter)
  if (name === 'basicA') return basic(w.clientA, w.secretA)
  if (name === 'basicDemo') return basic(DEMO_ID, DEMO_SECRET)
  const value = (w as unknown as Record<string, string>)[name]
  return value ?? all
})

// ---- Generators

const latin1Char = fc.integer({ min: 0x20, max: 0xff }).filter(c => c !== 0x7f).map(c => String.fromCharCode(c))
const latin1 = fc.string({ unit: latin1Char, maxLength: 40 })

const HUGE_SEGMENT = 'a'.repeat(10_000)
const ADVERSARIAL_SEGMENTS = [
  '..', '.', '%2e%2e', '..%2f..%2f', '%2F', '%00', 'a%00b', '%', '%zz', '%ff%fe', '%C0%AE%C0%AE', '%F0%9F%92%A5', '%E2%80%AE',
  encodeURIComponent('💥'), encodeURIComponent('ü'), 'me', 'ME', 'null', 'undefined', '__proto__', 'constructor', 'prototype', 'toString',
  '0', '-1', '1e309', '-0', '9007199254740993', '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
  'msg_', 'msg_' + 'a'.repeat(65), 'a'.repeat(512), 'a'.repeat(513), HUGE_SEGMENT
]

const registry = new AreaRegistry(areas)
const KNOWN: Record<string, string[]> = {
  userId: ['me', '{{userA}}', '{{userB}}'],
  accountId: ['{{accountGBP}}', '{{accountBTC}}', '{{accountA}}', '{{accountB}}'],
  fileId: ['{{fileA}}', '{{accountA}}'],
  externalAccountId: ['{{cardA}}', '{{externalAccountA}}', '{{accountA}}'],
  transactionId: ['{{transactionA}}', '{{accountA}}'],
  capability: ['cards', 'trades', 'crypto-withdrawals', 'nope'],
  process: ['profile', 'tax-details', 'screening', 'nope'],
  requestForInformationId: ['{{transactionA}}', 'x'],
  token: ['{{linkA}}', '{{linkB}}', '{{linkExpired}}', 'A'.repeat(43)],
  id: ['{{endpointA}}', '{{messageA}}'],
  clientId: ['{{clientB}}', DEMO_ID, 'no-such-client'],
  // The entity types the areas hold (the first is the sample's), then those that carry metadata only (users).
  entity: [...new Set([...registry.sandboxEntities(), ...registry.metadataEntities()].map(e => e.segment))],
  network: ['xrp-ledger', 'bitcoin', 'sepa', 'no-such-network'],
  asset: ['BTC', 'USD', 'NOPE'],
  country: ['GB', 'KP', 'ZZ'],
  termsOfService: ['general-gb-fca', 'unique-account-number-viban', 'nope'],
  '*': ['static/index.html', 'json', 'yaml', 'static/no-such-file.js']
}

const segment = (name: string) => fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...(KNOWN[name] ?? ['x'])) },
  { weight: 2, arbitrary: fc.constantFrom(...ADVERSARIAL_SEGMENTS) },
  { weight: 1, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) }
)

const QUERY_KEYS = ['organizationId', 'limit', 'status', 'endpointId', 'method', 'path', 'clientId', '__proto__', 'constructor', '__proto__[polluted]', 'constructor[prototype][polluted]', 'a[]', '']
const QUERY_VALUES = [
  '{{orgA}}', '{{orgB}}', '{{endpointA}}', '1e309', '-0', '9007199254740993', '-1', '0', '1', '200', '201', '1000001', 'NaN', 'Infinity', '0x10', 'true', '',
  'pending', 'delivered', 'failed', '4xx', '404', '*', '/core/*', 'GET', '%', '%zz', '%00', 'polluted', 'a'.repeat(100_000)
]
const query = fc.oneof({ weight: 2, arbitrary: fc.constant('') }, {
  weight: 1,
  arbitrary: fc.array(fc.tuple(
    fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 10 }).map(encodeURIComponent)),
    fc.oneof(fc.constantFrom(...QUERY_VALUES), fc.string({ maxLength: 20 }).map(encodeURIComponent))
  ), { maxLength: 4 }).map(pairs => pairs.length === 0 ? '' : '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&'))
})

// ---- What each route declares, read from the app's registered routes: its own query parameters
// (with the values its schema says are valid), whether it acts for a user, and its body's examples.

type Schema = Record<string, any>

interface RouteInfo {
  /** Each query parameter of the route's schema, with values its schema takes. */
  query: Record<string, string[]>
  /** Query parameters it requires, with a value each. */
  required: Record<string, string>
  /** Whether a client must act for a user (`X-On-Behalf-Of`). */
  user: boolean
  /** The examples of its body schema, with the world's ids in place of the examples' own. */
  examples: Json[]
}

const ROUTE_INFO = new Map<string, RouteInfo>()
const infoOf = (r: Route): RouteInfo | undefined => ROUTE_INFO.get(`${r.method} ${r.path}`) ?? ROUTE_INFO.get(`GET ${r.path}`)

/** The named properties of an object schema (through allOf, anyOf, oneOf). */
function propertiesOf (schema: Schema | undefined): Record<string, Schema> {
  if (schema === undefined || schema === null || typeof schema !== 'object') return {}
  const out: Record<string, Schema> = { ...(schema.properties ?? {}) }
  for (const part of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) Object.assign(out, propertiesOf(part))
  return out
}
const requiredOf = (schema: Schema | undefined): string[] =>
  schema === undefined ? [] : [...(schema.required ?? []), ...[...(schema.allOf ?? [])].flatMap(requiredOf)]

// Values the world gives a parameter of this name, where the schema alone cannot say.
const QUERY_HINTS: Record<string, string[]> = {
  asset: ['BTC', 'GBP', 'USD,BTC'],
  denomination: ['USD', 'GBP', 'BTC,ETH'],
  network: ['fps', 'bitcoin', 'visa'],
  type: ['bank', 'crypto'],
  year: ['2025', '2010'],
  month: ['1', '12'],
  organizationId: ['{{orgA}}', '{{orgB}}'],
  endpointId: ['{{endpointA}}'],
  clientId: ['{{clientA}}'],
  path: ['/core/*'],
  country: ['GB', 'US']
}

/** Values a query parameter's schema takes: its enum, const, default and examples, the bounds of a number, the world's ids. */
function validValues (name: string, schema: Schema): string[] {
  const out = new Set<string>()
  const add = (v: unknown): void => { if (v !== undefined && v !== null && typeof v !== 'object') out.add(String(v)) }
  for (const v of schema.enum ?? []) add(v)
  add(schema.const)
  add(schema.default)
  for (const e of schema.examples ?? []) add(Array.isArray(e) ? e.join(',') : e)
  for (const part of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) for (const v of validValues(name, part)) out.add(v)
  if (schema.type === 'array' && schema.items !== undefined) {
    const items = validValues(name, schema.items)
    if (items.length > 0) { add(items[0]); add(items.slice(0, 3).join(',')) }
  }
  if (schema.type === 'integer' || schema.type === 'number') { add(schema.minimum); add(schema.maximum) }
  if (schema.type === 'boolean') { add('true'); add('false') }
  if (schema.format === 'uuid') add('{{orgA}}')
  for (const v of QUERY_HINTS[name] ?? []) add(v)
  return [...out]
}

// Values no operation should take: huge and fractional numbers, numbers past 2^53, empty and long
// lists, duplicates, encodings, names of the prototype's members.
const HOSTILE_QUERY = [
  '1e20', '-1e20', '1e308', '1e309', '1e400', '9007199254740993', '-9007199254740993', '18446744073709551616', '2147483647', '2147483648',
  '-2147483649', '0', '-0', '-1', '1.5', '0.0000001', '0x10', '0b11', '1_000', '١٢', 'NaN', 'Infinity', '-Infinity', '', ' ', '%20', '%00',
  '%zz', '%', 'null', 'undefined', 'true', 'false', '[]', '{}', '__proto__', 'constructor', ',', ',,,', 'a,a', 'BTC,BTC', 'BTC,', ',BTC',
  Array.from({ length: 200 }, (_, i) => `A${i}`).join(','), 'USD,EUR,GBP,BTC,ETH,USDC,USDT,SOL,XRP,LTC,DOGE,XLM', 'price-delta:asc:one-hour',
  'code:asc:extra', 'one-month', 'all-time', encodeURIComponent('💥'), '%E2%80%AE', '..%2F..%2F', '*', 'a'.repeat(10_000), '{{orgB}}'
]

/** A query value as a URL carries it: encoded, the world's placeholders kept for `fill`. */
const encodeValue = (v: string): string => v.split(/(\{\{\w+\}\})/).map(part => /^\{\{\w+\}\}$/.test(part) ? part : encodeURIComponent(part)).join('')

/** Example body ids replaced by the world's, by the member that holds them. */
function worldIds (value: Json, key = '', sibling: Record<string, unknown> = {}): Json {
  if (Array.isArray(value)) return value.map(v => worldIds(v, key, sibling))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, worldIds(v, k, value as Record<string, unknown>)]))
  }
  if (typeof value !== 'string' || !UUID.test(value)) return value
  if (key === 'quoteId') return '{{quoteA}}'
  if (key === 'fileId') return '{{fileA}}'
  if (key === 'userId') return '{{userA}}'
  if (key === 'accountId' || (key === 'id' && sibling.type === 'account')) return '{{accountGBP}}'
  if (key === 'id' && sibling.type === 'external-account') return '{{cardA}}'
  if (key === 'organizationId') return '{{orgA}}'
  return value
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Every route's info, from the app's registered routes. */
function readRoutes (app: FastifyInstance): void {
  ROUTE_INFO.clear()
  for (const route of app.registeredRoutes) {
    const schema = (route.schema ?? {}) as { querystring?: Schema, body?: Schema }
    const params = propertiesOf(schema.querystring)
    const query = Object.fromEntries(Object.entries(params).map(([name, p]) => [name, validValues(name, p)]))
    const required = Object.fromEntries(requiredOf(schema.querystring).filter(n => query[n]?.length > 0).map(n => [n, query[n][0]]))
    const subjects = route.config?.auth?.subjects ?? []
    const examples = ((schema.body?.examples ?? []) as Json[]).map(e => worldIds(e))
    ROUTE_INFO.set(`${route.method} ${route.url}`, { query, required, user: subjects.length > 0 && !subjects.includes('client'), examples })
  }
}

/** The route's own query: its parameters, each with a value its schema takes or a hostile one, some named twice. */
const ownQuery = (r: Route): fc.Arbitrary<string> => {
  const params = infoOf(r)?.query ?? {}
  const names = Object.keys(params)
  if (names.length === 0) return query
  const pair = fc.constantFrom(...names).chain(name => fc.tuple(fc.constant(name), fc.oneof(
    { weight: 3, arbitrary: params[name].length > 0 ? fc.constantFrom(...params[name]).map(encodeValue) : fc.constant('') },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_QUERY) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map(encodeURIComponent) }
  )))
  return fc.oneof(
    { weight: 1, arbitrary: query },
    { weight: 4, arbitrary: fc.array(pair, { maxLength: 5 }).map(pairs => pairs.length === 0 ? '' : '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&')) }
  )
}

const authorization = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('Bearer {{tokenA}}', 'Bearer {{userTokenA}}', 'Bearer {{tokenB}}', `Bearer ${ADMIN}`, '{{basicA}}', '{{basicDemo}}') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'Bearer', 'Bearer ', 'Basic', 'Basic %%%', 'Basic Og==', 'Basic ' + Buffer.from('%zz:%zz').toString('base64'), 'bearer {{tokenA}}', 'BEARER {{tokenA}}',
      'Bearer {{tokenA}}x', 'Bearer x{{tokenA}}', 'Bearer  {{tokenA}}', 'Bearer {{tokenA}}, Bearer {{tokenB}}', `Bearer ${ADMIN}x`, 'Bearer ' + 'a'.repeat(20_000),
      'Bearer eyJhbGciOiJub25lIn0.eyJjaWQiOiJzYW5kYm94LWRlbW8tY2xpZW50Iiwic2NvcGUiOiIifQ.', 'Bearer a.b.c', 'Bearer ...', 'Digest x', 'Negotiate ' + 'Y'.repeat(100)
    )
  },
  { weight: 1, arbitrary: latin1.map(s => `Bearer ${s}`) },
  { weight: 1, arbitrary: latin1.map(s => `Basic ${s}`) },
  { weight: 1, arbitrary: latin1 }
)

const onBehalf = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('user {{userA}}', 'user {{userB}}') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('user me', 'USER {{userA}}', 'user  {{userA}}', 'user\t{{userA}}', 'user {{userA}}, user {{userB}}', 'client {{userA}}', 'user', 'user ',
      '{{userA}}', 'user ' + randomUUID(), 'user ' + 'a'.repeat(5000), 'user {{userA}}\u00a0')
  },
  { weight: 1, arbitrary: latin1 }
)

const entityTag = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('{{etagA}}', '*', 'W/{{etagA}}', '"x"', 'W/"x"', '{{etagA}}, "x"', '"x", *') },
  { weight: 1, arbitrary: fc.constantFrom('', ',', ', ,', 'x', '"', '"\u00ff"', 'W/', '"a" "b"', '*, *', ('"x",').repeat(2000)) },
  { weight: 1, arbitrary: latin1 }
)

const contentType = fc.constantFrom(
  'application/json', 'application/json; charset=utf-8', 'application/json-patch+json', 'application/x-www-form-urlencoded', 'text/plain',
  'multipart/form-data; boundary=x', 'application/xml', '', 'application/json; charset=latin1', 'APPLICATION/JSON', ';;;', 'application/json, text/plain',
  'application/merge-patch+json', 'application/octet-stream', 'application/json;' + 'x'.repeat(2000)
)

const headerName = fc.oneof(fc.constantFrom('authorization', 'content-type', 'x-on-behalf-of', 'if-match', 'if-none-match', 'accept', 'accept-encoding', 'x-forwarded-for', 'host', 'transfer-encoding', 'origin', 'x-request-id', 'x-service-request-id', 'content-encoding'), fc.stringMatching(/^x-[a-z0-9-]{1,20}$/))

/** `null` (no such header) `none` times in `none + 1`, else a value of `arb`. */
const sometimes = <T>(arb: fc.Arbitrary<T>, none: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: none, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb })
/** Mostly `usual`, sometimes absent, sometimes anything `arb` makes. */
const mostly = <T>(usual: T, arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 10, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: arb })

const TOKEN_PATH = '/core/oauth2/token'

const userIp = fc.constantFrom('', '1.2.3', '999.1.1.1', '::1', '::ffff:10.0.0.1', 'localhost', '47.174.97.164, 10.0.0.1', ' 47.174.97.164', 'a'.repeat(300))
const acceptLanguage = fc.constantFrom('pt-PT', 'pt', 'en-GB', 'pt-BR', 'es', 'fr', '*', '*;q=0', 'en;q=0, pt', '', ',,,', 'pt;q=2', 'pt;q=-1', 'en;q=0.5;q=0.7',
  'a'.repeat(5000), Array.from({ length: 500 }, () => 'en').join(','), 'x-' + 'y'.repeat(100), 'en-GB;q=abc')

/** Headers for a route: mostly the credentials, user and content type it expects, sometimes anything. */
const headers = (r: Route) => fc.record({
  authorization: mostly(r.path.startsWith('/_sandbox')
    ? `Bearer ${ADMIN}`
    : r.path === TOKEN_PATH ? '{{basicA}}' : r.path.endsWith('/metadata') ? 'Bearer {{userTokenA}}' : 'Bearer {{tokenA}}', authorization),
  // Operations for a user mostly act for user A, who can do what they offer.
  'x-on-behalf-of': infoOf(r)?.user === true && !r.path.endsWith('/metadata') ? mostly('user {{userA}}', onBehalf) : sometimes(onBehalf, 3),
  'x-service-user-ip': mostly(CONTEXT['x-service-user-ip'], userIp),
  'x-service-user-agent': mostly(CONTEXT['x-service-user-agent'], latin1),
  'accept-language': sometimes(acceptLanguage, 2),
  'if-match': sometimes(entityTag, 4),
  'if-none-match': sometimes(entityTag, 5),
  'content-type': mostly(r.path === TOKEN_PATH
    ? 'application/x-www-form-urlencoded'
    : r.method === 'PATCH' && r.path.endsWith('/metadata') ? 'application/json-patch+json' : 'application/json', contentType),
  extra: fc.array(fc.tuple(headerName, fc.oneof(latin1, fc.constantFrom('gzip', 'chunked', 'a'.repeat(8000)))), { maxLength: 2 })
})

// Numbers JSON.stringify cannot write: placed in a body as `"@@<literal>@@"` and written raw.
const RAW_NUMBERS = ['@@-0@@', '@@1e309@@', '@@-1e309@@', '@@9007199254740993@@', '@@1e-400@@', '@@123456789012345678901234567890@@']
const rawNumbers = (text: string): string => text.replace(/"@@([^"@]+)@@"/g, '$1')

const proto = JSON.parse('{"__proto__":{"polluted":"yes"}}') as unknown
const value: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      null, true, false, 0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER, ...RAW_NUMBERS, '', ' ', '\u0000', '\ud800', '\uffff', '\u202e',
      '💥'.repeat(600), 'a'.repeat(300), 'x'.repeat(70_000), [], {}, [[[[[]]]]], proto, { constructor: { prototype: { polluted: 'yes' } } },
      '../../etc/passwd', '{{orgA}}', '{{orgB}}', '{{userA}}', '{{userB}}', '{{endpointA}}', '{{clientB}}', 'GB', 'CU', 'XX', 'GB-ENG', 'US-CA', 'FR-ENG',
      'http://127.0.0.1:1/', '{{hookUrl}}', 'javascript:alert(1)', 'http://', 'http://[::1', '2030-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '0000-01-01T00:00:00Z',
      '2000-02-30', '1900-01-01', '2010-01-01', 'not-a-date', 'core.users:create', 'core.*', '*', '', 'a@b.c', 'A@EXAMPLE.COM', '@', 'a'.repeat(250) + '@example.com'
    )
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double()) }
)
const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'organizationId', 'id', 'metadata', ''), fc.string({ maxLength: 8 }))

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }
type Mutation = [number, 'replace' | 'delete' | 'add', unknown, string]

/** Every container in a JSON value, as key paths. */
function containers (v: unknown, at: string[] = []): string[][] {
  if (v === null || typeof v !== 'object') return []
  return [at, ...Object.keys(v).flatMap(k => containers((v as Record<string, unknown>)[k], [...at, k]))]
}

/** Own-property assignment: `__proto__` becomes a member, as JSON.parse makes it. */
const put = (target: Record<string, unknown>, k: string, v: unknown): void => {
  Object.defineProperty(target, k, { value: v, enumerable: true, writable: true, configurable: true })
}

function mutate (sample: Json, mutations: Mutation[]): string {
  const doc = JSON.parse(JSON.stringify(sample)) as Json
  let root: unknown = doc
  for (const [pick, action, shared, k] of mutations) {
    // A copy: the generators hand out the same constant objects to many runs.
    const v = shared === undefined ? shared : JSON.parse(JSON.stringify(shared)) as unknown
    const all = containers(root)
    if (all.length === 0) { root = v; continue }
    const at = all[pick % all.length]
    // Now and then the whole body becomes the value.
    if (at.length === 0 && action === 'replace' && pick % 7 === 0) { root = v; continue }
    const target = at.reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], root) as Record<string, unknown> | unknown[]
    if (Array.isArray(target)) {
      const index = target.length === 0 ? 0 : pick % target.length
      if (action === 'add' || target.length === 0) target.push(v)
      else if (action === 'replace') target[index] = v
      else target.splice(index, 1)
      continue
    }
    const keys = Object.keys(target)
    const name = keys.length > 0 ? keys[pick % keys.length] : k
    if (action === 'add' || keys.length === 0) put(target, k, v)
    else if (action === 'replace') put(target, name, v)
    else delete target[name]
  }
  return rawNumbers(JSON.stringify(root) ?? 'null')
}

const deepArray = (n: number): string => '['.repeat(n) + ']'.repeat(n)
const deepObject = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n)
const OVER_LIMIT = JSON.stringify({ a: 'x'.repeat(1_100_000) })

const RAW_BODIES: Array<string | Buffer> = [
  '', ' ', '{', '}', '[', '{"a":}', '{"a":1,}', 'nul', 'null', 'true', '0', '"x"', '[]', '{}', '\uFEFF{"a":1}', '{"a":1}{"b":2}', '{"a":1} x',
  '{"__proto__":{"polluted":"yes"}}', '{"constructor":{"prototype":{"polluted":"yes"}}}', '[{"op":"add","path":"/__proto__/polluted","value":"yes"}]',
  '[{"op":"add","path":"/constructor/prototype/polluted","value":"yes"}]', '{"a":1e309}', '{"a":-0}', '{"a":9007199254740993}', '{"a":1e-400}',
  deepArray(100_000), deepObject(50_000), `{"a":${deepArray(20_000)}}`, `[{"op":"add","path":"/a","value":${deepArray(20_000)}}]`,
  `{"email":"a@example.com","country":"GB","x":${deepObject(20_000)}}`, OVER_LIMIT, 'a'.repeat(1_100_000),
  Buffer.from('{"a":"\xff\xfe"}', 'latin1'), Buffer.from([0xc3, 0x28, 0xa0, 0xa1]), Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), Buffer.from('{"a":"\ud800"}'),
  'grant_type=client_credentials', 'grant_type=refresh_token&refresh_token={{refreshA}}', 'a=1&a=2', '%zz=%zz', '__proto__[polluted]=yes'
]

// Near-valid bodies of each route, which mutations then break at random places.
const SAMPLES: Record<string, Json[]> = {
  'POST /core/users': [{ email: 'new-{{n}}@example.com', termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB', subdivision: 'GB-ENG', city: 'London' }, metadata: { a: 1 }, birthdate: '1990-01-01', partnerOnboardedAt: '2020-01-01T00:00:00Z', phone: { number: '+447700900000', country: 'GB' }, fullName: 'A B' }],
  'POST /partner/kyc-sharing/identify-user': [{ email: 'kyc-{{n}}@example.com', country: 'GB' }],
  'PUT metadata': [{ tier: 'gold', tags: ['a', 'b'], nested: { n: 1 } }],
  'PATCH metadata': [
    [{ op: 'add', path: '/x', value: 1 }, { op: 'replace', path: '/tier', value: 'silver' }],
    [{ op: 'test', path: '/nested/n', value: 1 }, { op: 'copy', from: '/tags', path: '/copy' }, { op: 'remove', path: '/tags/0' }, { op: 'move', from: '/tier', path: '/level' }],
    [{ op: 'add', path: '/tags/-', value: 'c' }]
  ],
  'POST /webhooks/portal/:token/api/endpoints': [{ url: '{{hookUrl}}', description: 'fuzz', eventTypes: ['core.user.created'], disabled: false }],
  'PATCH /webhooks/portal/:token/api/endpoints/:id': [{ url: '{{hookUrl}}', description: 'changed', eventTypes: [], disabled: false }],
  'POST /_sandbox/webhooks/endpoints': [{ url: '{{hookUrl}}', organizationId: '{{orgB}}', eventTypes: ['core.user.created'] }],
  'PATCH /_sandbox/webhooks/endpoints/:id': [{ organizationId: '{{orgA}}', disabled: false }],
  'POST /_sandbox/webhooks/endpoints/:id/test': [{ organizationId: '{{orgA}}' }],
  'POST /_sandbox/webhooks/messages/:id/replay': [{ organizationId: '{{orgA}}' }],
  'POST /_sandbox/reset': [{ organizationId: '{{orgB}}' }],
  'POST /core/assets/_mget': [{ codes: ['BTC', 'ETH', 'NOPE'] }],
  'POST /core/networks/:network/validate-address': [{ address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', reference: '12345' }, { address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' }],
  'POST /_sandbox/rates': [{ asset: 'BTC', mid: '50000.5' }],
  'POST /_sandbox/fixtures': [{
    organizations: [{ id: '{{orgB}}', name: 'B' }],
    users: [{ email: 'fx-{{n}}@example.com', organizationId: '{{orgB}}', address: { country: 'GB' } }],
    clients: [{ clientId: 'fx-{{n}}', clientSecret: 'fx-secret-123', organizationId: '{{orgB}}', scopes: ['core.users:create'] }],
    entities: [{ type: 'files', userId: '{{userB}}' }],
    metadata: [{ entity: 'accounts', entityId: '{{accountB}}', metadata: { a: 1 } }],
    assets: [{ code: 'FZ{{n}}', name: 'Fuzz', type: 'crypto', decimals: 6, usdPrice: '3.5' }],
    networks: [{ code: 'fuzz-net', name: 'Fuzz', type: 'crypto', reference: { type: 'memo' } }],
    rails: [{ type: 'crypto', network: 'fuzz-net', method: 'crypto-transaction', asset: 'BTC', decimals: 8, features: ['deposit'] }],
    countries: [{ code: 'US', restrictions: ['phone'], subdivisions: [{ code: 'US-NY', restrictions: ['residence'] }] }]
  }],
  'POST /_sandbox/clients': [{ scopes: ['core.users:create', 'core.*'], organizationId: '{{orgB}}', refreshTokens: true, name: 'n', userId: null }],
  'POST /_sandbox/clients/:clientId/rotate-secret': [{ clientSecret: 'rotated-secret-1' }, {}],
  'POST /_sandbox/entities/:entity': [{ userId: '{{userB}}' }],
  'POST /_sandbox/clock': [{ advanceSeconds: 10 }, { now: '2030-01-01T00:00:00Z' }, { frozen: true }, { real: true }],
  'POST /_sandbox/faults': [{ path: '/core/*', status: 500, count: 1, method: 'GET', probability: 1, retryAfterSeconds: 1 }, { path: '/core/users', delayMs: 1, drop: false }],
  // The money operations, for user A's accounts, funds and card.
  'POST /core/accounts': [{ label: 'Fuzz {{n}}', asset: 'ETH' }],
  'PATCH /core/accounts/:accountId': [{ label: 'Renamed {{n}}' }],
  'POST /core/external-accounts': [
    { type: 'card', label: 'Card {{n}}', number: '4242424242424242', securityCode: '123', expiryDate: { month: 12, year: 2099 } },
    { type: 'bank', asset: 'USD', network: 'ach', label: 'Bank {{n}}', routingNumber: '121000248', accountNumber: '9876{{n}}', accountType: 'checking', address: { country: 'US', subdivision: 'US-CA', city: 'San Francisco', line1: '1 Main Street', postalCode: '94102' } }
  ],
  'PATCH /core/external-accounts/:externalAccountId': [{ label: 'Relabelled {{n}}' }],
  'POST /core/transactions/quote': [
    { origin: { type: 'account', id: '{{accountGBP}}' }, destination: { type: 'account', id: '{{accountBTC}}' }, denomination: { asset: 'GBP', amount: '5', target: 'origin' } },
    { origin: { type: 'external-account', id: '{{cardA}}' }, destination: { type: 'account', id: '{{accountGBP}}' }, denomination: { asset: 'GBP', amount: '20' } }
  ],
  'POST /core/transactions': [{ quoteId: '{{quoteA}}' }],
  'POST /core/accounts/test-helpers/bank-deposits': [{ network: 'fps', sortCode: '{{sortCodeA}}', accountNumber: '{{fpsAccountA}}', reference: '{{fpsReferenceA}}', asset: 'GBP', amount: '25' }],
  'PATCH /core/kyc/processes/tax-details': [{ input: { taxResidency: { countries: ['GB'], address: { country: 'GB', city: 'London', postalCode: 'SW1A 1AA' } } } }],
  'POST /core/portfolio/assets/_mget/performance': [{ codes: ['BTC', 'GBP'] }],
  'POST /core/portfolio/accounts/_mget/performance': [{ ids: ['{{accountGBP}}', '{{accountBTC}}'] }]
}

/** A route's near-valid bodies: the samples above, else its schema's examples (the world's ids put in), else a bare object. */
function samplesOf (r: Route): Json[] {
  const own = SAMPLES[sampleKey(r)]
  if (own !== undefined) return own
  const examples = infoOf(r)?.examples ?? []
  return examples.length > 0 ? examples : [{ organizationId: '{{orgA}}' }]
}

const sampleKey = (r: Route): string => {
  const key = `${r.method} ${r.path}`
  if (SAMPLES[key] !== undefined) return key
  if (r.path.endsWith('/metadata')) return `${r.method} metadata`
  return key
}

const mutation = fc.tuple(fc.nat(), fc.constantFrom<'replace' | 'delete' | 'add'>('replace', 'delete', 'add'), value, key)

const FORMS = [
  'grant_type=client_credentials', 'grant_type=client_credentials&scope=core.users%3Acreate', 'grant_type=refresh_token&refresh_token={{refreshA}}',
  'grant_type=client_credentials&client_id={{clientA}}&client_secret={{secretA}}'
]

const body = (r: Route) => {
  if (r.path === TOKEN_PATH) {
    return fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...FORMS) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...FORMS), fc.string({ maxLength: 20 })).map(([f, extra]) => `${f}&${extra}`) },
      { weight: 2, arbitrary: fc.constantFrom(...RAW_BODIES) }
    )
  }
  const samples = samplesOf(r)
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.constantFrom(...samples).map(s => mutate(s, [])) },
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...samples), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([s, m]) => mutate(s, m)) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_BODIES) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(v => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) }
  )
}

const ODD_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'LOCK', 'MKCOL', 'COPY', 'MOVE', 'QUERY', 'FOO', 'get']

/** The path of a route with each parameter filled; sometimes with a stray suffix or a doubled slash. */
const path = (r: Route) => {
  const names = [...r.path.matchAll(/:(\w+)|\*/g)].map(m => m[1] ?? '*')
  return fc.tuple(fc.tuple(...names.map(segment)), fc.oneof({ weight: 12, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '//', '/..', '/%2e%2e/x', '?', '#x', '/x') }))
    .map(([values, suffix]) => {
      let i = 0
      return r.path.replace(/:(\w+)|\*/g, () => values[i++]) + suffix
    })
}

const RAW_PATH = '/core/users/\u00e9/metadata'

interface Sent { method: string, url: string, headers: Record<string, string | string[]>, payload: string | Buffer | undefined }

// Most paths are sendable ones: Node's parser refuses spaces and non-ASCII bytes in the request line
// before the app sees them, so they go percent-encoded, except in the few stray paths that test the refusal.
const sendable = (url: string): string => url.replace(/[^\x21-\x7e]/gu, ch => encodeURIComponent(ch))

function request (routes: Route[]): fc.Arbitrary<Sent> {
  // Routes that take a body are where most can go wrong; the docs' many static files matter least.
  const weighted = fc.oneof(...routes.map(r => ({
    weight: SAMPLES[sampleKey(r)] !== undefined ? 6 : r.path.startsWith('/docs') ? 1 : 3,
    arbitrary: fc.constant(r)
  })))
  const routed = weighted.chain(r => fc.record({
    method: fc.oneof({ weight: 6, arbitrary: fc.constant(r.method) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_METHODS) }),
    path: path(r),
    query: ownQuery(r),
    headers: headers(r),
    payload: body(r)
  }))
  const stray = fc.record({
    method: fc.constantFrom(...ODD_METHODS),
    path: fc.oneof(fc.webPath(), fc.constantFrom('/', '//', '/core', '/core/', '/_sandbox/..', '/_sandbox/../core/users', '/%00', '/..%2f_sandbox', '/webhooks/portal', '/webhooks/portal/', '/' + HUGE_SEGMENT, '*', RAW_PATH)),
    query,
    headers: headers({ method: 'GET', path: '/' }),
    payload: fc.oneof(fc.constant(undefined), fc.constantFrom(...RAW_BODIES))
  })
  return fc.oneof({ weight: 12, arbitrary: routed }, { weight: 1, arbitrary: stray }).map(g => {
    const h: Record<string, string | string[]> = {}
    for (const name of ['authorization', 'x-on-behalf-of', 'x-service-user-ip', 'x-service-user-agent', 'accept-language', 'if-match', 'if-none-match', 'content-type'] as const) {
      const v = g.headers[name]
      if (v !== null) h[name] = v
    }
    // A header named twice is sent twice.
    for (const [name, v] of g.headers.extra) {
      const had = h[name]
      // Node's client sends one Host only.
      h[name] = had === undefined || name === 'host' ? v : [had, v].flat()
    }
    const url = g.path + g.query
    return { method: g.method, url: url === RAW_PATH ? url : sendable(url), headers: h, payload: g.payload }
  })
}

function resolve (sent: Sent, w: World): Sent {
  const headers: Record<string, string | string[]> = {}
  for (const [k, v] of Object.entries(sent.headers)) headers[k] = Array.isArray(v) ? v.map(x => fill(x, w)) : fill(v, w)
  return {
    method: sent.method,
    url: fill(sent.url, w),
    headers,
    payload: typeof sent.payload === 'string' ? fill(sent.payload, w) : sent.payload
  }
}

/** A route's path with the parameters an unmutated sample body goes with. */
const samplePath = (r: Route): string => r.path.replace(/:(\w+)/g, (_all, name: string) =>
  name === 'id' ? (r.path.includes('/messages/') ? '{{messageA}}' : '{{endpointA}}') : KNOWN[name][0])

interface Received { status: number, headers: Record<string, unknown>, body: string }

/** One request over a real connection, so Node's HTTP parser sees exactly what was generated. */
function send (port: number, agent: Agent, sent: Sent): Promise<Received> {
  return new Promise((resolve, reject) => {
    let answered: Received | undefined
    // Node writes a GET or DELETE body without Content-Length unless told; clients that send one say how long it is.
    const length = sent.payload === undefined ? {} : { 'content-length': String(Buffer.byteLength(sent.payload)) }
    const req = httpRequest({ host: '127.0.0.1', port, method: sent.method, path: sent.url, headers: { ...length, ...sent.headers }, agent, timeout: 10_000 }, res => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        answered = { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }
        resolve(answered)
      })
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within 10 s: ${sent.method} ${sent.url}`)))
    // The server may answer (413, 400) and close before it has read the whole body.
    req.on('error', (err: Error & { rawPacket?: Buffer }) => {
      if (answered !== undefined) return
      // What the server sent, when the client could not read it as HTTP.
      reject(err.rawPacket === undefined ? err : new Error(`${err.message}: ${JSON.stringify(err.rawPacket.subarray(0, 400).toString('latin1'))}`))
    })
    req.end(sent.payload)
  })
}

/** A request as a failure report shows it: long strings cut, so one huge parameter does not drown the report. */
const short = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x: unknown) => {
  if (typeof x === 'string' && x.length > 200) return `${x.slice(0, 120)}…(${x.length} characters)`
  const bytes = (x as { type?: string, data?: number[] } | null)?.type === 'Buffer' ? (x as { data: number[] }).data : undefined
  return bytes === undefined ? x : `<bytes ${Buffer.from(bytes.slice(0, 60)).toString('latin1')}… (${bytes.length})>`
}))

const prototypeClean = (): boolean =>
  Object.getOwnPropertyNames(Object.prototype).every(n => BASELINE_PROTOTYPE.has(n)) && ({} as Record<string, unknown>).polluted === undefined
const BASELINE_PROTOTYPE = new Set(Object.getOwnPropertyNames(Object.prototype))

// Values a body's member should never be taken with, one at a time, in the sweep.
const HOSTILE_BODY: Json[] = [
  null, true, -1, 0, 1.5, 1e308, '@@1e309@@', '@@9007199254740993@@', '@@-0@@', '', ' ', 'a'.repeat(10_000), '💥'.repeat(300), [], {}, [[[[]]]],
  '__proto__', '1e20', 'US-ZZ', '4111111111111112', { constructor: { prototype: { polluted: 'yes' } } }
]

/** The path of every member of a JSON value (the root left out). */
function memberPaths (v: Json, at: string[] = []): string[][] {
  if (v === null || typeof v !== 'object') return []
  return Object.keys(v).flatMap(k => [[...at, k], ...memberPaths((v as Record<string, Json>)[k], [...at, k])])
}

/** A copy of the value with the member at `path` replaced. */
function replaced (v: Json, path: string[], by: Json): Json {
  const doc = JSON.parse(JSON.stringify(v)) as Json
  const parent = path.slice(0, -1).reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], doc) as Record<string, unknown>
  put(parent, path[path.length - 1], JSON.parse(JSON.stringify(by)) as unknown)
  return doc
}

/** The route's path with the world's first value for each parameter. */
const worldPath = (r: Route): string => r.path.replace(/:(\w+)|\*/g, (_all, name: string | undefined) =>
  name === undefined ? KNOWN['*'][0] : name === 'id' ? (r.path.includes('/messages/') ? '{{messageA}}' : '{{endpointA}}') : (KNOWN[name]?.[0] ?? 'x'))

/** The headers a route expects: its credentials, content type, the end user's context, and user A where it acts for a user. */
function expectedHeaders (r: Route): Record<string, string> {
  const authorization = r.path.startsWith('/_sandbox') ? `Bearer ${ADMIN}` : r.path === TOKEN_PATH ? '{{basicA}}' : r.path.endsWith('/metadata') ? 'Bearer {{userTokenA}}' : 'Bearer {{tokenA}}'
  const contentType = r.path === TOKEN_PATH ? 'application/x-www-form-urlencoded' : r.method === 'PATCH' && r.path.endsWith('/metadata') ? 'application/json-patch+json' : 'application/json'
  const user: Record<string, string> = infoOf(r)?.user === true && !r.path.endsWith('/metadata') ? { 'x-on-behalf-of': 'user {{userA}}' } : {}
  return { authorization, 'content-type': contentType, ...CONTEXT, ...user }
}

const takesBody = (r: Route): boolean => !['GET', 'HEAD', 'DELETE'].includes(r.method) || SAMPLES[sampleKey(r)] !== undefined

async function fuzz (t: Test, overrides: Partial<Config>, runs: number, sweep: boolean): Promise<void> {
  const app = await build(t, { adminToken: ADMIN, ...overrides })
  readRoutes(app)
  const instant = app.clock.now()
  const hookUrl = `http://127.0.0.1:${await closedPort()}/hooks`
  let world = await makeWorld(app, hookUrl)
  // The history scenario builds weeks of trades through the API (seconds a call) and moves the
  // clock: test/scenarios covers it; here it would only slow every run down.
  const slow = (r: { path: string }): boolean => r.path === '/_sandbox/scenarios/history'
  const routes = routesOf(app).filter(r => !slow(r))

  // Every documented operation is among the routes fuzzed: the enumeration misses nothing.
  const known = new Set(routes.map(r => `${r.method} ${r.path}`))
  const missing = documentedRoutes(app).filter(r => !slow(r) && !known.has(`${r.method} ${r.path}`))
  t.same(missing, [], 'every operation of the OpenAPI document but the slow scenario is fuzzed')
  t.ok(routes.some(r => r.path === '/webhooks/portal/:token/api/endpoints/:id'), 'the portal\'s hidden JSON routes are fuzzed')
  // Each operation's own query parameters come from its schema.
  const withQuery = routes.filter(r => Object.keys(infoOf(r)?.query ?? {}).length > 0)
  t.same(Object.keys(infoOf({ method: 'GET', path: '/core/accounts' })?.query ?? {}).sort(), ['asset', 'page', 'perPage'], 'the list of accounts\' parameters is read from its schema')
  t.ok(withQuery.length >= 30, `${withQuery.length} routes take query parameters of their own`)

  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())

  /**
   * Undoes what a request may have done to the sandbox as a whole, so the next one plays in the same
   * world. Each part only when a request changed it: on PostgreSQL each is a write that tells every
   * cache to drop what it holds, and most requests change nothing.
   */
  const undo = async (): Promise<void> => {
    if ((await app.faults.list()).length > 0) await app.faults.clear()
    if (!app.clock.frozen || app.clock.now() !== instant) {
      app.clock.set(instant)
      app.clock.freeze(true)
    }
    if (!await standing(app, world)) world = await makeWorld(app, hookUrl)
  }
  const statuses = new Map<number, number>()
  /** Sends a request; the problem with its answer, if any. */
  const attempt = async (generated: Sent): Promise<{ status: number, problem?: string, sent: Sent, body: string }> => {
    const sent = resolve(generated, world)
    const res = await send(port, agent, sent)
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
    const problem = envelopeProblem({ method: sent.method, url: sent.url, status: res.status, headers: res.headers, body: res.body }) ??
      (prototypeClean() ? undefined : 'Object.prototype was polluted')
    if (typeof res.headers.etag === 'string' && sent.url.includes('/users/')) world.etagA = res.headers.etag
    return { status: res.status, problem, sent, body: res.body }
  }

  if (sweep) {
    // The samples are valid as they stand, so mutations start from requests that get through.
    const sampled = routes.filter(r => SAMPLES[sampleKey(r)] !== undefined).sort((a, b) => Number(a.path === '/_sandbox/reset') - Number(b.path === '/_sandbox/reset'))
    for (const r of sampled) {
      for (const sample of SAMPLES[sampleKey(r)]) {
        const res = await attempt({ method: r.method, url: samplePath(r), headers: expectedHeaders(r), payload: mutate(sample, []) })
        t.ok(res.status >= 200 && res.status < 300, `the sample of ${r.method} ${r.path} gets through`, { status: res.status, body: res.body.slice(0, 300) })
      }
    }
    await undo()
    world = await makeWorld(app, hookUrl)

    // Each operation's own query parameters, one at a time, with each hostile value; the rest as the schema wants them.
    const problems: Array<Record<string, unknown>> = []
    const baselines: Array<{ route: string, status: number }> = []
    let sent = 0
    for (const r of withQuery) {
      const info = infoOf(r)!
      const qs = (params: Record<string, string>, raw: string): string => {
        const pairs = Object.entries(params).map(([k, v]) => `${k}=${encodeValue(v)}`)
        if (raw !== '') pairs.push(raw)
        return pairs.length === 0 ? '' : `?${pairs.join('&')}`
      }
      const body = takesBody(r) ? mutate(samplesOf(r)[0], []) : undefined
      const request = (q: string): Sent => ({ method: r.method, url: sendable(`${worldPath(r)}${q}`), headers: expectedHeaders(r), payload: body })
      const baseline = await attempt(request(qs(info.required, '')))
      baselines.push({ route: `${r.method} ${r.path}`, status: baseline.status })
      await undo()
      for (const name of Object.keys(info.query)) {
        const others = Object.fromEntries(Object.entries(info.required).filter(([k]) => k !== name))
        const values = [...HOSTILE_QUERY.map(v => `${name}=${v}`), ...info.query[name].map(v => `${name}=${encodeValue(v)}&${name}=${encodeValue(v)}`)]
        for (const value of values) {
          const res = await attempt(request(qs(others, value)))
          sent++
          if (res.problem !== undefined) problems.push({ request: short(res.sent), status: res.status, problem: res.problem, body: res.body.slice(0, 200) })
          await undo()
        }
      }
    }
    t.same(problems, [], `${sent} requests with each operation's own query parameters set to hostile values: none is answered badly`)
    // The requests reach the handlers: the operations of the API answer a request with what their schema wants.
    const api = baselines.filter(b => b.route.startsWith('GET /core/'))
    const through = api.filter(b => b.status >= 200 && b.status < 300)
    t.ok(through.length >= Math.ceil(api.length * 0.75), `${through.length} of ${api.length} GET operations of the API answer 2xx with their own parameters`, {
      others: api.filter(b => b.status < 200 || b.status >= 300)
    })

    // Each member of each body, one at a time, with each hostile value.
    const bodyProblems: Array<Record<string, unknown>> = []
    let bodies = 0
    for (const r of routes.filter(r => r.path !== TOKEN_PATH && !r.path.startsWith('/docs') && (SAMPLES[sampleKey(r)] !== undefined || (infoOf(r)?.examples.length ?? 0) > 0))) {
      const sample = samplesOf(r)[0]
      for (const path of memberPaths(sample).slice(0, 30)) {
        for (const by of HOSTILE_BODY) {
          const res = await attempt({ method: r.method, url: worldPath(r), headers: expectedHeaders(r), payload: rawNumbers(JSON.stringify(replaced(sample, path, by))) })
          bodies++
          if (res.problem !== undefined) bodyProblems.push({ request: short(res.sent), status: res.status, problem: res.problem, body: res.body.slice(0, 200) })
          await undo()
        }
      }
    }
    t.same(bodyProblems, [], `${bodies} requests with one member of an operation's body set to a hostile value: none is answered badly`)
  }

  const property = fc.asyncProperty(request(routes), async generated => {
    const res = await attempt(generated)
    if (res.problem !== undefined) throw new Error(`${res.problem}: ${res.status} ${res.body.slice(0, 300)}`)
  }).afterEach(undo)
  const outcome = await fc.check(property, { numRuns: runs, seed: SEED, endOnFailure: process.env.FUZZ_SHRINK === undefined })
  if (outcome.failed) {
    t.fail(`run ${outcome.numRuns} of seed ${SEED} (path ${String(outcome.counterexamplePath)}): ${String((outcome.errorInstance as Error | undefined)?.message)}`, {
      request: short(outcome.counterexample?.[0])
    })
  }

  t.comment(`statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`)
  t.ok([...statuses.keys()].some(s => s >= 200 && s < 300), 'some requests got through to a handler')
  const health = await send(port, agent, { method: 'GET', url: '/_sandbox/health', headers: {}, payload: undefined })
  t.equal(health.status, 200, 'the server is healthy afterwards')
  t.same(JSON.parse(health.body), { status: 'ok' })
  t.ok(prototypeClean(), 'Object.prototype is untouched')
}

t.test(`${RUNS} hostile requests over every route (seed ${SEED}), after a sweep of each operation's parameters and body members`, async t => {
  await fuzz(t, {}, RUNS, true)
})

t.test(`${Math.ceil(RUNS / 6)} hostile requests with rate limiting on`, async t => {
  await fuzz(t, { rateLimitPerMinute: 40 }, Math.ceil(RUNS / 6), false)
})
