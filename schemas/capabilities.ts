// The capabilities contract: what a user can do now, what they must still provide, and what stops
// them; accepting terms of service; the test helper that ends cooldowns.
import { Type } from 'typebox'

export const CAPABILITY_CODES = [
  'crypto-withdrawals', 'card-withdrawals', 'bank-withdrawals', 'apple-pay-withdrawals', 'paypal-withdrawals', 'venmo-withdrawals',
  'crypto-deposits', 'bank-deposits', 'deposits', 'receives', 'sends', 'trades', 'cards', 'apple-pay', 'paypal', 'venmo',
  'unique-account-number-viban'
] as const
export type CapabilityCode = typeof CAPABILITY_CODES[number]

export const REQUIREMENTS = [
  'user-must-submit-crypto-risk-assessment-form', 'user-must-submit-self-categorization-form', 'user-must-submit-residential-address',
  'user-must-submit-customer-due-diligence', 'user-must-submit-enhanced-due-diligence', 'user-must-wait-for-the-email-cooldown-period-to-expire',
  'user-must-submit-full-name', 'user-must-submit-identity', 'user-must-submit-identity-via-physical-document', 'user-must-submit-phone-number',
  'user-must-submit-proof-of-address', 'user-must-submit-tax-details', 'user-must-submit-tax-identification-number', 'user-must-submit-w9-form',
  'user-must-accept-unique-account-number-viban-terms-of-service', 'user-must-delete-card'
] as const
export type Requirement = typeof REQUIREMENTS[number]

export const RESTRICTIONS = [
  'crypto-risk-assessment-form-not-valid', 'financial-promotion-cooldown-running', 'phone-country-not-supported',
  'self-categorization-statement-form-not-valid', 'temporarily-disabled', 'user-residential-address-not-valid', 'user-cannot-receive-funds',
  'user-country-not-supported', 'user-enhanced-due-diligence-not-valid', 'user-identity-not-valid', 'user-proof-of-address-not-valid',
  'user-screening-running', 'user-state-not-supported', 'user-status-not-valid', 'user-type-not-supported', 'user-w9-form-not-valid',
  'user-unique-card-limit-reached'
] as const
export type Restriction = typeof RESTRICTIONS[number]

export const CapabilityCode = Type.Enum(CAPABILITY_CODES, { description: 'The code of the capability.' })

export const Capability = Type.Object({
  code: CapabilityCode,
  name: Type.String({ description: 'The name of the capability.' }),
  enabled: Type.Boolean({ description: 'False when at least one restriction is active.' }),
  requirements: Type.Array(Type.Enum(REQUIREMENTS), { description: 'What the user must still provide; operations needing the capability are refused while any remains.' }),
  restrictions: Type.Array(Type.Enum(RESTRICTIONS), { description: 'What disables the capability.' })
}, { $id: 'Capability' })

export const CapabilityParams = Type.Object({ capability: CapabilityCode })
export const CapabilityList = Type.Object({ capabilities: Type.Array(Type.Ref('Capability')) })
export const CapabilityAnswer = Type.Object({ capability: Type.Ref('Capability') })

export const AcceptTermsParams = Type.Object({
  termsOfService: Type.Enum(['unique-account-number-viban'], { description: 'The terms to accept: only the vIBAN terms are accepted through the API.' })
})
