// The deposit test helpers' contract: a bank deposit on one of six networks, or a crypto deposit,
// arriving from outside at a deposit method's details. The answers echo the request with the
// defaults the sandbox filled in (the remitter).
import { Type, type Static } from 'typebox'

const NO_EDGE_SPACES = '^\\S.*\\S$|^\\S$'
const AMOUNT_PATTERN = '^(?!0+(\\.0+)?$)\\d+(\\.\\d+)?$'
const Text = (description: string, extra: Record<string, unknown> = {}) => Type.String({ pattern: NO_EDGE_SPACES, description, ...extra })
const Amount = (description: string) => Type.String({ pattern: AMOUNT_PATTERN, description: `${description} A decimal string above zero.` })
const Digits = (pattern: string, description: string) => Type.String({ pattern, description })

const SORT_CODE = '^\\d{6}$'
const FPS_ACCOUNT_NUMBER = '^(?!0+$)[0-9]{6,8}$'
const US_ACCOUNT_NUMBER = '^(?!0+$)[0-9]{4,17}$'
const ROUTING_NUMBER = '^\\d{9}$'
const IBAN = '^[A-Z]{2}[0-9]{2}[A-Z0-9]{4}[0-9]{7}([A-Z0-9]?){0,16}$'
const BIC = '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$'

const RemitterName = Text('The sender\'s full name. Defaults to the acting user\'s name.', { maxLength: 200 })
const REFERENCE = 'The payment reference of the account to credit (the `reference` of its deposit method\'s details). ' +
  'Without it, the funds reach the user\'s default account of the asset.'
const remitterOf = <P extends Parameters<typeof Type.Object>[0]>(properties: P, description: string) =>
  Type.Object(properties, { additionalProperties: false, minProperties: 1, description })

export const SEC_CODES = ['CCD', 'PPD', 'WEB'] as const
export const ACH_TRANSACTION_TYPES = ['Pull', 'Push'] as const
export const ACH_SERVICE_TYPES = ['Standard', 'SameDay'] as const

const FpsDepositRequest = Type.Object({
  network: Type.Literal('fps', { description: 'Faster Payments.' }),
  sortCode: Digits(SORT_CODE, 'The sort code of the deposit details.'),
  accountNumber: Digits(FPS_ACCOUNT_NUMBER, 'The account number of the deposit details (6 to 8 digits; shorter ones stand for their zero-padded 8 digits).'),
  asset: Text('The asset of the transfer: GBP.'),
  amount: Amount('The amount sent, at least 10.'),
  reference: Type.Optional(Text(REFERENCE)),
  remitter: Type.Optional(remitterOf({
    name: Type.Optional(RemitterName),
    sortCode: Type.Optional(Digits(SORT_CODE, 'The sender\'s sort code. Random when left out.')),
    accountNumber: Type.Optional(Digits('^\\d{8}$', 'The sender\'s account number. Random when left out.'))
  }, 'The sender\'s bank account.'))
}, { title: 'FPS deposit' })

const SepaDepositRequest = Type.Object({
  network: Type.Literal('sepa', { description: 'SEPA credit transfer.' }),
  iban: Digits(IBAN, 'The IBAN of the deposit details.'),
  asset: Text('The asset of the transfer: EUR.'),
  amount: Amount('The amount sent, at least 10.'),
  reference: Type.Optional(Text(REFERENCE)),
  remitter: Type.Optional(remitterOf({
    name: Type.Optional(RemitterName),
    bic: Type.Optional(Digits(BIC, 'The sender\'s bank BIC. Random when left out.')),
    iban: Type.Optional(Digits(IBAN, 'The sender\'s IBAN, with valid check digits. Random when left out.'))
  }, 'The sender\'s bank account.'))
}, { title: 'SEPA deposit' })

const usRemitter = {
  name: Type.Optional(RemitterName),
  accountNumber: Type.Optional(Digits(US_ACCOUNT_NUMBER, 'The sender\'s account number. Random when left out.')),
  routingNumber: Type.Optional(Digits(ROUTING_NUMBER, 'The sender\'s routing number. Random when left out.'))
}

const AchDepositRequest = Type.Object({
  network: Type.Literal('ach', { description: 'ACH: the funds count in the total balance only until they settle.' }),
  accountNumber: Digits(US_ACCOUNT_NUMBER, 'The account number of the deposit details.'),
  routingNumber: Digits(ROUTING_NUMBER, 'The routing number of the deposit details.'),
  amount: Amount('The amount sent in USD, at least 10.'),
  remitter: Type.Optional(remitterOf({
    ...usRemitter,
    secCode: Type.Optional(Type.Enum(SEC_CODES, { description: 'The SEC code. Defaults to WEB.' })),
    transactionType: Type.Optional(Type.Enum(ACH_TRANSACTION_TYPES, { description: 'Defaults to Push.' })),
    serviceType: Type.Optional(Type.Enum(ACH_SERVICE_TYPES, { description: 'Defaults to SameDay.' }))
  }, 'The sender\'s bank account.'))
}, { additionalProperties: false, title: 'ACH deposit' })

const instantRequest = (network: 'fednow' | 'rtp', title: string) => Type.Object({
  network: Type.Literal(network),
  accountNumber: Digits(US_ACCOUNT_NUMBER, 'The account number of the deposit details.'),
  amount: Amount('The amount sent in USD, at least 10.'),
  remitter: Type.Optional(remitterOf(usRemitter, 'The sender\'s bank account.'))
}, { additionalProperties: false, title })

const WireDepositRequest = Type.Object({
  network: Type.Literal('wire'),
  accountNumber: Digits(US_ACCOUNT_NUMBER, 'The account number of the deposit details.'),
  amount: Amount('The amount sent in USD, at least 10.'),
  remitter: Type.Optional(Type.Object({
    name: Text('The remitter\'s full name.', { maxLength: 200 }),
    address1: Type.Optional(Text('The remitter\'s first address line.')),
    address2: Type.Optional(Text('The remitter\'s second address line.')),
    idCode: Type.Optional(Text('The remitter\'s identification code.')),
    identifier: Type.Optional(Text('The remitter\'s identifier.'))
  }, { additionalProperties: false, minProperties: 1, description: 'The remitter of the wire.' }))
}, { additionalProperties: false, title: 'Wire deposit' })

export const SimulateBankDepositRequest = Type.Union([
  FpsDepositRequest, SepaDepositRequest, AchDepositRequest, instantRequest('fednow', 'FedNow deposit'), instantRequest('rtp', 'RTP deposit'), WireDepositRequest
], {
  description: 'A bank deposit, by `network`, to the details of one of the acting user\'s deposit methods.',
  examples: [
    { network: 'fps', sortCode: '040004', accountNumber: '12345678', reference: 'SB1A2B3C4D', asset: 'GBP', amount: '100', remitter: { name: 'John Doe', sortCode: '654321', accountNumber: '87654321' } },
    { network: 'ach', accountNumber: '378928485630', routingNumber: '021214891', amount: '123' }
  ]
})
export type SimulateBankDepositRequest = Static<typeof SimulateBankDepositRequest>

const FpsDeposit = Type.Object({
  network: Type.Literal('fps'),
  sortCode: Type.String(),
  accountNumber: Type.String(),
  reference: Type.Optional(Type.String()),
  asset: Type.String(),
  amount: Type.String(),
  remitter: Type.Object({ name: Type.String(), sortCode: Type.String(), accountNumber: Type.String() })
}, { title: 'FPS deposit' })
const SepaDeposit = Type.Object({
  network: Type.Literal('sepa'),
  iban: Type.String(),
  reference: Type.Optional(Type.String()),
  asset: Type.String(),
  amount: Type.String(),
  remitter: Type.Object({ name: Type.String(), bic: Type.String(), iban: Type.String() })
}, { title: 'SEPA deposit' })
const AchDeposit = Type.Object({
  network: Type.Literal('ach'),
  accountNumber: Type.String(),
  routingNumber: Type.String(),
  asset: Type.String(),
  amount: Type.String(),
  remitter: Type.Object({
    name: Type.String(),
    accountNumber: Type.String(),
    routingNumber: Type.String(),
    secCode: Type.Enum(SEC_CODES),
    transactionType: Type.Enum(ACH_TRANSACTION_TYPES),
    serviceType: Type.Enum(ACH_SERVICE_TYPES)
  })
}, { title: 'ACH deposit' })
const instantDeposit = (network: 'fednow' | 'rtp', title: string) => Type.Object({
  network: Type.Literal(network),
  accountNumber: Type.String(),
  asset: Type.String(),
  amount: Type.String(),
  remitter: Type.Object({ name: Type.String(), accountNumber: Type.String(), routingNumber: Type.String() })
}, { title })
const WireDeposit = Type.Object({
  network: Type.Literal('wire'),
  accountNumber: Type.String(),
  amount: Type.String(),
  asset: Type.String(),
  remitter: Type.Object({
    name: Type.String(),
    address1: Type.Optional(Type.String()),
    address2: Type.Optional(Type.String()),
    idCode: Type.Optional(Type.String()),
    identifier: Type.Optional(Type.String())
  })
}, { title: 'Wire deposit' })

export const BankDeposit = Type.Union([FpsDeposit, SepaDeposit, AchDeposit, instantDeposit('fednow', 'FedNow deposit'), instantDeposit('rtp', 'RTP deposit'), WireDeposit], {
  description: 'The deposit as simulated: the request, with the asset and every remitter field filled in.'
})
export type BankDeposit = Static<typeof BankDeposit>
export const BankDepositAnswer = Type.Object({ bankDeposit: BankDeposit })

export const SimulateCryptoDepositRequest = Type.Object({
  network: Text('The crypto network.'),
  address: Text('The deposit address: the `address` of the deposit method\'s details.'),
  reference: Type.Optional(Text('The destination tag or memo of the deposit method\'s details, on networks that have one.')),
  asset: Text('The asset sent.'),
  amount: Amount('The amount sent, at least 10 of the asset\'s smallest units.'),
  remitter: Type.Optional(Type.Object({
    addresses: Type.Optional(Type.Array(Text('An address on the network.'), {
      minItems: 1,
      uniqueItems: true,
      description: 'The addresses the funds came from: one on account-based networks, up to 20 on UTXO networks (bitcoin, litecoin, dogecoin).'
    }))
  }, { additionalProperties: false, minProperties: 1, description: 'The sender.' }))
}, {
  examples: [
    { network: 'bitcoin', address: 'tb1qjq4tvyjxkhpp0fp8lh8w3hhzwn4zue38hjjpkq', asset: 'BTC', amount: '0.001' },
    { network: 'xrp-ledger', address: 'rfBtmHiLwwWH5maH2PT78GxubrSydRF9aY', asset: 'XRP', amount: '5', reference: '12345', remitter: { addresses: ['rD1syZmPdF6dRTpLfovfmiH4tMe56zxdYb'] } }
  ]
})
export type SimulateCryptoDepositRequest = Static<typeof SimulateCryptoDepositRequest>

export const CryptoDeposit = Type.Object({
  network: Type.String(),
  address: Type.String(),
  reference: Type.Optional(Type.String()),
  asset: Type.String(),
  amount: Type.String(),
  remitter: Type.Optional(Type.Object({ addresses: Type.Optional(Type.Array(Type.String())) }))
}, { description: 'The deposit as simulated: the request as sent.' })
export type CryptoDeposit = Static<typeof CryptoDeposit>
export const CryptoDepositAnswer = Type.Object({ cryptoDeposit: CryptoDeposit })
