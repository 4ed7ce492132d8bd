import t from 'tap'
import { buildKyc, kycUser, PROFILE } from './support.js'

t.test('a new user has every process in its initial state, and a pending summary', async t => {
  const app = await buildKyc(t)
  const u = await kycUser(t, app)
  const overview = await u.overview()
  t.same(overview.summary, { status: 'pending', reason: 'none' })
  t.same(Object.fromEntries(Object.entries(overview.processes).map(([k, v]: [string, any]) => [k, v.status])), {
    profile: 'pending',
    address: 'pending',
    email: 'pending',
    phone: 'pending',
    identity: 'pending',
    proofOfAddress: 'pending',
    customerDueDiligence: 'pending',
    enhancedDueDiligence: 'exempt',
    cryptoRiskAssessment: 'exempt',
    selfCategorizationStatement: 'exempt',
    taxDetails: 'pending',
    screening: 'pending',
    risk: 'pending'
  })
  t.same(overview.processes.identity, { code: 'identity', status: 'pending', type: 'none' })
  const detailed = await u.overview('profile,customerDueDiligence,identity,taxDetails')
  t.equal(detailed.processes.profile.verification.model, 'none')
  t.equal(detailed.processes.customerDueDiligence.hint.type, 'form')
  t.same(detailed.processes.identity.verification, { model: 'partner-verified', method: 'manual', dependencies: ['phone', 'profile'], submittable: true })
  t.notOk('verification' in overview.processes.profile, 'only the detailed processes show their verification')

  const res = await u.patch('profile', PROFILE)
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.json().profile.status, 'ok')
})

t.test('the document names the 12 KYC operations with their scopes, and the address update deprecated', async t => {
  const app = await buildKyc(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  t.same(doc.paths['/core/kyc'].get.security, [{ OAuth2: ['core.kyc:read'] }])
  t.same(doc.paths['/core/kyc'].get['x-subjects'], ['user:individual'])
  const processes = Object.keys(doc.paths).filter(p => p.startsWith('/core/kyc/processes/'))
  t.equal(processes.length, 11)
  for (const p of processes) t.same(doc.paths[p].patch.security, [{ OAuth2: [`core.kyc.${p.split('/').pop()!}:update`] }], p)
  t.equal(doc.paths['/core/kyc/processes/address'].patch.deprecated, true)
  t.notOk(doc.paths['/core/kyc/processes/profile'].patch.deprecated)
})
