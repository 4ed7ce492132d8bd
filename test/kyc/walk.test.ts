// One individual user from creation to a KYC summary `ok`, through the API alone, with every event
// delivered to a real webhook receiver.
import t, { type Test } from 'tap'
import { addEndpoint, managementLink, startReceiver } from '../webhooks/support.js'
import { postForm, type Upload } from '../files/support.js'
import { buildKyc, advance, kycEvents, kycUser, PROFILE, type Caller } from './support.js'

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex')

/** A file created with core.create-file and uploaded through its upload target, over the real port. */
async function uploadedFile (t: Test, u: Caller, base: string): Promise<string> {
  const created = await u.call('POST', '/core/files', { category: 'image', contentType: 'image/png' })
  t.equal(created.statusCode, 201, created.body)
  const { id, upload } = created.json().file as { id: string, upload: Upload }
  const sent = await postForm(upload.url.replace(/^http:\/\/localhost:80/, base), upload.formData, { bytes: PNG, type: 'image/png' })
  t.equal(sent.status, 204, sent.body)
  return id
}

t.test('a user reaches KYC summary ok through the API, each event delivered in order', async t => {
  const app = await buildKyc(t, { kycReviewDelaySeconds: 5 })
  const receiver = await startReceiver(t)
  const link = await managementLink(app)
  await addEndpoint(app, link, { url: receiver.url })

  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const u = await kycUser(t, app, { email: 'maria.silva@example.com' })
  const delivered: string[] = []
  /** The step's events: recorded in this order, and each delivered to the receiver. */
  const step = async (name: string, expected: string[]): Promise<void> => {
    const all = [...delivered, ...expected]
    t.same(await kycEvents(app, u.userId), all.filter(e => e !== 'user:created'), `${name}: the events recorded, in order`)
    const received = await receiver.waitFor(all.length)
    const types = received.map(r => JSON.parse(r.body) as { type: string, data: { status?: string, userId?: string } })
      .map(e => e.type === 'core.user.created' ? 'user:created' : `${e.type.split('.')[2]}:${e.data.status}`)
    t.same(types.slice(0, delivered.length), delivered, `${name}: earlier deliveries unchanged`)
    t.same(types.slice(delivered.length).sort(), [...expected].sort(), `${name}: its events delivered`)
    t.equal(received.length, all.length, `${name}: nothing else delivered`)
    delivered.push(...expected)
  }
  await step('user created', ['user:created'])

  let res = await u.patch('profile', PROFILE)
  t.equal(res.json().profile.status, 'ok')
  await step('profile', ['profile:ok', 'screening:running', 'address:ok'])
  await advance(app, 5)
  await step('screening after profile', ['screening:ok'])

  res = await u.patch('email', { input: { email: 'maria.silva@example.com' }, output: { verifiedAt: '2020-01-01T00:00:00.000Z' } })
  t.equal(res.json().email.status, 'ok', res.body)
  await step('email', ['email:ok'])

  res = await u.patch('phone', { input: { phone: '+351912345678', country: 'PT' }, output: { verifiedAt: '2020-01-01T00:00:00.000Z' } })
  t.equal(res.json().phone.status, 'ok', res.body)
  await step('phone', ['phone:ok'])

  const front = await uploadedFile(t, u, base)
  const selfie = await uploadedFile(t, u, base)
  res = await u.patch('identity', {
    type: 'document-submission',
    input: { media: [{ context: 'photo-document-front', fileId: front }, { context: 'photo-selfie', fileId: selfie }] },
    output: {
      provider: 'veriff',
      document: { type: 'passport', number: 'P1234567', country: 'PT', expiresAt: '2099-01-01' },
      person: { givenName: 'Maria', familyName: 'Silva', birthdate: '1990-05-17' },
      verifiedAt: '2020-01-01T00:00:00.000Z'
    }
  })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.json().identity.status, 'ok')
  await step('identity', ['identity:ok', 'screening:running'])
  await advance(app, 5)
  await step('screening after identity', ['screening:ok'])

  const bill = await uploadedFile(t, u, base)
  res = await u.patch('proof-of-address', {
    type: 'document-submission',
    input: { media: [{ context: 'address-proof', fileId: bill }] },
    output: { provider: 'sumsub', person: { givenName: 'Maria', familyName: 'Silva', address: { country: 'PT', city: 'Lisboa', line1: 'Rua Augusta 10', postalCode: '1100-053' } }, verifiedAt: '2020-01-01T00:00:00.000Z' }
  })
  t.equal(res.json().proofOfAddress.status, 'ok', res.body)
  await step('proof of address', ['proof-of-address:ok'])

  const cdd = (await u.overview('customerDueDiligence')).processes.customerDueDiligence
  const formId = cdd.hint.formId as string
  t.same(Object.keys(cdd.hint.schema.properties), ['purpose', 'finances', 'occupation'], 'the form\'s steps')
  for (const answers of [
    { purpose: { activities: ['investing'] } },
    { finances: { 'source-of-funds': 'salary', 'annual-income': '25000-100000' } },
    { occupation: { status: 'employed' } }
  ]) {
    res = await u.patch('customer-due-diligence', { input: { formId, answers } })
    t.equal(res.statusCode, 200, res.body)
    t.equal(res.json().customerDueDiligence.status, 'pending', 'pending until the service evaluates it')
  }
  await step('CDD answered', [])
  await advance(app, 5)
  await step('CDD evaluated', ['customer-due-diligence:ok', 'risk:running'])
  await advance(app, 5)
  await step('risk', ['risk:ok'])

  res = await u.patch('tax-details', { input: { taxResidency: { countries: ['PT'] }, taxIdentification: { documents: [{ type: 'tin', country: 'PT', number: '123456789' }], certify: true, signature: 'Maria Silva' } } })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.json().taxDetails.status, 'pending')
  await advance(app, 5)
  await step('tax details', ['tax-details:ok'])

  const overview = await u.overview('customerDueDiligence,taxDetails')
  t.same(overview.summary, { status: 'ok', reason: 'none' })
  t.equal(overview.processes.customerDueDiligence.output.score, 'low')
  t.equal(overview.processes.taxDetails.output.result, 'approved')

  const me = await u.call('GET', '/core/users/me')
  t.equal(me.statusCode, 200, me.body)
  t.match(me.json().user, {
    email: 'maria.silva@example.com',
    fullName: 'Maria Silva',
    birthdate: '1990-05-17',
    address: { country: 'PT', city: 'Lisboa', line1: 'Rua Augusta 10', postalCode: '1100-053' },
    phone: { number: '+351912345678', country: 'PT' }
  }, 'GET /core/users/me shows what KYC declared')
})
