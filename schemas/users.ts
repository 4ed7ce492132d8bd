// The users contract: creating an individual user and the user as the API shows it.
import { Type, type Static } from 'typebox'
import { CountryCode, SubdivisionCode, Timestamp, Uuid } from './common.js'
import { Metadata } from './metadata.js'

/** Terms-of-service versions a user can accept at creation. */
export const TERMS_OF_SERVICE = ['general-us-hq', 'general-gb-fca', 'general-pt-bop', 'general-lt-fcs', 'general-bs-scb']

// No leading or trailing blanks.
const Trimmed = (maxLength: number, description: string) => Type.String({ pattern: '^\\S.*\\S$|^\\S$', maxLength, description })

export const Address = Type.Object({
  country: CountryCode,
  subdivision: Type.Optional(SubdivisionCode),
  city: Type.Optional(Trimmed(100, 'City.')),
  line1: Type.Optional(Trimmed(150, 'First address line.')),
  line2: Type.Optional(Trimmed(100, 'Second address line.')),
  postalCode: Type.Optional(Trimmed(20, 'Postal code.'))
}, { additionalProperties: false, description: 'Residential address; `subdivision` must belong to `country`.' })

export const Phone = Type.Object({
  number: Type.String({ pattern: '^\\+[0-9]{1,15}$', description: 'E.164 number.' }),
  country: CountryCode
}, { additionalProperties: false })

export const CreateUserRequest = Type.Object({
  type: Type.Optional(Type.Enum(['individual'], { default: 'individual', description: 'Only `individual` users can be created in the sandbox.' })),
  email: Type.String({ format: 'email', maxLength: 254, description: 'Unique in the organization, compared case-insensitively.' }),
  termsOfService: Type.Enum(TERMS_OF_SERVICE, { description: 'The terms-of-service version the user accepted.' }),
  primaryCitizenship: CountryCode,
  address: Address,
  fullName: Type.Optional(Type.String({ pattern: '^\\S+\\s+\\S+(\\s+\\S+)*$', maxLength: 200, description: 'At least two names.' })),
  birthdate: Type.Optional(Type.String({ format: 'date', description: 'The user must be 18 to 100 years old (sandbox clock).' })),
  phone: Type.Optional(Phone),
  partnerOnboardedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the partner onboarded the user; must be in the past (sandbox clock).' })),
  metadata: Type.Optional({ ...Metadata, description: 'Initial metadata. Over 1024 characters, the user is still created and the answer reports `errors.metadata`.' })
}, {
  additionalProperties: false,
  examples: [{
    email: 'john.doe@example.com',
    termsOfService: 'general-gb-fca',
    primaryCitizenship: 'GB',
    address: { country: 'GB', subdivision: 'GB-MAN' },
    metadata: { externalId: 123 }
  }]
})
export type CreateUserRequest = Static<typeof CreateUserRequest>

export const User = Type.Object({
  id: Uuid,
  type: Type.Literal('individual'),
  email: Type.String({ format: 'email' }),
  fullName: Type.Optional(Type.String()),
  birthdate: Type.Optional(Type.String({ format: 'date' })),
  primaryCitizenship: Type.String(),
  address: Type.Object({
    country: Type.String(),
    subdivision: Type.Optional(Type.String()),
    city: Type.Optional(Type.String()),
    line1: Type.Optional(Type.String()),
    line2: Type.Optional(Type.String()),
    postalCode: Type.Optional(Type.String())
  }),
  phone: Type.Optional(Type.Object({ number: Type.String(), country: Type.String() })),
  partnerOnboardedAt: Type.Optional(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { description: 'A user as the API shows it.' })
export type User = Static<typeof User>

export const CreateUserResponse = Type.Object({
  user: User,
  errors: Type.Optional(Type.Object({
    metadata: Type.Ref('ErrorBody')
  }, { description: 'Present only when the metadata could not be stored; the user was created without it.' }))
})

// ---- The acting user: core.get-user, core.delete-user ----

export const BusinessUser = Type.Object({
  id: Uuid,
  type: Type.Literal('business'),
  name: Type.Optional(Type.String({ description: 'The legal name of the business.' })),
  email: Type.String({ format: 'email' }),
  address: Type.Optional(Type.Object({
    country: Type.String(),
    subdivision: Type.Optional(Type.String()),
    city: Type.Optional(Type.String()),
    line1: Type.Optional(Type.String()),
    line2: Type.Optional(Type.String()),
    postalCode: Type.Optional(Type.String())
  })),
  partnerOnboardedAt: Type.Optional(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { description: 'A business user as the API shows it.' })

export const GetUserResponse = Type.Object({
  user: Type.Union([User, BusinessUser], { description: 'The user, by `type`: an individual or a business.' })
})

const Note = Type.String({ pattern: '^\\S.*\\S$|^\\S$', maxLength: 1000, description: 'Additional notes about the deletion of the user.' })

export const DeleteUserRequest = Type.Object({
  review: Type.Object({
    reason: Type.Enum(['business-decision', 'closure-per-user-request', 'compliance-violation', 'fraud-violation', 'other'], { description: 'Why the user is deleted.' }),
    note: Type.Optional(Note)
  }, { additionalProperties: false })
}, {
  additionalProperties: false,
  examples: [{ review: { reason: 'closure-per-user-request', note: 'User requested account closure' } }]
})
export type DeleteUserRequest = Static<typeof DeleteUserRequest>
