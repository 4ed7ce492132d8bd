// The KYC contract: the overview of a user's processes, the eleven process updates, the sandbox's
// controls over outcomes and KYB, and the partner area's KYC sharing session.
import { Type, type Static, type TSchema } from 'typebox'
import { CountryCode, SubdivisionCode, Timestamp, Uuid } from './common.js'

/** Process codes, as paths, events and `verification.dependencies` name them. */
export const PROCESS_CODES = [
  'profile', 'address', 'email', 'phone', 'identity', 'proof-of-address', 'customer-due-diligence',
  'enhanced-due-diligence', 'crypto-risk-assessment', 'self-categorization-statement', 'tax-details', 'screening', 'risk'
] as const
export type ProcessCode = typeof PROCESS_CODES[number]

/** The processes an integrator updates (PATCH /core/kyc/processes/<code>). */
export const MANUAL_PROCESSES = PROCESS_CODES.filter(c => c !== 'screening' && c !== 'risk') as Exclude<ProcessCode, 'screening' | 'risk'>[]
export type ManualProcess = Exclude<ProcessCode, 'screening' | 'risk'>

/** The key of a process in the overview and in an update's answer (`proofOfAddress`). */
export const processKey = (code: ProcessCode): string => code.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())

export const STATUSES = ['ok', 'failed', 'running', 'pending', 'exempt'] as const
export type ProcessStatus = typeof STATUSES[number]
export const MODELS = ['none', 'partner-verified', 'uphold-verified'] as const
export type VerificationModel = typeof MODELS[number]
export const SUMMARY_STATUSES = ['blocked', 'ok', 'pending', 'restricted'] as const
export type SummaryStatus = typeof SUMMARY_STATUSES[number]

const Status = Type.Enum([...STATUSES], { description: 'Status of the process.' })
const FreeObject = (description: string) => Type.Unsafe<Record<string, unknown>>(Type.Object({}, { additionalProperties: true, description }))
const Trimmed = (maxLength: number, description?: string): TSchema =>
  Type.String({ pattern: '^\\S.*\\S$|^\\S$', maxLength, ...(description === undefined ? {} : { description }) })

const Rule = Type.Object({
  presence: Type.Enum(['required', 'optional', 'disallowed']),
  editable: Type.Boolean()
})
const RuleWith = (rules: Record<string, TSchema>): TSchema => Type.Object({
  presence: Type.Enum(['required', 'optional', 'disallowed']),
  editable: Type.Boolean(),
  rules: Type.Optional(Type.Object(rules))
})
const ProfileRules = Type.Object({
  fullName: Type.Optional(Rule),
  birthdate: Type.Optional(Rule),
  birthplace: Type.Optional(RuleWith({ country: Type.Optional(Rule), town: Type.Optional(Rule) })),
  primaryCitizenship: Type.Optional(Rule),
  otherCitizenships: Type.Optional(Rule),
  address: Type.Optional(RuleWith({
    subdivision: Type.Optional(Rule),
    city: Type.Optional(Rule),
    line1: Type.Optional(Rule),
    line2: Type.Optional(Rule),
    postalCode: Type.Optional(Rule)
  }))
}, { description: 'What the profile must, may or must not hold, and whether a stored value may change.' })

const Verification = Type.Object({
  model: Type.Enum([...MODELS], { description: 'Who verifies the data: nobody, the partner (who sends `output`), or the service itself (after its review).' }),
  method: Type.Enum(['automatic', 'manual']),
  triggers: Type.Optional(Type.Array(Type.Enum(['profile', 'identity']), { description: 'Processes whose changes run this one again.' })),
  dependencies: Type.Array(Type.Enum([...MANUAL_PROCESSES]), { description: 'Processes whose data this one needs first.' }),
  submittable: Type.Optional(Type.Boolean({ description: 'Whether an update is accepted now.' })),
  rules: Type.Optional(ProfileRules)
})

export const FormHint = Type.Object({
  type: Type.Literal('form'),
  formId: Type.Optional(Uuid),
  schema: FreeObject('JSON Schema of the form; each top-level property is one step.'),
  uiSchema: FreeObject('JSON Forms UI schema: one category per step.')
}, { description: 'The form to fill in, one step per update.' })

export const ProcessView = Type.Object({
  code: Type.String({ description: 'The process code.' }),
  status: Status,
  type: Type.Optional(Type.Enum(['none', 'document-submission', 'electronic-verification', 'from-identity'], { description: 'How identity or proof of address was submitted.' })),
  verification: Type.Optional(Verification),
  input: Type.Optional(FreeObject('What was submitted (shown when the process is listed in `detailed`).')),
  output: Type.Optional(FreeObject('The verification\'s result (shown when the process is listed in `detailed`).')),
  hint: Type.Optional(FormHint)
}, { $id: 'KycProcess', description: 'A KYC process.' })
export type ProcessView = Static<typeof ProcessView>

const ProcessRef = Type.Ref('KycProcess')

export const KycSummary = Type.Object({
  status: Type.Enum([...SUMMARY_STATUSES], { description: '`ok` when every process is `ok` or `exempt`; `blocked` when screening or risk failed; `restricted` when another process failed; `pending` otherwise.' }),
  reason: Type.String({ description: '`none`, or the process (or the forced reason) that blocks or restricts the user.' })
})

export const KycOverview = Type.Object({
  summary: KycSummary,
  processes: Type.Object(Object.fromEntries(PROCESS_CODES.map(c => [processKey(c), ProcessRef])))
}, { description: 'The user\'s KYC.' })

export const KycOverviewQuery = Type.Object({
  detailed: Type.Optional(Type.Array(Type.Enum(PROCESS_CODES.map(processKey)), {
    maxItems: 20,
    uniqueItems: true,
    description: 'Comma-separated processes (overview keys) to show with `input`, `output`, `hint` and `verification`.'
  }))
})

const Warning = Type.Object({
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(FreeObject('Where the ignored field was and which rule ignored it.'))
})

/** The answer of an update: the process under its overview key, and the fields that were ignored. */
export const ProcessUpdated = (code: ManualProcess): TSchema => Type.Object({
  [processKey(code)]: ProcessRef,
  warnings: Type.Optional(Type.Record(Type.String(), Type.Array(Warning), { description: 'Fields ignored rather than refused, by part of the body.' }))
})

const VerifiedAt = { ...Timestamp, description: 'When the partner verified it; must be in the past.' }

const Address = {
  subdivision: Type.Optional(SubdivisionCode),
  city: Type.Optional(Trimmed(100)),
  line1: Type.Optional(Trimmed(150)),
  line2: Type.Optional(Type.Union([Type.Null(), Trimmed(100)])),
  postalCode: Type.Optional(Trimmed(20))
}
const ProfileAddress = Type.Object(Address, { additionalProperties: false, description: 'Residential address; the country is the user\'s and does not change here.' })

const PersonAddress = Type.Object({
  country: Type.Optional(CountryCode),
  subdivision: Type.Optional(SubdivisionCode),
  city: Type.Optional(Trimmed(100)),
  line1: Type.Optional(Trimmed(150)),
  line2: Type.Optional(Trimmed(100)),
  postalCode: Type.Optional(Trimmed(20))
})

export const ProfileUpdate = Type.Object({
  input: Type.Object({
    fullName: Type.Optional(Type.String({ pattern: '^\\S+\\s+\\S+(\\s+\\S+)*$', maxLength: 200, description: 'At least two names.' })),
    birthdate: Type.Optional(Type.String({ format: 'date', description: '18 to 100 years ago on the sandbox clock.' })),
    birthplace: Type.Optional(Type.Object({ country: CountryCode, town: Type.String({ pattern: '^\\S.*\\S$|^\\S$', minLength: 1, maxLength: 100 }) })),
    primaryCitizenship: Type.Optional(CountryCode),
    citizenshipCountry: Type.Optional(CountryCode),
    otherCitizenships: Type.Optional(Type.Array(CountryCode)),
    address: Type.Optional(ProfileAddress),
    details: Type.Optional(FreeObject('Further declared details.'))
  })
}, { examples: [{ input: { fullName: 'Maria Silva', birthdate: '1990-04-12', birthplace: { country: 'PT', town: 'Lisboa' }, primaryCitizenship: 'PT', address: { city: 'Lisboa', line1: 'Rua Augusta 10', postalCode: '1100-053' } } }] })
export type ProfileUpdate = Static<typeof ProfileUpdate>

export const AddressUpdate = Type.Object({ input: Type.Object({ address: ProfileAddress }) }, { examples: [{ input: { address: { subdivision: 'PT-11', city: 'Lisboa', line1: 'Rua Augusta 10', postalCode: '1100-053' } } }] })
export type AddressUpdate = Static<typeof AddressUpdate>

const PartnerVerified = Type.Object({ verifiedAt: VerifiedAt }, { description: 'Sent by a partner that verified the data itself (partner-verified model).' })

export const EmailUpdate = Type.Object({
  input: Type.Object({ email: Type.String({ format: 'email', maxLength: 254 }) }),
  output: Type.Optional(PartnerVerified)
}, { examples: [{ input: { email: 'maria.silva@example.com' } }, { input: { email: 'maria.silva@example.com' }, output: { verifiedAt: '2026-01-05T10:00:00.000Z' } }] })
export type EmailUpdate = Static<typeof EmailUpdate>

export const PhoneUpdate = Type.Object({
  input: Type.Object({ phone: Type.String({ pattern: '^\\+[0-9]{1,15}$', description: 'E.164 number.' }), country: CountryCode }),
  output: Type.Optional(PartnerVerified)
}, { examples: [{ input: { phone: '+351912345678', country: 'PT' } }] })
export type PhoneUpdate = Static<typeof PhoneUpdate>

const Media = (contexts: string[], maxItems: number) => Type.Array(Type.Object({
  context: Type.Enum(contexts),
  fileId: { ...Uuid, description: 'A file of the user, created with core.create-file and uploaded.' }
}), { minItems: 1, maxItems })

const Names = {
  givenName: Trimmed(200),
  familyName: Type.Optional(Trimmed(200))
}

export const IdentityUpdate = Type.Union([
  Type.Object({
    type: Type.Literal('document-submission'),
    input: Type.Object({ media: Media(['photo-document-front', 'photo-document-back', 'photo-selfie', 'photo-selfie-and-document-front', 'video'], 10) }),
    output: Type.Optional(Type.Object({
      provider: Trimmed(100),
      document: Type.Object({
        type: Type.Enum(['driving-license', 'id-card', 'passport', 'residence-permit']),
        number: Trimmed(200),
        country: CountryCode,
        expiresAt: Type.Optional(Type.String({ format: 'date' }))
      }),
      person: Type.Object({
        ...Names,
        birthdate: Type.String({ format: 'date' }),
        gender: Type.Optional(Type.Enum(['female', 'male'])),
        address: Type.Optional(PersonAddress)
      }),
      verifiedAt: VerifiedAt
    }))
  }),
  Type.Object({
    type: Type.Literal('electronic-verification'),
    input: Type.Object({
      data: Type.Object({
        ...Names,
        birthdate: Type.String({ format: 'date' }),
        citizenshipCountry: CountryCode,
        gender: Type.Optional(Type.Enum(['female', 'male'])),
        address: Type.Optional(PersonAddress)
      })
    }),
    output: Type.Optional(Type.Object({ provider: Trimmed(100), verifiedAt: VerifiedAt }))
  })
], {
  examples: [
    { type: 'document-submission', input: { media: [{ context: 'photo-document-front', fileId: '6f1c2a0e-2b3d-4c5e-8f90-a1b2c3d4e5f6' }, { context: 'photo-selfie', fileId: '7a2d3b1f-3c4e-4d6f-9a01-b2c3d4e5f6a7' }] } },
    { type: 'electronic-verification', input: { data: { givenName: 'Maria', familyName: 'Silva', birthdate: '1990-04-12', citizenshipCountry: 'PT' } } }
  ]
})
export type IdentityUpdate = Static<typeof IdentityUpdate>

export const ProofOfAddressUpdate = Type.Union([
  Type.Object({
    type: Type.Literal('document-submission'),
    input: Type.Object({ media: Media(['address-proof'], 5) }),
    output: Type.Optional(Type.Object({
      provider: Trimmed(100),
      person: Type.Object({ ...Names, address: PersonAddress }),
      verifiedAt: VerifiedAt
    }))
  }),
  Type.Object({
    type: Type.Literal('electronic-verification'),
    input: Type.Object({ data: Type.Object({ ...Names, address: PersonAddress }) }),
    output: Type.Optional(Type.Object({ provider: Trimmed(100), verifiedAt: VerifiedAt }))
  })
], {
  examples: [
    { type: 'document-submission', input: { media: [{ context: 'address-proof', fileId: '6f1c2a0e-2b3d-4c5e-8f90-a1b2c3d4e5f6' }] } },
    { type: 'electronic-verification', input: { data: { givenName: 'Maria', familyName: 'Silva', address: { country: 'PT', city: 'Lisboa', line1: 'Rua Augusta 10', postalCode: '1100-053' } } } }
  ]
})
export type ProofOfAddressUpdate = Static<typeof ProofOfAddressUpdate>

const FormInput = Type.Object({
  formId: Type.Optional({ ...Uuid, description: 'The form of the process\'s `hint`.' }),
  answers: FreeObject('One step of the form per update, under its name; answering an earlier step starts the form again from there.')
})
const Attempts = Type.Object({ used: Type.Integer({ minimum: 1 }), maximum: Type.Integer({ minimum: 1 }) })
const ExpiresAt = { ...Timestamp, description: 'When the result stops being valid; must be in the future.' }

export const CustomerDueDiligenceUpdate = Type.Object({
  input: FormInput,
  output: Type.Optional(Type.Object({ score: Type.Enum(['low', 'medium', 'high']), expiresAt: ExpiresAt, verifiedAt: VerifiedAt }))
}, { examples: [{ input: { answers: { purpose: { activities: ['investing'] } } } }] })
export type FormUpdate = Static<typeof CustomerDueDiligenceUpdate> | Static<typeof CryptoRiskAssessmentUpdate> | Static<typeof SelfCategorizationStatementUpdate>

export const CryptoRiskAssessmentUpdate = Type.Object({
  input: FormInput,
  output: Type.Optional(Type.Object({ result: Type.Enum(['approved', 'rejected']), attempts: Attempts, verifiedAt: VerifiedAt }))
}, { examples: [{ input: { answers: { decisions: { 'who-decides': 'me' } } } }] })

export const SelfCategorizationStatementUpdate = Type.Object({
  input: FormInput,
  output: Type.Optional(Type.Object({ result: Type.Enum(['approved', 'rejected']), attempts: Attempts, expiresAt: ExpiresAt, verifiedAt: VerifiedAt }))
}, { examples: [{ input: { answers: { category: { type: 'none' } } } }] })

export const EnhancedDueDiligenceUpdate = Type.Object({
  input: Type.Object({ media: Media(['source-of-funds-proof'], 1) }),
  output: Type.Optional(PartnerVerified)
}, { examples: [{ input: { media: [{ context: 'source-of-funds-proof', fileId: '6f1c2a0e-2b3d-4c5e-8f90-a1b2c3d4e5f6' }] } }] })
export type EnhancedDueDiligenceUpdate = Static<typeof EnhancedDueDiligenceUpdate>

export const TaxDetailsUpdate = Type.Object({
  input: FreeObject('Parts of the tax-details form (see the process\'s `hint`); each update adds to those sent before.'),
  output: Type.Optional(Type.Object({ result: Type.Enum(['approved', 'rejected']), verifiedAt: VerifiedAt }))
}, { examples: [{ input: { taxResidency: { countries: ['PT'] }, taxIdentification: { documents: [{ type: 'tin', country: 'PT', number: '123456789' }], certify: true, signature: 'Maria Silva' } } }] })
export type TaxDetailsUpdate = Static<typeof TaxDetailsUpdate>

// ---- Sandbox controls ----

export const KycControlParams = Type.Object({
  userId: Uuid,
  process: Type.Enum([...PROCESS_CODES], { description: 'The process code.' })
})
export const KycForce = Type.Object({
  status: Status,
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Why; shown as the summary\'s `reason` when the process fails.' }))
}, { additionalProperties: false, examples: [{ status: 'ok' }, { status: 'failed', reason: 'document expired' }] })
export type KycForce = Static<typeof KycForce>
export const KycForced = Type.Object({ process: ProcessRef, summary: KycSummary })
export const KycUserParams = Type.Object({ userId: Uuid })

export const KybParams = Type.Object({ userId: Uuid })
export const KybChange = Type.Object({ status: Type.Enum(['running', 'ok', 'failed']) }, { additionalProperties: false, examples: [{ status: 'ok' }] })
export const KybAnswer = Type.Object({ kyb: Type.Object({ userId: Uuid, status: Type.Enum(['running', 'ok', 'failed']), updatedAt: Timestamp }) })

export const KycUsersQuery = Type.Object({ organizationId: Type.Optional(Uuid) }, { additionalProperties: false })
export const KycUsers = Type.Object({
  users: Type.Array(Type.Object({
    id: Uuid,
    organizationId: Uuid,
    email: Type.String(),
    summary: KycSummary,
    processes: Type.Record(Type.String(), Status, { description: 'Status by process code.' }),
    kyb: Type.Optional(Type.String())
  }))
})

// ---- KYC sharing ----

export const SHARED_PROCESSES = ['profile', 'address', 'email', 'phone', 'identity'] as const

export const KycSharingSessionRequest = Type.Object({ userId: Uuid }, { examples: [{ userId: '3f2b8c1e-5d4a-4e6f-9b7c-1a2b3c4d5e6f' }] })
export const KycSharingSession = Type.Object({
  kycSharing: Type.Object({
    processes: Type.Array(Type.Enum([...SHARED_PROCESSES]), { description: 'The shareable processes the user still misses.' }),
    userToken: Type.Optional(Type.Object({
      access_token: Type.String(),
      refresh_token: Type.Optional(Type.String()),
      expires_in: Type.Integer(),
      scope: Type.Optional(Type.String()),
      token_type: Type.Literal('Bearer')
    }, { description: 'A 600 s token of the user, scoped to updating exactly the missing processes.' }))
  })
})
