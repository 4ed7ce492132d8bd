// The accounts contract: a user's accounts (one per asset is the default), their labels, archiving,
// and the deposit method that routes external funds to an account.
import { Type, type Static } from 'typebox'
import { Timestamp, Uuid } from './common.js'
import { Metadata } from './metadata.js'
import { PageQuery } from './lists.js'

const Label = Type.String({ pattern: '^\\S.*\\S$|^\\S$', maxLength: 140, description: 'The label of the account: no leading or trailing spaces, at most 140 characters.' })
const AssetCodes = (description: string) => Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true, maxItems: 100, description })

export const AccountParams = Type.Object({ accountId: Type.String({ format: 'uuid', description: 'The account id.' }) })

export const Balance = Type.Object({
  total: Type.String({ description: 'Everything the account holds, a decimal string.' }),
  available: Type.String({ description: 'What can be spent now (the total less holds), a decimal string.' })
}, { description: 'The balance of the account.' })

export const Account = Type.Object({
  id: Uuid,
  ownerId: { ...Uuid, description: 'The user who owns the account.' },
  label: Type.String({ description: 'The label of the account.' }),
  asset: Type.String({ description: 'The asset the account is denominated in.' }),
  balance: Balance,
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { $id: 'Account' })
export type Account = Static<typeof Account>

export const AccountListQuery = Type.Object({
  ...PageQuery.properties,
  asset: Type.Optional(AssetCodes('Comma-separated asset codes: only accounts in these assets.'))
})
export type AccountListQuery = Static<typeof AccountListQuery>

export const DefaultAccountsQuery = Type.Object({
  asset: Type.Optional(AssetCodes('Comma-separated asset codes: only the default accounts of these assets.'))
})

export const AccountList = Type.Object({ accounts: Type.Array(Type.Ref('Account')), pagination: Type.Ref('Pagination') })
export const DefaultAccountList = Type.Object({ accounts: Type.Array(Type.Ref('Account')) })
export const AccountAnswer = Type.Object({ account: Type.Ref('Account') })

export const CreateAccountRequest = Type.Object({
  label: Label,
  asset: Type.String({ minLength: 1, description: 'The asset the account is denominated in.' }),
  metadata: Type.Optional({ ...Metadata, description: 'Initial metadata. Over 1024 characters, the account is still created and the answer reports `errors.metadata`.' })
}, { examples: [{ label: 'My BTC account', asset: 'BTC', metadata: { externalId: 123 } }] })
export type CreateAccountRequest = Static<typeof CreateAccountRequest>

export const CreateAccountAnswer = Type.Object({
  account: Type.Ref('Account'),
  errors: Type.Optional(Type.Object({ metadata: Type.Ref('ErrorBody') }, { description: 'Present only when the metadata could not be stored; the account was created without it.' }))
})

export const UpdateAccountRequest = Type.Object({ label: Type.Optional(Label) }, { additionalProperties: false, minProperties: 1, examples: [{ label: 'Savings' }] })
export type UpdateAccountRequest = Static<typeof UpdateAccountRequest>

// ---- Deposit methods ----

export const DEPOSIT_METHOD_TYPES = ['crypto', 'bank'] as const
export const US_BANK_NETWORKS = ['ach', 'fednow', 'rtp', 'wire'] as const

export const DepositMethodQuery = Type.Object({
  type: Type.Enum(DEPOSIT_METHOD_TYPES, { description: 'The type of the deposit method.' }),
  asset: Type.String({ minLength: 1, description: 'The asset to deposit: the account\'s.' }),
  network: Type.String({ minLength: 1, description: 'The network to deposit on.' })
})
export type DepositMethodQuery = Static<typeof DepositMethodQuery>

const bankFields = {
  network: Type.String({ description: 'The bank network.' }),
  asset: Type.String({ description: 'The asset of the transfer.' }),
  beneficiary: Type.String({ description: 'The beneficiary name.' }),
  bankName: Type.String({ description: 'The receiving bank.' }),
  bankAddress: Type.Object({ line1: Type.String(), line2: Type.Optional(Type.String()) }, { description: 'The receiving bank\'s address.' })
}

export const CryptoDepositDetails = Type.Object({
  network: Type.String(),
  asset: Type.String(),
  address: Type.String({ description: 'The address to send to: unique to the account.' }),
  addressFormats: Type.Array(Type.Object({
    format: Type.Enum(['native-segwit', 'wrapped-segwit', 'pubkey-hash']),
    value: Type.String()
  }), { minItems: 1 }),
  reference: Type.Optional(Type.String({ description: 'Destination tag or memo to include, on networks that have one.' }))
})
export const FpsDepositDetails = Type.Object({
  ...bankFields,
  network: Type.Literal('fps'),
  sortCode: Type.String({ pattern: '^[0-9]{6}$' }),
  accountNumber: Type.String({ pattern: '^[0-9]{8}$' }),
  reference: Type.Optional(Type.String())
})
export const SepaDepositDetails = Type.Object({
  ...bankFields,
  network: Type.Literal('sepa'),
  bic: Type.String(),
  iban: Type.String(),
  reference: Type.String()
})
export const UsBankDepositDetails = Type.Object({
  ...bankFields,
  network: Type.Enum(US_BANK_NETWORKS),
  routingNumber: Type.String({ pattern: '^[0-9]{9}$' }),
  accountNumber: Type.String(),
  accountType: Type.Literal('checking'),
  secondaryNetworks: Type.Optional(Type.Array(Type.Enum(US_BANK_NETWORKS)))
})

export const DepositMethod = Type.Object({
  type: Type.Enum(DEPOSIT_METHOD_TYPES),
  status: Type.Enum(['processing', 'ok', 'failed'], { description: 'Always `ok` in the sandbox: details are issued at once.' }),
  details: Type.Optional(Type.Union([CryptoDepositDetails, FpsDepositDetails, SepaDepositDetails, UsBankDepositDetails]))
}, { $id: 'DepositMethod' })
export type DepositMethod = Static<typeof DepositMethod>

export const DepositMethodAnswer = Type.Object({ depositMethod: Type.Ref('DepositMethod') })

export const ACCOUNT_SCHEMAS = [Account, DepositMethod]
