// Each process's allowed and refused transitions, per verification model, with the reference's
// codes and `details.reasons`. Every answer is checked against the app's own OpenAPI document.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildKyc, advance, kycUser, PROFILE, userFile, type Caller } from './support.js'

const VERIFIED = { verifiedAt: '2020-01-01T00:00:00.000Z' }
const FUTURE = '2099-01-01T00:00:00.000Z'

interface Case {
  name: string
  /** Fixture `kycModels` item for the demo organization. */
  config?: Record<string, unknown>
  /** The user's creation body, over the default (a PT resident). */
  user?: Record<string, unknown>
  /** What happens before the request. */
  setup?: (u: Caller) => Promise<unknown>
  process: string
  body: (u: Caller) => Promise<unknown> | unknown
  headers?: Record<string, string>
  status: number
  code?: string
  reasons?: string[]
  details?: Record<string, unknown>
  /** The process's status in the answer (200) or in the overview afterwards. */
  after?: string
  /** Moves the clock by the review delay, then expects this status. */
  reviewed?: string
  check?: (t: Test, u: Caller, body: any) => Promise<void> | void
}

const ok = (u: Caller, process: string, body: unknown) => u.patch(process, body).then(r => { if (r.statusCode !== 200) throw new Error(`${process}: ${r.statusCode} ${r.body}`); return r })
const profile = (u: Caller) => ok(u, 'profile', PROFILE)
const force = (u: Caller, process: string, status: string, reason?: string) =>
  u.control('POST', `/_sandbox/users/${u.userId}/kyc/${process}`, reason === undefined ? { status } : { status, reason })
const identityDoc = async (u: Caller, output?: Record<string, unknown>) => ({
  type: 'document-submission',
  input: { media: [{ context: 'photo-document-front', fileId: await userFile(u.app, u.userId) }] },
  ...(output === undefined ? {} : { output })
})
const IDENTITY_OUTPUT = {
  provider: 'veriff',
  document: { type: 'passport', number: 'P1234567', country: 'PT' },
  person: { givenName: 'Maria', familyName: 'Silva', birthdate: '1990-05-17' },
  ...VERIFIED
}
const CDD_STEPS = [{ purpose: { activities: ['investing'] } }, { finances: { 'source-of-funds': 'salary', 'annual-income': 'under-25000' } }, { occupation: { status: 'employed' } }]
const CRA_GOOD = [{ decisions: { 'who-decides': 'me' } }, { losses: { 'possible-loss': 'all' } }, { volatility: { 'price-moves': 'sharply' } }, { protection: { compensation: 'no' } }]
const CRA_BAD = [...CRA_GOOD.slice(0, 3), { protection: { compensation: 'yes' } }]
const answer = async (u: Caller, process: string, steps: object[]) => { for (const answers of steps) await ok(u, process, { input: { answers } }) }
const TAX = { taxResidency: { countries: ['PT'] }, taxIdentification: { documents: [{ type: 'tin', country: 'PT', number: '123456789' }], certify: true } }
const GB = { primaryCitizenship: 'GB', address: { country: 'GB' } }

const cases: Case[] = [
  // ---- profile ----
  { name: 'profile (none): complete is ok at once', process: 'profile', body: () => PROFILE, status: 200, after: 'ok' },
  { name: 'profile (none): a name alone leaves it pending', process: 'profile', body: () => ({ input: { fullName: 'Maria Silva' } }), status: 200, after: 'pending' },
  { name: 'profile (uphold-verified): pending until the review', config: { models: { profile: 'uphold-verified' } }, process: 'profile', body: () => PROFILE, status: 200, after: 'pending', reviewed: 'ok' },
  {
    name: 'profile: a disallowed field is ignored with a warning',
    process: 'profile',
    body: () => ({ input: { ...PROFILE.input, otherCitizenships: ['ES'] } }),
    status: 200,
    after: 'ok',
    check: (t, _u, body) => { t.same(body.warnings, { input: [{ code: 'verification_rule_violated', message: 'Field \'input.otherCitizenships\' was ignored as its presence is disallowed', details: { property: 'input.otherCitizenships', rule: 'presence' } }] }) }
  },
  {
    name: 'profile: the name is not editable once identity is verified',
    setup: async u => { await profile(u); await ok(u, 'identity', await identityDoc(u, IDENTITY_OUTPUT)) },
    process: 'profile',
    body: () => ({ input: { fullName: 'Other Name' } }),
    status: 200,
    after: 'ok',
    check: (t, _u, body) => { t.equal(body.warnings.input[0].details.rule, 'editable'); t.equal(body.profile.input.fullName, 'Maria Silva') }
  },
  { name: 'profile: under 18 is date_invalid', process: 'profile', body: () => ({ input: { birthdate: '2020-01-01' } }), status: 409, code: 'date_invalid', details: { property: 'input.birthdate', rule: 'difference-greater-than-or-equal-to-threshold' } },
  { name: 'profile: over 100 is date_invalid', process: 'profile', body: () => ({ input: { birthdate: '1900-01-01' } }), status: 409, code: 'date_invalid', details: { property: 'input.birthdate', threshold: { limit: 100, unit: 'years' } } },
  { name: 'profile: digits in a name are invalid_characters', process: 'profile', body: () => ({ input: { fullName: 'M4ria Silva' } }), status: 409, code: 'invalid_characters', details: { context: 'body', property: 'input.fullName' } },
  { name: 'profile: a PO box is refused', process: 'profile', body: () => ({ input: { address: { line1: 'PO Box 12' } } }), status: 409, code: 'po_boxes_not_allowed' },
  { name: 'profile: a bad postal code is refused', process: 'profile', body: () => ({ input: { address: { postalCode: '#1' } } }), status: 409, code: 'postal_code_invalid', details: { property: 'input.address.postalCode' } },
  { name: 'profile: an unsupported citizenship is refused', config: { models: { profile: 'partner-verified' } }, process: 'profile', body: () => ({ input: { primaryCitizenship: 'CU' } }), status: 409, code: 'country_not_supported', details: { property: 'input.primaryCitizenship' } },
  { name: 'profile: another country\'s subdivision is refused', process: 'profile', body: () => ({ input: { address: { subdivision: 'ES-M' } } }), status: 409, code: 'subdivision_not_supported', details: { property: 'input.address.subdivision' } },
  { name: 'profile: a country in the body is 400', process: 'profile', body: () => ({ input: { address: { country: 'ES' } } }), status: 400, code: 'request_invalid' },

  // ---- address (deprecated) ----
  { name: 'address: a complete address is ok', process: 'address', body: () => ({ input: { address: PROFILE.input.address } }), status: 200, after: 'ok' },
  {
    name: 'address: changing the subdivision needs a partner-verified proof of address',
    user: { address: { country: 'PT', subdivision: 'PT-11' } },
    process: 'address',
    body: () => ({ input: { address: { subdivision: 'PT-13' } } }),
    status: 409,
    code: 'operation_not_allowed',
    reasons: ['subdivision-update-non-authoritative-proof-of-address']
  },
  {
    name: 'address: changing a US subdivision is restricted',
    user: { primaryCitizenship: 'US', address: { country: 'US', subdivision: 'US-NY' } },
    process: 'address',
    body: () => ({ input: { address: { subdivision: 'US-CA' } } }),
    status: 409,
    code: 'operation_not_allowed',
    reasons: ['subdivision-update-restricted-by-residence-country']
  },

  // ---- email ----
  { name: 'email (partner-verified): with output is ok at once', process: 'email', body: u => ({ input: { email: `x-${u.userId}@example.com` }, output: VERIFIED }), status: 200, after: 'ok' },
  { name: 'email (partner-verified): without output stays pending', process: 'email', body: u => ({ input: { email: `x-${u.userId}@example.com` } }), status: 200, after: 'pending' },
  { name: 'email (uphold-verified): pending until the review', config: { models: { email: 'uphold-verified' } }, process: 'email', body: u => ({ input: { email: `x-${u.userId}@example.com` } }), status: 200, after: 'pending', reviewed: 'ok' },
  {
    name: 'email (uphold-verified): a partner output is ignored with a warning',
    config: { models: { email: 'uphold-verified' } },
    process: 'email',
    body: u => ({ input: { email: `x-${u.userId}@example.com` }, output: VERIFIED }),
    status: 200,
    after: 'pending',
    check: (t, _u, body) => { t.equal(body.warnings.output[0].details.property, 'output') }
  },
  { name: 'email (none): ok at once', config: { models: { email: 'none' } }, process: 'email', body: u => ({ input: { email: `x-${u.userId}@example.com` } }), status: 200, after: 'ok' },
  { name: 'email: verified already', setup: u => ok(u, 'email', { input: { email: `y-${u.userId}@example.com` }, output: VERIFIED }), process: 'email', body: u => ({ input: { email: `x-${u.userId}@example.com` } }), status: 409, code: 'operation_not_allowed', reasons: ['email-already-verified'] },
  { name: 'email: another user\'s address', process: 'email', body: () => ({ input: { email: 'taken@example.com' } }), status: 409, code: 'email_already_exists' },
  { name: 'email: an undeliverable domain', process: 'email', body: () => ({ input: { email: 'someone@example.invalid' } }), status: 409, code: 'email_incorrect_or_disallowed' },
  { name: 'email: verified in the future', process: 'email', body: u => ({ input: { email: `x-${u.userId}@example.com` }, output: { verifiedAt: FUTURE } }), status: 409, code: 'date_invalid', details: { property: 'output.verifiedAt' } },

  // ---- phone ----
  { name: 'phone (partner-verified): with output is ok at once', process: 'phone', body: () => ({ input: { phone: '+351911111111', country: 'PT' }, output: VERIFIED }), status: 200, after: 'ok' },
  { name: 'phone (uphold-verified): pending until the review', config: { models: { phone: 'uphold-verified' } }, process: 'phone', body: () => ({ input: { phone: '+351911111112', country: 'PT' } }), status: 200, after: 'pending', reviewed: 'ok' },
  { name: 'phone: verified already', setup: u => ok(u, 'phone', { input: { phone: '+351911111113', country: 'PT' }, output: VERIFIED }), process: 'phone', body: () => ({ input: { phone: '+351911111114', country: 'PT' } }), status: 409, code: 'operation_not_allowed', reasons: ['phone-already-verified'] },
  { name: 'phone: too short', process: 'phone', body: () => ({ input: { phone: '+12345', country: 'PT' } }), status: 409, code: 'phone_invalid' },
  { name: 'phone: unsupported country', process: 'phone', body: () => ({ input: { phone: '+5351234567', country: 'CU' } }), status: 409, code: 'country_not_supported', details: { property: 'input.country' } },
  { name: 'phone: another user\'s number', process: 'phone', body: () => ({ input: { phone: '+351999999999', country: 'PT' } }), status: 409, code: 'phone_already_exists' },

  // ---- identity ----
  { name: 'identity (partner-verified): with output is ok at once', setup: profile, process: 'identity', body: u => identityDoc(u, IDENTITY_OUTPUT), status: 200, after: 'ok' },
  { name: 'identity (partner-verified): without output stays pending', setup: profile, process: 'identity', body: u => identityDoc(u), status: 200, after: 'pending' },
  { name: 'identity (uphold-verified): input only is pending until the review', config: { models: { identity: 'uphold-verified' } }, setup: profile, process: 'identity', body: u => identityDoc(u), status: 200, after: 'pending', reviewed: 'ok' },
  { name: 'identity (none): a submission is ok at once', config: { models: { identity: 'none' } }, setup: profile, process: 'identity', body: u => identityDoc(u), status: 200, after: 'ok' },
  { name: 'identity (uphold-verified): output is refused', config: { models: { identity: 'uphold-verified' } }, setup: profile, process: 'identity', body: u => identityDoc(u, IDENTITY_OUTPUT), status: 409, code: 'operation_not_allowed', reasons: ['permission-denied'] },
  { name: 'identity: without a profile', process: 'identity', body: u => identityDoc(u, IDENTITY_OUTPUT), status: 409, code: 'operation_not_allowed', reasons: ['missing-name', 'missing-birthdate'] },
  { name: 'identity: once ok, no more updates', setup: async u => { await profile(u); await ok(u, 'identity', await identityDoc(u, IDENTITY_OUTPUT)) }, process: 'identity', body: u => identityDoc(u, IDENTITY_OUTPUT), status: 409, code: 'operation_not_allowed', reasons: ['kyc-process-update-not-allowed'] },
  { name: 'identity: under review, no more updates', config: { models: { identity: 'uphold-verified' } }, setup: async u => { await profile(u); await ok(u, 'identity', await identityDoc(u)) }, process: 'identity', body: u => identityDoc(u), status: 409, code: 'operation_not_allowed', reasons: ['kyc-process-update-not-allowed'] },
  { name: 'identity: failed, a new submission is accepted', setup: async u => { await profile(u); await force(u, 'identity', 'failed') }, process: 'identity', body: u => identityDoc(u, IDENTITY_OUTPUT), status: 200, after: 'ok' },
  { name: 'identity: a submission type the organization does not allow', config: { identityTypes: ['document-submission'] }, setup: profile, process: 'identity', body: () => ({ type: 'electronic-verification', input: { data: { givenName: 'Maria', familyName: 'Silva', birthdate: '1990-05-17', citizenshipCountry: 'PT' } } }), status: 409, code: 'operation_not_allowed', reasons: ['permission-denied'] },
  { name: 'identity: electronic verification', setup: profile, process: 'identity', body: () => ({ type: 'electronic-verification', input: { data: { givenName: 'Maria', familyName: 'Silva', birthdate: '1990-05-17', citizenshipCountry: 'PT' } }, output: { provider: 'onfido', ...VERIFIED } }), status: 200, after: 'ok' },
  { name: 'identity: an unknown file', setup: profile, process: 'identity', body: () => ({ type: 'document-submission', input: { media: [{ context: 'photo-selfie', fileId: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' }] } }), status: 404, code: 'entity_not_found', details: { entity: 'file' } },
  { name: 'identity: a file not uploaded', setup: profile, process: 'identity', body: async u => ({ type: 'document-submission', input: { media: [{ context: 'photo-selfie', fileId: await userFile(u.app, u.userId, { uploaded: false }) }] } }), status: 409, code: 'file_invalid' },
  { name: 'identity: an expired document', setup: profile, process: 'identity', body: u => identityDoc(u, { ...IDENTITY_OUTPUT, document: { type: 'passport', number: 'P1', country: 'PT', expiresAt: '2001-01-01' } }), status: 409, code: 'date_invalid', details: { property: 'output.document.expiresAt' } },
  { name: 'identity: an unsupported document country', setup: profile, process: 'identity', body: u => identityDoc(u, { ...IDENTITY_OUTPUT, document: { type: 'passport', number: 'P1', country: 'KP' } }), status: 409, code: 'country_not_supported', details: { property: 'output.document.country' } },
  {
    name: 'identity: a verified address completes proof of address from identity',
    setup: profile,
    process: 'identity',
    body: u => identityDoc(u, { ...IDENTITY_OUTPUT, person: { ...IDENTITY_OUTPUT.person, address: { country: 'PT', city: 'Lisboa' } } }),
    status: 200,
    after: 'ok',
    check: async (t, u) => { const o = await u.overview('proofOfAddress'); t.match(o.processes.proofOfAddress, { status: 'ok', type: 'from-identity', verification: { method: 'automatic' } }) }
  },

  // ---- proof of address ----
  { name: 'proof of address: without a profile', process: 'proof-of-address', body: () => ({ type: 'electronic-verification', input: { data: { givenName: 'Maria', address: { country: 'PT' } } } }), status: 409, code: 'operation_not_allowed', reasons: ['missing-name', 'incomplete-address'] },
  { name: 'proof of address (uphold-verified): pending until the review', config: { models: { 'proof-of-address': 'uphold-verified' } }, setup: profile, process: 'proof-of-address', body: () => ({ type: 'electronic-verification', input: { data: { givenName: 'Maria', address: { country: 'PT', city: 'Lisboa' } } } }), status: 200, after: 'pending', reviewed: 'ok' },
  { name: 'proof of address: a name with symbols', setup: profile, process: 'proof-of-address', body: () => ({ type: 'electronic-verification', input: { data: { givenName: 'M@ria', address: { country: 'PT' } } }, output: { provider: 'x', ...VERIFIED } }), status: 409, code: 'invalid_characters', details: { property: 'input.data.givenName' } },

  // ---- customer due diligence ----
  { name: 'CDD: the first step keeps it pending', process: 'customer-due-diligence', body: () => ({ input: { answers: CDD_STEPS[0] } }), status: 200, after: 'pending' },
  { name: 'CDD: skipping a step is 400', process: 'customer-due-diligence', body: () => ({ input: { answers: CDD_STEPS[1] } }), status: 400, code: 'request_invalid' },
  { name: 'CDD: two steps at once is 400', process: 'customer-due-diligence', body: () => ({ input: { answers: { ...CDD_STEPS[0], ...CDD_STEPS[1] } } }), status: 400, code: 'request_invalid' },
  { name: 'CDD: a bad answer is 400 naming it', process: 'customer-due-diligence', body: () => ({ input: { answers: { purpose: { activities: ['gambling'] } } } }), status: 400, code: 'request_invalid' },
  { name: 'CDD: another form id', process: 'customer-due-diligence', body: () => ({ input: { formId: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', answers: CDD_STEPS[0] } }), status: 404, code: 'entity_not_found', details: { entity: 'form' } },
  {
    name: 'CDD: answering an earlier step starts again from it',
    setup: u => answer(u, 'customer-due-diligence', CDD_STEPS.slice(0, 2)),
    process: 'customer-due-diligence',
    body: () => ({ input: { answers: { purpose: { activities: ['payments'] } } } }),
    status: 200,
    after: 'pending',
    check: (t, _u, body) => { t.same(body.customerDueDiligence.input.answers, { purpose: { activities: ['payments'] } }) }
  },
  { name: 'CDD (uphold-verified): evaluated after the last step and the review', setup: u => answer(u, 'customer-due-diligence', CDD_STEPS.slice(0, 2)), process: 'customer-due-diligence', body: () => ({ input: { answers: CDD_STEPS[2] } }), status: 200, after: 'pending', reviewed: 'ok' },
  { name: 'CDD (none): evaluated at once after the last step', config: { models: { 'customer-due-diligence': 'none' } }, setup: u => answer(u, 'customer-due-diligence', CDD_STEPS.slice(0, 2)), process: 'customer-due-diligence', body: () => ({ input: { answers: CDD_STEPS[2] } }), status: 200, after: 'ok' },
  { name: 'CDD: completed, awaiting evaluation', setup: u => answer(u, 'customer-due-diligence', CDD_STEPS), process: 'customer-due-diligence', body: () => ({ input: { answers: CDD_STEPS[0] } }), status: 409, code: 'operation_not_allowed', reasons: ['form-already-completed'] },
  { name: 'CDD: ok, the form is completed', setup: u => force(u, 'customer-due-diligence', 'ok'), process: 'customer-due-diligence', body: () => ({ input: { answers: CDD_STEPS[0] } }), status: 409, code: 'operation_not_allowed', reasons: ['form-already-completed'] },
  { name: 'CDD (partner-verified): output is ok at once', config: { models: { 'customer-due-diligence': 'partner-verified' } }, process: 'customer-due-diligence', body: () => ({ input: { answers: { anything: { at: 'once' } } }, output: { score: 'low', expiresAt: FUTURE, ...VERIFIED } }), status: 200, after: 'ok' },
  { name: 'CDD (partner-verified): an expired result', config: { models: { 'customer-due-diligence': 'partner-verified' } }, process: 'customer-due-diligence', body: () => ({ input: { answers: {} }, output: { score: 'low', expiresAt: '2001-01-01T00:00:00.000Z', ...VERIFIED } }), status: 409, code: 'date_invalid', details: { property: 'output.expiresAt' } },
  { name: 'CDD: an unsupported locale', process: 'customer-due-diligence', headers: { 'accept-language': 'xx' }, body: () => ({ input: { answers: CDD_STEPS[0] } }), status: 409, code: 'locale_invalid', details: { context: 'headers', property: 'accept-language' } },
  {
    name: 'CDD: a high score makes enhanced due diligence required',
    setup: u => answer(u, 'customer-due-diligence', [CDD_STEPS[0], { finances: { 'source-of-funds': 'other', 'annual-income': 'under-25000' } }]),
    process: 'customer-due-diligence',
    body: () => ({ input: { answers: CDD_STEPS[2] } }),
    status: 200,
    reviewed: 'ok',
    check: async (t, u) => { t.equal((await u.overview()).processes.enhancedDueDiligence.status, 'pending') }
  },

  // ---- enhanced due diligence ----
  { name: 'EDD: exempt refuses updates', process: 'enhanced-due-diligence', body: async u => ({ input: { media: [{ context: 'source-of-funds-proof', fileId: await userFile(u.app, u.userId) }] } }), status: 409, code: 'operation_not_allowed', reasons: ['kyc-process-update-not-allowed'] },
  { name: 'EDD (partner-verified): required, with output is ok', setup: u => force(u, 'enhanced-due-diligence', 'pending'), process: 'enhanced-due-diligence', body: async u => ({ input: { media: [{ context: 'source-of-funds-proof', fileId: await userFile(u.app, u.userId) }] }, output: VERIFIED }), status: 200, after: 'ok' },
  { name: 'EDD: a file of another user', setup: u => force(u, 'enhanced-due-diligence', 'pending'), process: 'enhanced-due-diligence', body: async u => ({ input: { media: [{ context: 'source-of-funds-proof', fileId: await userFile(u.app, (await kycUser(t, u.app)).userId) }] } }), status: 404, code: 'entity_not_found', details: { entity: 'file' } },

  // ---- crypto risk assessment, self-categorization statement ----
  { name: 'CRA: exempt outside the configured countries', process: 'crypto-risk-assessment', body: () => ({ input: { answers: CRA_GOOD[0] } }), status: 409, code: 'operation_not_allowed', reasons: ['kyc-process-update-not-allowed'] },
  { name: 'CRA (uphold-verified): approved after the review', user: GB, setup: u => answer(u, 'crypto-risk-assessment', CRA_GOOD.slice(0, 3)), process: 'crypto-risk-assessment', body: () => ({ input: { answers: CRA_GOOD[3] } }), status: 200, after: 'pending', reviewed: 'ok' },
  {
    name: 'CRA: a rejection stays pending, counts the attempt and restarts the form',
    user: GB,
    setup: u => answer(u, 'crypto-risk-assessment', CRA_BAD.slice(0, 3)),
    process: 'crypto-risk-assessment',
    body: () => ({ input: { answers: CRA_BAD[3] } }),
    status: 200,
    reviewed: 'pending',
    check: async (t, u) => { const p = (await u.overview('cryptoRiskAssessment')).processes.cryptoRiskAssessment; t.same(p.output, { result: 'rejected', attempts: { used: 1, maximum: 5 } }); t.notOk(p.input?.answers, 'the answers start again'); t.ok(p.hint, 'the form to fill in again') }
  },
  { name: 'CRA: failed refuses updates', user: GB, setup: u => force(u, 'crypto-risk-assessment', 'failed'), process: 'crypto-risk-assessment', body: () => ({ input: { answers: CRA_GOOD[0] } }), status: 409, code: 'operation_not_allowed', reasons: ['kyc-process-update-not-allowed'] },
  { name: 'CRA: ok, the form is completed', user: GB, setup: u => force(u, 'crypto-risk-assessment', 'ok'), process: 'crypto-risk-assessment', body: () => ({ input: { answers: CRA_GOOD[0] } }), status: 409, code: 'operation_not_allowed', reasons: ['form-already-completed'] },
  { name: 'CRA (partner-verified): a rejection with the last attempt fails', user: GB, config: { models: { 'crypto-risk-assessment': 'partner-verified' } }, process: 'crypto-risk-assessment', body: () => ({ input: { answers: {} }, output: { result: 'rejected', attempts: { used: 5, maximum: 5 }, ...VERIFIED } }), status: 200, after: 'failed' },
  {
    name: 'SCS (uphold-verified): approved after the review, with an expiry',
    user: GB,
    setup: u => answer(u, 'self-categorization-statement', [{ category: { type: 'restricted' } }]),
    process: 'self-categorization-statement',
    body: () => ({ input: { answers: { declaration: { confirmed: true } } } }),
    status: 200,
    reviewed: 'ok',
    check: async (t, u) => { t.match((await u.overview('selfCategorizationStatement')).processes.selfCategorizationStatement.output, { result: 'approved', attempts: { used: 1, maximum: 30 }, expiresAt: String }) }
  },
  { name: 'SCS: an unsupported locale', user: GB, process: 'self-categorization-statement', headers: { 'accept-language': 'de' }, body: () => ({ input: { answers: { category: { type: 'restricted' } } } }), status: 409, code: 'locale_invalid' },

  // ---- tax details ----
  { name: 'tax details: an incomplete profile', process: 'tax-details', body: () => ({ input: TAX }), status: 409, code: 'operation_not_allowed', reasons: ['incomplete-profile', 'incomplete-address'] },
  { name: 'tax details (uphold-verified): pending until the review', setup: profile, process: 'tax-details', body: () => ({ input: TAX }), status: 200, after: 'pending', reviewed: 'ok' },
  { name: 'tax details (partner-verified): a rejected result fails', config: { models: { 'tax-details': 'partner-verified' } }, setup: profile, process: 'tax-details', body: () => ({ input: TAX, output: { result: 'rejected', ...VERIFIED } }), status: 200, after: 'failed' },
  { name: 'tax details (none): ok at once', config: { models: { 'tax-details': 'none' } }, setup: profile, process: 'tax-details', body: () => ({ input: TAX }), status: 200, after: 'ok' },
  { name: 'tax details: exempt', setup: async u => { await profile(u); await force(u, 'tax-details', 'exempt') }, process: 'tax-details', body: () => ({ input: TAX }), status: 409, code: 'operation_not_allowed', reasons: ['kyc-process-status-exempt'] },
  { name: 'tax details: exempt for the organization', config: { exempt: ['tax-details'] }, process: 'tax-details', body: () => ({ input: TAX }), status: 409, code: 'operation_not_allowed', reasons: ['kyc-process-status-exempt'] },
  { name: 'tax details: a bad number', setup: profile, process: 'tax-details', body: () => ({ input: { ...TAX, taxIdentification: { documents: [{ type: 'tin', country: 'PT', number: '1!' }], certify: true } } }), status: 409, code: 'document_number_invalid', details: { property: 'input.taxIdentification.documents[0].number' } },
  { name: 'tax details: no number and an unknown reason', setup: profile, process: 'tax-details', body: () => ({ input: { ...TAX, taxIdentification: { documents: [{ type: 'tin', country: 'PT', reason: 'lost' }], certify: true } } }), status: 409, code: 'document_reason_not_supported' },
  { name: 'tax details: a document without a number, unsigned, is accepted', setup: profile, process: 'tax-details', body: () => ({ input: { taxResidency: { countries: ['PT'] }, taxIdentification: { documents: [{ type: 'tin', country: 'PT' }] } } }), status: 200, after: 'pending' },
  { name: 'tax details: a signature that is not the name', setup: profile, process: 'tax-details', body: () => ({ input: { ...TAX, taxIdentification: { ...TAX.taxIdentification, signature: 'Someone Else' } } }), status: 409, code: 'certification_signature_mismatch' },
  { name: 'tax details: an unsupported residence', setup: profile, process: 'tax-details', body: () => ({ input: { ...TAX, taxResidency: { countries: ['PT', 'IR'] } } }), status: 409, code: 'country_not_supported', details: { property: 'input.taxResidency.countries[1]' } },
  { name: 'tax details: one part waits for the other, without a review', setup: profile, process: 'tax-details', body: () => ({ input: { taxResidency: { countries: ['PT'] } } }), status: 200, after: 'pending', reviewed: 'pending' },
  {
    name: 'tax details: the second part completes the form, then the review',
    setup: async u => { await profile(u); await ok(u, 'tax-details', { input: { taxResidency: { countries: ['PT'] } } }) },
    process: 'tax-details',
    body: () => ({ input: { taxIdentification: TAX.taxIdentification } }),
    status: 200,
    after: 'pending',
    reviewed: 'ok',
    check: (t, _u, body) => { t.same(Object.keys(body.taxDetails.input), ['taxResidency', 'taxIdentification']) }
  },
  { name: 'tax details: a part the form does not have is 400', setup: profile, process: 'tax-details', body: () => ({ input: { taxBrackets: {} } }), status: 400, code: 'request_invalid' },
  { name: 'tax details: a form that is not the form is 400', setup: profile, process: 'tax-details', body: () => ({ input: { taxResidency: {} } }), status: 400, code: 'request_invalid' },
  { name: 'tax details: an unsupported locale', setup: profile, process: 'tax-details', headers: { 'accept-language': 'fr' }, body: () => ({ input: TAX }), status: 409, code: 'locale_invalid' }
]

async function statusOf (u: Caller, process: string): Promise<string> {
  const key = process.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())
  return (await u.overview()).processes[key].status
}

t.test('process transitions', async t => {
  // One app for every case: each case has its own user and, when configured, its own models.
  const app: FastifyInstance = await buildKyc(t, { kycReviewDelaySeconds: 5 })
  const other = await kycUser(t, app, { email: 'taken@example.com' })
  await other.patch('phone', { input: { phone: '+351999999999', country: 'PT' } })
  for (const c of cases) {
    await t.test(c.name, async t => {
      const fixture = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { kycModels: [c.config ?? {}] } })
      t.equal(fixture.statusCode, 201, fixture.body)
      const u = await kycUser(t, app, c.user)
      if (c.setup !== undefined) await c.setup(u)
      const res = await u.patch(c.process, await c.body(u), c.headers)
      t.equal(res.statusCode, c.status, res.body)
      const body = res.json()
      if (c.code !== undefined) t.equal(body.code, c.code)
      if (c.reasons !== undefined) t.same(body.details?.reasons, c.reasons)
      if (c.details !== undefined) t.match(body.details, c.details)
      if (c.after !== undefined) t.equal(await statusOf(u, c.process), c.after, `then ${c.after}`)
      if (c.reviewed !== undefined) {
        await advance(app, 5)
        t.equal(await statusOf(u, c.process), c.reviewed, `after the review: ${c.reviewed}`)
      }
      await c.check?.(t, u, body)
    })
  }
})
