// The external accounts contract: a user's payment cards and ACH bank accounts outside the
// service. A card is shown by its brand, type, last four digits and expiry, never its number.
import { Type, type Static } from 'typebox'
import { CountryCode, SubdivisionCode, Timestamp, Uuid } from './common.js'
import { Metadata } from './metadata.js'

const Label = Type.String({ pattern: '^\\S.*\\S$|^\\S$', maxLength: 140, description: 'The label of the external account: no leading or trailing spaces, at most 140 characters.' })
const Text = (maxLength: number, description: string) => Type.String({ pattern: '^\\S.*\\S$|^\\S$', maxLength, description })

export const EXTERNAL_ACCOUNT_STATUSES = ['processing', 'ok', 'expired', 'failed', 'restricted', 'blocked'] as const
export type ExternalAccountStatus = typeof EXTERNAL_ACCOUNT_STATUSES[number]

export const STATUS_REASONS = [
  'card-data-invalid', 'card-declined-by-bank', 'card-expired', 'card-permanently-declined-by-bank', 'card-unauthorized', 'card-unsupported',
  'bank-account-holder-name-mismatch', 'velocity', 'under-review', 'unspecified-error'
] as const
export type StatusReason = typeof STATUS_REASONS[number]

export const ExternalAccountParams = Type.Object({ externalAccountId: Type.String({ format: 'uuid', description: 'The external account id.' }) })

const ExpiryDate = Type.Object({
  month: Type.Integer({ minimum: 1, maximum: 12, description: 'The month the card expires, 1 to 12.' }),
  year: Type.Integer({ minimum: 2000, description: 'The year the card expires, four digits.' })
}, { description: 'The card\'s expiry: it is valid to the end of this month.' })

export const CreateCardRequest = Type.Object({
  type: Type.Literal('card'),
  label: Label,
  number: Type.String({ pattern: '^[0-9]{12,19}$', description: 'The card number (PAN): 12 to 19 digits. Never stored nor shown again: answers carry its last four digits.' }),
  securityCode: Type.String({ pattern: '^[0-9]{3}$', description: 'The card security code (CVV): three digits. Never stored.' }),
  expiryDate: ExpiryDate,
  metadata: Type.Optional({ ...Metadata, description: 'Initial metadata. Over 1024 characters, the card is still added and the answer reports `errors.metadata`.' })
}, { title: 'Card' })

export const BankAddress = Type.Object({
  country: CountryCode,
  subdivision: SubdivisionCode,
  city: Text(100, 'The city.'),
  line1: Text(150, 'The first line of the street address.'),
  line2: Type.Optional(Text(100, 'The second line of the street address.')),
  postalCode: Text(20, 'The postal code.')
}, { description: 'The address of the account holder.' })

export const CreateAchRequest = Type.Object({
  type: Type.Literal('bank'),
  asset: Type.Literal('USD'),
  network: Type.Literal('ach'),
  label: Label,
  address: BankAddress,
  routingNumber: Type.String({ pattern: '^[0-9]{9}$', description: 'The ABA routing number: nine digits with a valid check digit.' }),
  accountNumber: Type.String({ pattern: '^(?!0+$)[0-9]{4,17}$', description: 'The account number: 4 to 17 digits, not all zeros.' }),
  accountType: Type.Union([Type.Literal('checking'), Type.Literal('savings')], { description: 'The kind of bank account.' }),
  metadata: Type.Optional({ ...Metadata, description: 'Initial metadata. Over 1024 characters, the account is still added and the answer reports `errors.metadata`.' })
}, { title: 'ACH bank account' })

export const CreateExternalAccountRequest = Type.Union([CreateCardRequest, CreateAchRequest], {
  description: 'A card (`type: card`) or a US bank account on ACH (`type: bank`).',
  examples: [
    { type: 'card', label: 'My Visa Card', number: '4111111111111111', securityCode: '123', expiryDate: { month: 12, year: 2030 } },
    {
      type: 'bank',
      asset: 'USD',
      network: 'ach',
      label: 'My checking account',
      address: { country: 'US', subdivision: 'US-NY', city: 'New York', line1: '1 Main Street', postalCode: '10001' },
      routingNumber: '021000021',
      accountNumber: '123456789',
      accountType: 'checking'
    }
  ]
})
export type CreateCardRequest = Static<typeof CreateCardRequest>
export type CreateAchRequest = Static<typeof CreateAchRequest>
export type CreateExternalAccountRequest = Static<typeof CreateExternalAccountRequest>

export const CardDetails = Type.Object({
  type: Type.Optional(Type.Union([Type.Literal('credit'), Type.Literal('debit')], { description: 'Whether the card is a credit or debit card.' })),
  last4Digits: Type.String({ pattern: '^[0-9]{4}$', description: 'The last four digits of the card number.' }),
  expiryDate: Type.Object({ month: Type.Integer(), year: Type.Integer() }, { description: 'The card\'s expiry.' }),
  octSupport: Type.Union([Type.Literal('unknown'), Type.Literal('supported'), Type.Literal('unsupported')], { description: 'Whether the card takes original credit transactions (payouts).' })
}, { title: 'Card details' })

export const AchDetails = Type.Object({
  address: Type.Object({
    country: Type.String(),
    subdivision: Type.String(),
    city: Type.String(),
    line1: Type.String(),
    line2: Type.Optional(Type.String()),
    postalCode: Type.String()
  }, { description: 'The address of the account holder.' }),
  routingNumber: Type.String({ description: 'The ABA routing number.' }),
  accountNumber: Type.String({ description: 'The account number.' }),
  accountType: Type.String({ description: '`checking` or `savings`.' }),
  secondaryNetworks: Type.Optional(Type.Object({
    deposit: Type.Optional(Type.Array(Type.String())),
    withdraw: Type.Optional(Type.Array(Type.String()))
  }, { description: 'Other US bank networks that reach the same account, by feature.' }))
}, { title: 'ACH bank account details' })

export const ExternalAccount = Type.Object({
  id: Uuid,
  ownerId: { ...Uuid, description: 'The user who owns the external account.' },
  type: Type.Union([Type.Literal('card'), Type.Literal('bank'), Type.Literal('apm')], { description: 'The kind of external account.' }),
  status: Type.Enum(EXTERNAL_ACCOUNT_STATUSES, { description: 'A card is `processing` until its check ends; a bank account is `ok` at once.' }),
  statusDetails: Type.Optional(Type.Object({ reason: Type.Enum(STATUS_REASONS) }, { description: 'Why the status is what it is.' })),
  label: Type.String({ description: 'The label of the external account.' }),
  asset: Type.String({ description: 'The asset the external account is denominated in.' }),
  network: Type.Optional(Type.String({ description: 'The network that reaches it: the card brand (`visa`, `mastercard`) or `ach`.' })),
  features: Type.Array(Type.Union([Type.Literal('withdraw'), Type.Literal('deposit')]), { description: 'What it can be used for now: none while a card is being checked.' }),
  details: Type.Union([CardDetails, AchDetails]),
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { $id: 'ExternalAccount' })
export type ExternalAccount = Static<typeof ExternalAccount>

export const ExternalAccountAnswer = Type.Object({ externalAccount: Type.Ref('ExternalAccount') })
export const ExternalAccountList = Type.Object({ externalAccounts: Type.Array(Type.Ref('ExternalAccount')) })
export const CreateExternalAccountAnswer = Type.Object({
  externalAccount: Type.Ref('ExternalAccount'),
  errors: Type.Optional(Type.Object({ metadata: Type.Ref('ErrorBody') }, { description: 'Present only when the metadata could not be stored; the external account was created without it.' }))
})

export const UpdateExternalAccountRequest = Type.Object({ label: Type.Optional(Label) }, { additionalProperties: false, minProperties: 1, examples: [{ label: 'Personal Visa' }] })
export type UpdateExternalAccountRequest = Static<typeof UpdateExternalAccountRequest>

export const ExternalAccountStatusChange = Type.Object({
  status: Type.Enum(EXTERNAL_ACCOUNT_STATUSES, { description: 'The status to set.' }),
  reason: Type.Optional(Type.Enum(STATUS_REASONS, { description: 'Shown as `statusDetails.reason`.' }))
}, { additionalProperties: false, examples: [{ status: 'ok' }, { status: 'failed', reason: 'card-declined-by-bank' }] })

export const EXTERNAL_ACCOUNT_SCHEMAS = [ExternalAccount]
