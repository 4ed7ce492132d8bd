// Hostile input on the KYC routes: valid bodies mutated at random places (values replaced with
// any JSON, keys deleted or added), odd headers and query strings, on users in every state the
// controls can force. Every answer is below 500 and in the error envelope when it is an error.
import t from 'tap'
import fc from 'fast-check'
import { accessToken, bearer, onBehalfOf } from '../helpers.js'
import { buildKyc, kycUser, PROFILE, userFile, type Caller } from './support.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 300)
const FILE = '{{file}}'
const VERIFIED = { verifiedAt: '2020-01-01T00:00:00.000Z' }

const SAMPLES: Record<string, unknown[]> = {
  profile: [PROFILE, { input: { ...PROFILE.input, birthplace: { country: 'PT', town: 'Porto' }, otherCitizenships: ['ES'], address: { subdivision: 'PT-11', line2: null } } }],
  address: [{ input: { address: { city: 'Lisboa', line1: 'Rua 1', postalCode: '1100-053', subdivision: 'PT-11' } } }],
  email: [{ input: { email: 'fuzz@example.com' }, output: VERIFIED }],
  phone: [{ input: { phone: '+351912345678', country: 'PT' }, output: VERIFIED }],
  identity: [
    { type: 'document-submission', input: { media: [{ context: 'photo-selfie', fileId: FILE }] }, output: { provider: 'p', document: { type: 'passport', number: 'N1', country: 'PT', expiresAt: '2099-01-01' }, person: { givenName: 'A', familyName: 'B', birthdate: '1990-01-01', address: { country: 'PT', city: 'X' } }, ...VERIFIED } },
    { type: 'electronic-verification', input: { data: { givenName: 'A', birthdate: '1990-01-01', citizenshipCountry: 'PT', address: { country: 'PT' } } }, output: { provider: 'p', ...VERIFIED } }
  ],
  'proof-of-address': [
    { type: 'document-submission', input: { media: [{ context: 'address-proof', fileId: FILE }] }, output: { provider: 'p', person: { givenName: 'A', address: { country: 'PT' } }, ...VERIFIED } },
    { type: 'electronic-verification', input: { data: { givenName: 'A', address: { country: 'PT', subdivision: 'PT-11' } } } }
  ],
  'customer-due-diligence': [{ input: { answers: { purpose: { activities: ['investing'] } } } }, { input: { answers: { finances: { 'source-of-funds': 'other', 'annual-income': 'over-250000' } } }, output: { score: 'high', expiresAt: '2099-01-01T00:00:00.000Z', ...VERIFIED } }],
  'enhanced-due-diligence': [{ input: { media: [{ context: 'source-of-funds-proof', fileId: FILE }] }, output: VERIFIED }],
  'crypto-risk-assessment': [{ input: { answers: { decisions: { 'who-decides': 'me' } } }, output: { result: 'rejected', attempts: { used: 1, maximum: 5 }, ...VERIFIED } }],
  'self-categorization-statement': [{ input: { answers: { category: { type: 'none' } } } }],
  'tax-details': [{ input: { taxResidency: { countries: ['PT', 'GB'] }, taxIdentification: { documents: [{ type: 'tin', country: 'PT', number: '1234' }, { type: 'ssn', country: 'US', reason: 'not-issued' }], certify: true, signature: 'Maria Silva' } }, output: { result: 'approved', ...VERIFIED } }]
}

type Json = unknown
const value = fc.jsonValue({ maxDepth: 2 })

function mutate (v: Json, path: Array<string | number>, how: 'replace' | 'delete' | 'add', replacement: Json, key: string): Json {
  if (path.length === 0) return how === 'replace' ? replacement : v
  const [head, ...rest] = path
  if (Array.isArray(v)) {
    const copy = [...v]
    const i = Number(head) % Math.max(1, copy.length)
    if (rest.length === 0 && how === 'delete') copy.splice(i, 1)
    else if (rest.length === 0 && how === 'add') copy.push(replacement)
    else copy[i] = mutate(copy[i], rest, how, replacement, key)
    return copy
  }
  if (v !== null && typeof v === 'object') {
    const o = { ...(v as Record<string, Json>) }
    const keys = Object.keys(o)
    if (keys.length === 0) return { [key]: replacement }
    const k = keys[Number(head) % keys.length]
    if (rest.length === 0 && how === 'delete') delete o[k]
    else if (rest.length === 0 && how === 'add') o[key] = replacement
    else o[k] = mutate(o[k], rest, how, replacement, key)
    return o
  }
  return how === 'replace' ? replacement : v
}

const fill = (v: Json, file: string): Json => JSON.parse(JSON.stringify(v).replaceAll(FILE, file))

t.test('no KYC route answers 5xx to mutated bodies, on users in any state', async t => {
  const app = await buildKyc(t, { kycReviewDelaySeconds: 1 })
  const users: Caller[] = []
  for (let i = 0; i < 3; i++) users.push(await kycUser(t, app, i === 2 ? { primaryCitizenship: 'GB', address: { country: 'GB' } } : {}))
  await users[1].patch('profile', PROFILE)
  for (const p of ['identity', 'customer-due-diligence', 'enhanced-due-diligence', 'tax-details']) {
    await users[1].control('POST', `/_sandbox/users/${users[1].userId}/kyc/${p}`, { status: 'pending' })
  }
  const files = await Promise.all(users.map(u => userFile(app, u.userId)))
  const processes = Object.keys(SAMPLES)
  let count = 0
  await fc.assert(fc.asyncProperty(
    fc.nat(users.length - 1), fc.constantFrom(...processes), fc.nat(10),
    fc.array(fc.tuple(fc.array(fc.nat(8), { maxLength: 5 }), fc.constantFrom<'replace' | 'delete' | 'add'>('replace', 'delete', 'add'), value, fc.string({ maxLength: 8 })), { maxLength: 3 }),
    fc.constantFrom<Record<string, string>>({}, { 'accept-language': 'pt-BR' }, { 'accept-language': '*;q=0' }, { 'x-uphold-user-ip': '::1' }, { 'content-type': 'text/plain' }),
    fc.boolean(),
    async (n, process, pick, mutations, headers, control) => {
      const u = users[n]
      const samples = SAMPLES[process]
      let body = fill(samples[pick % samples.length], files[n])
      for (const [path, how, replacement, key] of mutations) body = mutate(body, path, how, replacement, key)
      const res = control
        ? await app.inject({ method: 'POST', url: `/_sandbox/users/${u.userId}/kyc/${process}`, payload: (body ?? {}) as object })
        : await app.inject({ method: 'PATCH', url: `/core/kyc/processes/${process}`, headers: { ...(await headersOf(u)), ...headers }, payload: JSON.stringify(body) })
      count++
      if (res.statusCode >= 500) throw new Error(`${process}: ${res.statusCode} ${res.body} for ${JSON.stringify(body)}`)
      if (res.statusCode >= 400) {
        const e = res.json()
        if (typeof e.code !== 'string' || typeof e.message !== 'string') throw new Error(`not the error envelope: ${res.body}`)
      }
    }
  ), { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20_261_124) })
  t.equal(count, RUNS)
  const health = await app.inject({ method: 'GET', url: '/_sandbox/health' })
  t.equal(health.statusCode, 200)
  for (const u of users) t.equal((await u.call('GET', '/core/kyc')).statusCode, 200, 'every user\'s overview still answers and validates')
})

const tokens = new Map<string, Record<string, string>>()
async function headersOf (u: Caller): Promise<Record<string, string>> {
  let h = tokens.get(u.userId)
  if (h === undefined) {
    h = { ...bearer(await accessToken(u.app)), ...onBehalfOf(u.userId), 'content-type': 'application/json' }
    tokens.set(u.userId, h)
  }
  return h
}
