// The evaluator as a table: user states (everything done, KYC incomplete, a KYC process failed,
// vIBAN terms missing, cooldown running, restricted country, a business) against each of the 17
// capabilities' answer.
import t from 'tap'
import { CAPABILITY_CODES, evaluate, evaluateAll, fulfilled, type UserFacts } from '../../src/capabilities/evaluate.js'
import { PROCESS_CODES, type ProcessCode, type ProcessStatus } from '../../schemas/kyc.js'

const allOk = Object.fromEntries(PROCESS_CODES.map(c => [c, 'ok'])) as Record<ProcessCode, ProcessStatus>
const DONE: UserFacts = {
  userType: 'individual',
  country: 'GB',
  countrySupported: true,
  kyc: allOk,
  vibanTerms: { applies: true, accepted: true },
  cooldownRunning: false,
  cards: { active: 0, unique: 0, limits: { active: 5, unique: 10 } }
}
const with_ = (changes: Partial<UserFacts>): UserFacts => ({ ...DONE, ...changes })

const MONEY = ['crypto-withdrawals', 'card-withdrawals', 'bank-withdrawals', 'crypto-deposits', 'bank-deposits', 'deposits', 'receives', 'sends', 'trades']
const US_ONLY = ['apple-pay-withdrawals', 'paypal-withdrawals', 'venmo-withdrawals', 'apple-pay', 'paypal', 'venmo']
const CRYPTO_FORMS = ['crypto-withdrawals', 'crypto-deposits', 'sends', 'trades']

type Row = [string, { enabled: boolean, requirements: string[], restrictions: string[] }]
const answer = (enabled: boolean, requirements: string[] = [], restrictions: string[] = []) => ({ enabled, requirements, restrictions })

/** The expected answer of every capability in a state, from the rules in the README's table. */
const STATES: Array<{ name: string, facts: UserFacts, expected: (code: string) => Row[1] }> = [
  {
    name: 'everything done (GB individual)',
    facts: DONE,
    expected: code => US_ONLY.includes(code) ? answer(false, [], ['user-country-not-supported']) : answer(true)
  },
  {
    name: 'KYC incomplete: identity and proof of address pending',
    facts: with_({ kyc: { ...allOk, identity: 'pending', 'proof-of-address': 'pending', 'crypto-risk-assessment': 'pending' } }),
    expected: code => {
      if (US_ONLY.includes(code)) {
        const needs = code.endsWith('-withdrawals') ? ['user-must-submit-identity', 'user-must-submit-proof-of-address'] : ['user-must-submit-identity']
        return answer(false, needs, ['user-country-not-supported'])
      }
      if (['cards', 'unique-account-number-viban'].includes(code)) return answer(true, ['user-must-submit-identity'])
      const forms = CRYPTO_FORMS.includes(code) ? ['user-must-submit-crypto-risk-assessment-form'] : []
      return answer(true, [...forms, 'user-must-submit-identity', 'user-must-submit-proof-of-address'])
    }
  },
  {
    name: 'a KYC process failed: identity',
    facts: with_({ kyc: { ...allOk, identity: 'failed' } }),
    expected: code => answer(false, [], US_ONLY.includes(code) ? ['user-country-not-supported', 'user-identity-not-valid'] : ['user-identity-not-valid'])
  },
  {
    name: 'vIBAN terms missing',
    facts: with_({ vibanTerms: { applies: true, accepted: false } }),
    expected: code => code === 'unique-account-number-viban'
      ? answer(true, ['user-must-accept-unique-account-number-viban-terms-of-service'])
      : US_ONLY.includes(code) ? answer(false, [], ['user-country-not-supported']) : answer(true)
  },
  {
    name: 'cooldown running',
    facts: with_({ cooldownRunning: true }),
    expected: code => ['crypto-deposits', 'trades'].includes(code)
      ? answer(false, [], ['financial-promotion-cooldown-running'])
      : US_ONLY.includes(code) ? answer(false, [], ['user-country-not-supported']) : answer(true)
  },
  {
    name: 'restricted country of residence',
    facts: with_({ countrySupported: false }),
    expected: () => answer(false, [], ['user-country-not-supported'])
  },
  {
    name: 'a business in the US',
    facts: with_({ userType: 'business', country: 'US', vibanTerms: { applies: false, accepted: false } }),
    expected: code => code === 'unique-account-number-viban' ? answer(false, [], ['user-country-not-supported', 'user-type-not-supported']) : answer(true)
  },
  {
    name: 'screening running',
    facts: with_({ kyc: { ...allOk, screening: 'running' } }),
    expected: code => answer(false, [], US_ONLY.includes(code) ? ['user-country-not-supported', 'user-screening-running'] : ['user-screening-running'])
  },
  {
    name: 'as many cards held as allowed: one to delete before another',
    facts: with_({ cards: { active: 5, unique: 5, limits: { active: 5, unique: 10 } } }),
    expected: code => code === 'cards' ? answer(true, ['user-must-delete-card']) : US_ONLY.includes(code) ? answer(false, [], ['user-country-not-supported']) : answer(true)
  },
  {
    name: 'as many distinct cards added as allowed, fewer held: restricted',
    facts: with_({ cards: { active: 2, unique: 10, limits: { active: 5, unique: 10 } } }),
    expected: code => code === 'cards' ? answer(false, [], ['user-unique-card-limit-reached']) : US_ONLY.includes(code) ? answer(false, [], ['user-country-not-supported']) : answer(true)
  },
  {
    name: 'both limits reached',
    facts: with_({ cards: { active: 3, unique: 3, limits: { active: 3, unique: 3 } } }),
    expected: code => code === 'cards' ? answer(false, ['user-must-delete-card'], ['user-unique-card-limit-reached']) : US_ONLY.includes(code) ? answer(false, [], ['user-country-not-supported']) : answer(true)
  },
  {
    name: 'cards left out (an operation on a card held): the limits say nothing',
    facts: with_({ cards: undefined }),
    expected: code => US_ONLY.includes(code) ? answer(false, [], ['user-country-not-supported']) : answer(true)
  }
]

t.test('each user state gives each of the 17 capabilities its answer', async t => {
  t.equal(CAPABILITY_CODES.length, 17)
  for (const state of STATES) {
    const all = evaluateAll(state.facts)
    t.same(all.map(c => c.code), CAPABILITY_CODES, `${state.name}: every capability, in order`)
    for (const c of all) {
      t.same({ enabled: c.enabled, requirements: c.requirements, restrictions: c.restrictions }, state.expected(c.code), `${state.name}: ${c.code}`)
      t.equal(c.enabled, c.restrictions.length === 0, 'enabled exactly when nothing restricts')
      t.equal(fulfilled(c), c.enabled && c.requirements.length === 0)
    }
  }
  t.equal(evaluate('trades', DONE).name, 'Trades')
  t.ok(MONEY.every(code => fulfilled(evaluate(code as typeof CAPABILITY_CODES[number], DONE))))
})
