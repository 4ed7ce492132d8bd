// The sandbox controls of KYC, the summary they lead to, KYB, the dashboard's list, the guard of
// the KYC operations, KYC sharing sessions, and reviews that outlive a restart.
import t from 'tap'
import { Clock } from '../../src/clock.js'
import { accessToken, bearer, fileDatabasePath, waitFor } from '../helpers.js'
import { ownDocumentChecker } from '../catalogue/openapi-check.js'
import { kycStore } from '../../src/kyc/store.js'
import { buildKyc, DEMO, kycEvents, kycUser, PROFILE } from './support.js'

t.test('forcing outcomes: events on change, the summary blocked or restricted, 404 and 400', async t => {
  const app = await buildKyc(t)
  const u = await kycUser(t, app)
  let res = await u.control('POST', `/_sandbox/users/${u.userId}/kyc/identity`, { status: 'failed', reason: 'document-forged' })
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), { process: { code: 'identity', status: 'failed' }, summary: { status: 'restricted', reason: 'document-forged' } })
  res = await u.control('POST', `/_sandbox/users/${u.userId}/kyc/identity`, { status: 'failed' })
  t.same(await kycEvents(app, u.userId), ['identity:failed'], 'the same status again records nothing')
  res = await u.control('POST', `/_sandbox/users/${u.userId}/kyc/screening`, { status: 'failed' })
  t.same(res.json().summary, { status: 'blocked', reason: 'screening' })
  t.same(res.json().process.output, { result: 'rejected' })

  res = await u.control('POST', `/_sandbox/users/${u.userId}/kyc/identity`, { status: 'ok' })
  t.same(await kycEvents(app, u.userId), ['identity:failed', 'screening:failed', 'identity:ok', 'screening:running'], 'identity ok runs screening again')

  res = await u.control('POST', '/_sandbox/users/3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b/kyc/identity', { status: 'ok' })
  t.equal(res.statusCode, 404)
  t.same(res.json().details, { entity: 'user' })
  res = await u.control('POST', `/_sandbox/users/${u.userId}/kyc/passport`, { status: 'ok' })
  t.equal(res.statusCode, 400)
  res = await u.control('POST', `/_sandbox/users/${u.userId}/kyc/identity`, { status: 'approved' })
  t.equal(res.statusCode, 400)
  for (const url of [`/_sandbox/users/${u.userId}/kyc/identity`, `/_sandbox/users/${u.userId}/kyb`, '/_sandbox/users/not-a-uuid/kyb']) {
    res = await app.inject({ method: 'POST', url })
    t.equal(res.statusCode, 400, `${url} without a body`)
    t.equal(res.json().code, 'request_invalid')
  }
})

t.test('every process forced ok makes the summary ok', async t => {
  const app = await buildKyc(t)
  const u = await kycUser(t, app)
  for (const p of ['profile', 'address', 'email', 'phone', 'identity', 'proof-of-address', 'customer-due-diligence', 'tax-details', 'screening', 'risk']) {
    const res = await u.control('POST', `/_sandbox/users/${u.userId}/kyc/${p}`, { status: 'ok' })
    t.equal(res.statusCode, 200, res.body)
  }
  const overview = await u.overview()
  t.same(overview.summary, { status: 'ok', reason: 'none' })
})

t.test('every process forced at once: one call, the overview it answers is the user\'s, the events of each change', async t => {
  const app = await buildKyc(t)
  const u = await kycUser(t, app)
  await u.control('POST', `/_sandbox/users/${u.userId}/kyc/email`, { status: 'ok' })
  const before = await kycEvents(app, u.userId)
  const res = await u.control('POST', `/_sandbox/users/${u.userId}/kyc`, { status: 'ok' })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json().summary, { status: 'ok', reason: 'none' })
  t.same(Object.values(res.json().processes).map(p => (p as { status: string }).status), Array(13).fill('ok'), 'all 13 processes are ok')
  const overview = await u.overview()
  t.same(overview, res.json(), 'GET /core/kyc shows what it answered')
  const added = (await kycEvents(app, u.userId)).slice(before.length)
  t.same(added.filter(e => e.endsWith(':ok')).sort(), ['address', 'crypto-risk-assessment', 'customer-due-diligence', 'enhanced-due-diligence', 'identity', 'phone', 'profile', 'proof-of-address', 'risk', 'screening', 'self-categorization-statement', 'tax-details'].map(p => `${p}:ok`),
    'one status-changed event per process that changed to ok (email already was)')
  t.same((await u.control('POST', `/_sandbox/users/${u.userId}/kyc`, { status: 'ok' })).statusCode, 200)
  t.equal((await kycEvents(app, u.userId)).length, before.length + added.length, 'again: nothing changes, nothing is emitted')

  t.equal((await u.control('POST', '/_sandbox/users/3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b/kyc', { status: 'ok' })).statusCode, 404)
  t.equal((await u.control('POST', `/_sandbox/users/${u.userId}/kyc`, { status: 'approved' })).statusCode, 400)
})

t.test('KYB onboarding: its event, and the dashboard list', async t => {
  const app = await buildKyc(t)
  const u = await kycUser(t, app)
  let res = await u.control('POST', `/_sandbox/users/${u.userId}/kyb`, { status: 'running' })
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), { kyb: { userId: u.userId, status: 'running' } })
  res = await u.control('POST', `/_sandbox/users/${u.userId}/kyb`, { status: 'ok' })
  t.same(await kycEvents(app, u.userId), ['onboarding:running', 'onboarding:ok'])
  const payload = await app.storage.db.prepare<[], string>("SELECT payload FROM events WHERE type = 'core.kyb.onboarding.status-changed' ORDER BY seq DESC LIMIT 1").pluck().get()
  t.match(JSON.parse(payload!), { type: 'core.kyb.onboarding.status-changed', data: { status: 'ok', userId: u.userId } })
  res = await u.control('POST', '/_sandbox/users/3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b/kyb', { status: 'ok' })
  t.equal(res.statusCode, 404)

  await u.patch('profile', PROFILE)
  res = await u.control('GET', '/_sandbox/kyc')
  t.equal(res.statusCode, 200)
  const listed = res.json().users.find((x: { id: string }) => x.id === u.userId)
  t.match(listed, { summary: { status: 'pending', reason: 'none' }, processes: { profile: 'ok', screening: 'running' }, kyb: 'ok' })
})

t.test('the KYC operations are for individual users, with their scopes', async t => {
  const app = await buildKyc(t)
  const check = await ownDocumentChecker(app)
  const token = await accessToken(app)
  let res = await app.inject({ method: 'GET', url: '/core/kyc', headers: bearer(token) })
  t.equal(res.statusCode, 403)
  t.equal(res.json().code, 'token_subject_not_allowed')
  t.same(check('GET', '/core/kyc', res), [])
  const u = await kycUser(t, app)
  const narrow = await accessToken(app, { scope: 'core.users:act-on-behalf-of core.kyc:read' })
  res = await app.inject({ method: 'PATCH', url: '/core/kyc/processes/profile', headers: { ...bearer(narrow), 'x-on-behalf-of': `user ${u.userId}` }, payload: PROFILE })
  t.equal(res.statusCode, 403)
  t.same(res.json().details.security[0].schemeScopes, ['core.kyc.profile:update'])
  res = await u.call('GET', '/core/kyc', undefined, { 'accept-language': 'xx-YY' })
  t.equal(res.statusCode, 409)
  t.same(res.json(), { code: 'locale_invalid', message: 'The locale is invalid', details: { context: 'headers', property: 'accept-language' } })
  res = await u.call('GET', '/core/kyc?detailed=profile,nonsense')
  t.equal(res.statusCode, 400)
  res = await u.call('GET', '/core/kyc', undefined, { 'x-uphold-user-ip': 'not-an-ip' })
  t.equal(res.statusCode, 400)
})

t.test('a KYC sharing session: a 600 s token scoped to exactly the missing processes', async t => {
  const app = await buildKyc(t)
  const check = await ownDocumentChecker(app)
  const u = await kycUser(t, app)
  await u.patch('profile', PROFILE)
  const url = '/topper/kyc-sharing/sessions'
  const token = await accessToken(app, { scope: 'topper.kyc-sharing:create-session' })
  let res = await app.inject({ method: 'POST', url, headers: bearer(token), payload: { userId: u.userId } })
  t.equal(res.statusCode, 201, res.body)
  t.same(check('POST', url, res), [])
  const { kycSharing } = res.json()
  t.same(kycSharing.processes, ['email', 'phone', 'identity'])
  t.match(kycSharing.userToken, { token_type: 'Bearer', expires_in: 600, scope: 'core.kyc.email:update core.kyc.phone:update core.kyc.identity:update' })
  t.notOk('refresh_token' in kycSharing.userToken)

  const session = bearer(kycSharing.userToken.access_token)
  res = await app.inject({ method: 'PATCH', url: '/core/kyc/processes/email', headers: session, payload: { input: { email: 'shared@example.com' }, output: { verifiedAt: '2020-01-01T00:00:00.000Z' } } })
  t.equal(res.statusCode, 200, 'the token updates a missing process')
  res = await app.inject({ method: 'PATCH', url: '/core/kyc/processes/profile', headers: session, payload: PROFILE })
  t.equal(res.statusCode, 403, 'and nothing else')
  await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 601 } })
  res = await app.inject({ method: 'PATCH', url: '/core/kyc/processes/phone', headers: session, payload: { input: { phone: '+351912345000', country: 'PT' } } })
  t.equal(res.statusCode, 401, 'for 600 s')

  for (const p of ['phone', 'identity']) await u.control('POST', `/_sandbox/users/${u.userId}/kyc/${p}`, { status: 'ok' })
  const fresh = await accessToken(app, { scope: 'topper.kyc-sharing:create-session' })
  res = await app.inject({ method: 'POST', url, headers: bearer(fresh), payload: { userId: u.userId } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { kycSharing: { processes: [] } })
  t.same(check('POST', url, res), [])

  res = await app.inject({ method: 'POST', url, headers: bearer(fresh), payload: { userId: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' } })
  t.equal(res.statusCode, 404)
  t.same(res.json().details, { entity: 'user' })

  await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { kycModels: [{ kycSharing: false }] } })
  res = await app.inject({ method: 'POST', url, headers: bearer(fresh), payload: { userId: u.userId } })
  t.equal(res.statusCode, 409)
  t.same(res.json().details, { reasons: ['permission-denied'] })
})

t.test('reviews owed survive a restart and complete once their time has come', async t => {
  const databasePath = fileDatabasePath(t)
  const clock = new Clock()
  clock.freeze(true)
  const first = await buildKyc(t, { databasePath, kycReviewDelaySeconds: 30 }, { clock })
  await first.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { kycModels: [{ models: { email: 'uphold-verified' } }] } })
  const u = await kycUser(t, first)
  const res = await u.patch('email', { input: { email: 'later@example.com' } })
  t.equal(res.json().email.status, 'pending')
  await first.close()

  clock.advance(31)
  const second = await buildKyc(t, { databasePath, kycReviewDelaySeconds: 30 }, { clock })
  const store = second.storage.store(kycStore)
  await waitFor(async () => (await store.read(DEMO, u.userId))?.processes.email.status === 'ok', { what: 'the review on start' })
  t.same(await kycEvents(second, u.userId), ['email:ok'])
})

t.test('with no review delay, a review completes right after the update', async t => {
  const app = await buildKyc(t, { kycReviewDelaySeconds: 0 })
  const u = await kycUser(t, app)
  await u.patch('profile', PROFILE)
  await waitFor(async () => (await kycEvents(app, u.userId)).includes('screening:ok'), { what: 'screening' })
  t.same(await kycEvents(app, u.userId), ['profile:ok', 'screening:running', 'address:ok', 'screening:ok'])
})

t.test('deleting a user takes its KYC and the reviews it was owed', async t => {
  const app = await buildKyc(t, { kycReviewDelaySeconds: 5 })
  const u = await kycUser(t, app)
  await u.patch('profile', PROFILE)
  const owed = async (): Promise<number | undefined> => await app.storage.db.prepare<[string], number>('SELECT count(*) AS n FROM kyc_reviews WHERE user_id = ?').pluck().get(u.userId)
  t.equal(await owed(), 1, 'screening is owed')
  const res = await u.call('DELETE', '/core/users/me', { review: { reason: 'closure-per-user-request' } })
  t.equal(res.statusCode, 204, res.body)
  t.equal(await owed(), 0)
  t.equal(await app.storage.db.prepare('SELECT count(*) AS n FROM kyc_processes WHERE user_id = ?').pluck().get(u.userId), 0)
  const clock = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 10 } })
  t.equal(clock.statusCode, 200)
  const forced = await app.inject({ method: 'POST', url: `/_sandbox/users/${u.userId}/kyc/identity`, payload: { status: 'ok' } })
  t.equal(forced.statusCode, 404)
})
