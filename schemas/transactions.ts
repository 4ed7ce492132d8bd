// The transactions contract: a committed quote (or a deposit) as the API shows it, the request
// that commits a quote, the lists, and the sandbox's controls of a transaction.
import { Type, type Static } from 'typebox'
import { Timestamp, Uuid } from './common.js'
import { Metadata } from './metadata.js'
import { PageQuery } from './lists.js'

export const TRANSACTION_STATUSES = ['processing', 'on-hold', 'completed', 'failed'] as const

/** `statusDetails.reason`: why a transaction is on hold or failed. */
export const TRANSACTION_STATUS_REASONS = [
  'apm-account-holder-data-mismatch', 'apm-authorization-failed', 'apm-missing-account-holder-data', 'apm-payment-method-declined',
  'bank-account-holder-name-mismatch', 'beneficiary-country-restricted', 'card-declined-by-bank', 'card-expired',
  'card-permanently-declined-by-bank', 'card-unauthorized', 'card-unsupported', 'card-withdrawals-unsupported', 'insufficient-funds',
  'pending-requests-for-information', 'provider-maximum-limit-exceeded', 'screening-verification-failed',
  'travel-rule-verification-failed', 'unspecified-error', 'velocity'
] as const
export type TransactionStatusReason = typeof TRANSACTION_STATUS_REASONS[number]

const AccountNode = Type.Object({ type: Type.Literal('account'), id: Uuid, ownerId: Uuid }, { title: 'Account' })
const ExternalAccountNode = Type.Object({
  type: Type.Literal('external-account'),
  id: Uuid,
  confirmationUrl: Type.Optional(Type.String({ format: 'uri', description: 'Where the end user confirms the card payment (3-D Secure): a page the sandbox serves.' })),
  ownerId: Uuid,
  network: Type.Optional(Type.String())
}, { title: 'External account' })
const BankAddressNode = Type.Object({ type: Type.Literal('bank-address'), network: Type.String() }, { title: 'Bank address' })
const ApmNode = Type.Object({ type: Type.Literal('apm'), method: Type.Enum(['apple-pay', 'paypal', 'venmo']) }, { title: 'Alternative payment method' })
const Execution = Type.Union([
  Type.Object({ mode: Type.Literal('onchain'), transactionHash: Type.Optional(Type.String()) }, { title: 'On-chain' }),
  Type.Object({ mode: Type.Literal('offchain'), accountId: Type.Optional(Uuid), accountOwnerId: Type.Optional(Uuid) }, { title: 'Off-chain' }),
  Type.Object({ mode: Type.Literal('simulated'), transactionHash: Type.Optional(Type.String()) }, { title: 'Simulated' })
])
const CryptoAddressNode = Type.Object({
  type: Type.Literal('crypto-address'),
  network: Type.String(),
  address: Type.Optional(Type.String()),
  reference: Type.Optional(Type.String()),
  execution: Type.Optional(Execution)
}, { title: 'Crypto address' })
const Node = Type.Union([AccountNode, ExternalAccountNode, BankAddressNode, ApmNode, CryptoAddressNode])

const Endpoint = (description: string) => Type.Object({
  asset: Type.String({ description: 'The asset of this side.' }),
  amount: Type.String({ description: 'The amount of this side, a decimal string.' }),
  rate: Type.String({ description: 'The rate of this side against the other.' }),
  node: Node
}, { description })

export const Transaction = Type.Object({
  id: Uuid,
  origin: Endpoint('Where the funds come from.'),
  destination: Endpoint('Where the funds go.'),
  denomination: Type.Optional(Type.Object({
    asset: Type.String(),
    amount: Type.String(),
    rate: Type.String(),
    target: Type.Enum(['origin', 'destination'])
  }, { description: 'The amount the quote was asked for, and on which side.' })),
  fees: Type.Array(Type.Object({
    type: Type.Enum(['deposit', 'exchange', 'network', 'withdrawal']),
    code: Type.String(),
    asset: Type.String(),
    amount: Type.String(),
    percentage: Type.Optional(Type.String())
  })),
  status: Type.Enum(TRANSACTION_STATUSES, { description: '`processing` until it settles (`completed`) or fails (`failed`); `on-hold` while a request for information is pending.' }),
  statusDetails: Type.Optional(Type.Object({ reason: Type.Optional(Type.Enum(TRANSACTION_STATUS_REASONS)) }, { description: 'Why it is on hold or failed.' })),
  quotedAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  completedAt: Type.Optional(Timestamp)
}, { $id: 'Transaction' })
export type Transaction = Static<typeof Transaction>

const ReturnUrl = (description: string) => Type.String({ format: 'uri', pattern: '^[a-zA-Z][a-zA-Z0-9+\\-.]*:\\/\\/[^\\s]+$', description })

const Authorize3ds = Type.Object({
  name: Type.Literal('authorize:3ds'),
  returnUrl: ReturnUrl('Where the confirmation page sends the end user back, with `transactionId` and `status` added to its query.')
}, { title: 'Authorize 3DS' })
const AuthorizeApplePay = Type.Object({
  name: Type.Literal('authorize:apple-pay'),
  provider: Type.Literal('checkout'),
  deviceData: Type.String(),
  tokenizedPayment: Type.Record(Type.String(), Type.Unknown())
}, { title: 'Authorize Apple Pay' })
const AuthorizePaypalVenmo = Type.Object({
  name: Type.Enum(['authorize:paypal', 'authorize:venmo']),
  provider: Type.Literal('braintree'),
  deviceData: Type.String(),
  tokenizedPayment: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
}, { title: 'Authorize PayPal/Venmo' })

export const CreateTransactionRequest = Type.Object({
  quoteId: Type.String({ format: 'uuid', description: 'The quote to commit.' }),
  params: Type.Optional(Type.Object({
    travelRule: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The travel rule data, for a quote that requires `travel-rule`.' })),
    requirements: Type.Optional(Type.Array(Type.Union([Authorize3ds, AuthorizeApplePay, AuthorizePaypalVenmo]), { description: 'The data of the quote\'s `authorize:*` requirements.' })),
    returnUrl: Type.Optional({ ...ReturnUrl('Deprecated in favour of `requirements`: where the 3-D Secure page returns.'), deprecated: true })
  }, { description: 'What the quote\'s requirements need.' })),
  metadata: Type.Optional({ ...Metadata, description: 'Initial metadata. Over 1024 characters, the transaction is still created and the answer reports `errors.metadata`.' })
}, {
  examples: [
    { quoteId: '623000c8-9bdf-4a2b-aa3d-6a6b44a7f6a0', metadata: { externalId: 123 } },
    { quoteId: '623000c8-9bdf-4a2b-aa3d-6a6b44a7f6a0', params: { requirements: [{ name: 'authorize:3ds', returnUrl: 'https://example.com/redirect' }] } }
  ]
})
export type CreateTransactionRequest = Static<typeof CreateTransactionRequest>

export const CreateTransactionAnswer = Type.Object({
  transaction: Type.Ref('Transaction'),
  errors: Type.Optional(Type.Object({ metadata: Type.Ref('ErrorBody') }, { description: 'Present only when the metadata could not be stored; the transaction was created without it.' }))
})
export const TransactionAnswer = Type.Object({ transaction: Type.Ref('Transaction') })

export const TransactionParams = Type.Object({ transactionId: Type.String({ format: 'uuid', description: 'The transaction id.' }) })
export const TransactionListQuery = PageQuery

// ---- Sandbox controls ----

export const TransactionStatusChange = Type.Object({
  status: Type.Enum(['completed', 'failed', 'on-hold'], { description: '`completed` settles it now, `failed` releases its hold, `on-hold` opens a pending travel-rule request for information.' }),
  reason: Type.Optional(Type.Enum(TRANSACTION_STATUS_REASONS, { description: 'For `failed` (default `unspecified-error`) and `on-hold` (default `pending-requests-for-information`).' }))
}, { additionalProperties: false, examples: [{ status: 'completed' }, { status: 'on-hold' }] })

export const ConfirmationDecision = Type.Object({
  decision: Type.Enum(['approve', 'decline'], { description: 'The end user\'s answer.' })
}, { examples: [{ decision: 'approve' }] })
