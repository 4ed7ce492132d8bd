// The capability evaluator: one pure function from what is known of a user (KYC statuses, terms
// accepted, residence and its restrictions, cooldowns, cards) to each of the 17 capabilities with
// its requirements and restrictions. No storage, no clock: the caller gathers the facts. The rules
// are written down as a table in the README ("Capabilities").
import type { ProcessCode, ProcessStatus } from '../../schemas/kyc.js'
import { CAPABILITY_CODES, REQUIREMENTS, RESTRICTIONS, type CapabilityCode, type Requirement, type Restriction } from '../../schemas/capabilities.js'

export { CAPABILITY_CODES, type CapabilityCode }

export const CAPABILITY_NAMES: Record<CapabilityCode, string> = {
  'crypto-withdrawals': 'Withdraw to crypto networks',
  'card-withdrawals': 'Withdraw to credit card',
  'bank-withdrawals': 'Withdraw to bank',
  'apple-pay-withdrawals': 'Withdraw to Apple Pay',
  'paypal-withdrawals': 'Withdraw to PayPal',
  'venmo-withdrawals': 'Withdraw to Venmo',
  'crypto-deposits': 'Deposit from crypto networks',
  'bank-deposits': 'Deposit from bank',
  deposits: 'Deposit from other methods',
  receives: 'Receives',
  sends: 'Sends',
  trades: 'Trades',
  cards: 'Cards',
  'apple-pay': 'Apple Pay',
  paypal: 'PayPal',
  venmo: 'Venmo',
  'unique-account-number-viban': 'Unique Account Number (Virtual IBAN)'
}

/** What the evaluator needs to know of a user. */
export interface UserFacts {
  userType: 'individual' | 'business'
  /** The country of residence. */
  country: string
  /** Whether the country of residence is open to residents (no `residence` restriction). */
  countrySupported: boolean
  /** Each KYC process's status. */
  kyc: Record<ProcessCode, ProcessStatus>
  /** Whether the vIBAN terms apply to the user (their country and type) and whether they accepted them. */
  vibanTerms: { applies: boolean, accepted: boolean }
  /** Whether a financial-promotions cooldown is running. */
  cooldownRunning: boolean
  /**
   * The user's cards and the organization's limits (external accounts, area 4): how many they hold
   * and how many distinct cards they ever added. Absent when the card limits do not matter (an
   * operation on a card the user already holds).
   */
  cards?: CardFacts
}

export interface CardFacts {
  /** Cards the user holds now. */
  active: number
  /** Distinct cards the user ever added, deleted ones included. */
  unique: number
  limits: { active: number, unique: number }
}

export interface Capability {
  code: CapabilityCode
  name: string
  enabled: boolean
  requirements: Requirement[]
  restrictions: Restriction[]
}

/** A process that is not done yet asks for this. */
const REQUIREMENT_OF: Partial<Record<ProcessCode, Requirement>> = {
  profile: 'user-must-submit-full-name',
  address: 'user-must-submit-residential-address',
  phone: 'user-must-submit-phone-number',
  identity: 'user-must-submit-identity',
  'proof-of-address': 'user-must-submit-proof-of-address',
  'customer-due-diligence': 'user-must-submit-customer-due-diligence',
  'enhanced-due-diligence': 'user-must-submit-enhanced-due-diligence',
  'crypto-risk-assessment': 'user-must-submit-crypto-risk-assessment-form',
  'self-categorization-statement': 'user-must-submit-self-categorization-form'
}

/** A process that failed restricts with this. */
const RESTRICTION_OF: Partial<Record<ProcessCode, Restriction>> = {
  address: 'user-residential-address-not-valid',
  identity: 'user-identity-not-valid',
  'proof-of-address': 'user-proof-of-address-not-valid',
  'enhanced-due-diligence': 'user-enhanced-due-diligence-not-valid',
  'crypto-risk-assessment': 'crypto-risk-assessment-form-not-valid',
  'self-categorization-statement': 'self-categorization-statement-form-not-valid'
}

/** The KYC processes each group of capabilities needs done (ok or exempt). */
const MONEY: ProcessCode[] = ['profile', 'address', 'identity', 'proof-of-address', 'customer-due-diligence', 'enhanced-due-diligence']
const CRYPTO_FORMS: ProcessCode[] = ['crypto-risk-assessment', 'self-categorization-statement']
const CARDS: ProcessCode[] = ['profile', 'address', 'identity']

interface Rule {
  processes: ProcessCode[]
  /** Countries of residence it is offered in; all when absent. */
  countries?: string[]
  /** User types it is offered to; all when absent. */
  userTypes?: Array<UserFacts['userType']>
  /** Stopped while a financial-promotions cooldown runs. */
  cooldown?: boolean
  /** Needs the vIBAN terms accepted. */
  vibanTerms?: boolean
  /** Limited by the number of cards: a card to delete at the active limit, restricted at the unique one. */
  cards?: boolean
}

/** The rules, one row per capability: the README's table is this one in words. */
export const RULES: Record<CapabilityCode, Rule> = {
  'crypto-withdrawals': { processes: [...MONEY, ...CRYPTO_FORMS] },
  'card-withdrawals': { processes: MONEY },
  'bank-withdrawals': { processes: MONEY },
  'apple-pay-withdrawals': { processes: MONEY, countries: ['US'] },
  'paypal-withdrawals': { processes: MONEY, countries: ['US'] },
  'venmo-withdrawals': { processes: MONEY, countries: ['US'] },
  'crypto-deposits': { processes: [...MONEY, ...CRYPTO_FORMS], cooldown: true },
  'bank-deposits': { processes: MONEY },
  deposits: { processes: MONEY },
  receives: { processes: MONEY },
  sends: { processes: [...MONEY, ...CRYPTO_FORMS] },
  trades: { processes: [...MONEY, ...CRYPTO_FORMS], cooldown: true },
  cards: { processes: CARDS, cards: true },
  'apple-pay': { processes: CARDS, countries: ['US'] },
  paypal: { processes: CARDS, countries: ['US'] },
  venmo: { processes: CARDS, countries: ['US'] },
  'unique-account-number-viban': { processes: CARDS, countries: ['GB', 'PT'], userTypes: ['individual'], vibanTerms: true }
}

const done = (status: ProcessStatus): boolean => status === 'ok' || status === 'exempt'

/** One capability of the user. */
export function evaluate (code: CapabilityCode, facts: UserFacts): Capability {
  const rule = RULES[code]
  const requirements = new Set<Requirement>()
  const restrictions = new Set<Restriction>()
  if (!facts.countrySupported || (rule.countries !== undefined && !rule.countries.includes(facts.country))) restrictions.add('user-country-not-supported')
  if (rule.userTypes !== undefined && !rule.userTypes.includes(facts.userType)) restrictions.add('user-type-not-supported')
  if (facts.kyc.screening === 'failed' || facts.kyc.risk === 'failed') restrictions.add('user-status-not-valid')
  if (facts.kyc.screening === 'running') restrictions.add('user-screening-running')
  for (const process of rule.processes) {
    const status = facts.kyc[process]
    if (done(status)) continue
    if (status === 'failed' && RESTRICTION_OF[process] !== undefined) restrictions.add(RESTRICTION_OF[process])
    else if (REQUIREMENT_OF[process] !== undefined) requirements.add(REQUIREMENT_OF[process])
  }
  if (rule.vibanTerms === true && facts.vibanTerms.applies && !facts.vibanTerms.accepted) requirements.add('user-must-accept-unique-account-number-viban-terms-of-service')
  if (rule.cooldown === true && facts.cooldownRunning) restrictions.add('financial-promotion-cooldown-running')
  if (rule.cards === true && facts.cards !== undefined) {
    // Holding as many cards as allowed, another needs one deleted first; having added as many
    // distinct cards as allowed, deleting one does not help.
    if (facts.cards.active >= facts.cards.limits.active) requirements.add('user-must-delete-card')
    if (facts.cards.unique >= facts.cards.limits.unique) restrictions.add('user-unique-card-limit-reached')
  }
  // In the enums' order, so answers are stable.
  return {
    code,
    name: CAPABILITY_NAMES[code],
    enabled: restrictions.size === 0,
    requirements: REQUIREMENTS.filter(r => requirements.has(r)),
    restrictions: RESTRICTIONS.filter(r => restrictions.has(r))
  }
}

/** Every capability of the user, in the reference's order. */
export const evaluateAll = (facts: UserFacts): Capability[] => CAPABILITY_CODES.map(code => evaluate(code, facts))

/** Whether an operation needing the capability may go ahead: enabled and nothing required. */
export const fulfilled = (c: Capability): boolean => c.enabled && c.requirements.length === 0
