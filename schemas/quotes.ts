// The quotes contract: what moving funds from one node to another would cost and deliver, fixed
// until it expires and usable once.
import { Type, type Static, type TSchema } from 'typebox'
import { Timestamp, Uuid } from './common.js'

const Text = (maxLength: number, description: string) => Type.String({ pattern: '^\\S.*\\S$|^\\S$', maxLength, description })

export const APM_METHODS = ['apple-pay', 'paypal', 'venmo'] as const
export type ApmMethod = typeof APM_METHODS[number]

const AccountNode = Type.Object({ type: Type.Literal('account'), id: Type.String({ format: 'uuid', description: 'An account id.' }) }, { title: 'Account node' })
const ExternalAccountNode = Type.Object({
  type: Type.Literal('external-account'),
  id: Type.String({ format: 'uuid', description: 'An external account id.' }),
  network: Type.Optional(Type.String({ pattern: '^\\S.*\\S$|^\\S$', description: 'The network to use, when the external account is reached by more than one.' }))
}, { title: 'External account node' })
const ApmNode = Type.Object({ type: Type.Literal('apm'), method: Type.Enum(APM_METHODS, { description: 'The payment method.' }) }, { title: 'Payment method node' })
const CryptoAddressNode = Type.Object({
  type: Type.Literal('crypto-address'),
  asset: Text(20, 'The asset to send.'),
  network: Text(50, 'The crypto network.'),
  address: Text(256, 'The address on the network.'),
  reference: Type.Optional(Text(255, 'The destination tag or memo, on networks that take one.'))
}, { title: 'Crypto address node' })

export const CreateQuoteRequest = Type.Object({
  origin: Type.Union([AccountNode, ExternalAccountNode, ApmNode], { description: 'Where the funds come from.' }),
  destination: Type.Union([AccountNode, ExternalAccountNode, ApmNode, CryptoAddressNode], { description: 'Where the funds go.' }),
  denomination: Type.Object({
    asset: Type.String({ minLength: 1, description: 'The asset `amount` is in.' }),
    amount: Type.String({ pattern: '^(?!0+(\\.0+)?$)\\d+(\\.\\d+)?$', description: 'The amount, a decimal string above zero.' }),
    target: Type.Optional(Type.Enum(['origin', 'destination'], { default: 'origin', description: 'Whether `amount` is what leaves the origin (default) or what reaches the destination.' }))
  }, { description: 'How much, and on which side.' }),
  ttl: Type.Optional(Type.Integer({ minimum: 1, description: 'How long the quote holds, in milliseconds: at least 18000.' }))
}, {
  examples: [{
    origin: { type: 'account', id: 'b98e4f0d-a67d-4126-a99d-666f7e0315d9' },
    destination: { type: 'account', id: '555a99a1-620d-4431-a0ac-b43e1aad2bdc' },
    denomination: { asset: 'GBP', amount: '100.00', target: 'origin' }
  }]
})
export type CreateQuoteRequest = Static<typeof CreateQuoteRequest>

const AccountView = Type.Object({ type: Type.Literal('account'), id: Uuid, ownerId: Uuid })
const ExternalAccountView = Type.Object({ type: Type.Literal('external-account'), id: Uuid, ownerId: Uuid, network: Type.Optional(Type.String()) })
const ApmView = Type.Object({ type: Type.Literal('apm'), method: Type.Enum(APM_METHODS) })
const Execution = Type.Union([
  Type.Object({ mode: Type.Literal('offchain'), accountId: Uuid, accountOwnerId: Uuid }, { description: 'The address is a deposit address of an account of this service: the funds move between accounts.' }),
  Type.Object({ mode: Type.Literal('simulated') }, { description: 'The sandbox sends nothing on chain.' })
])
const CryptoAddressView = Type.Object({
  type: Type.Literal('crypto-address'),
  network: Type.String(),
  address: Type.String(),
  reference: Type.Optional(Type.String()),
  execution: Type.Optional(Execution)
})

const Side = <T extends TSchema>(node: T, description: string) => Type.Object({
  asset: Type.String({ description: 'The asset of this side.' }),
  amount: Type.String({ description: 'The amount, with all of the asset\'s decimals: what leaves the origin rounds up, what reaches the destination rounds down.' }),
  rate: Type.String({ description: 'Origin: units of the origin asset per unit of the destination asset; destination: the other way round.' }),
  node
}, { description })

const OriginNodeView = Type.Union([AccountView, ExternalAccountView, ApmView])
const DestinationNodeView = Type.Union([AccountView, ExternalAccountView, ApmView, CryptoAddressView])
export type OriginNodeView = Static<typeof OriginNodeView>
export type DestinationNodeView = Static<typeof DestinationNodeView>

export const Quote = Type.Object({
  id: Uuid,
  origin: Side(OriginNodeView, 'What leaves the origin.'),
  destination: Side(DestinationNodeView, 'What reaches the destination, after fees.'),
  denomination: Type.Object({
    asset: Type.String(),
    amount: Type.String(),
    rate: Type.String({ description: 'Units of the target side\'s asset per unit of the denomination asset.' }),
    target: Type.Enum(['origin', 'destination'])
  }),
  fees: Type.Array(Type.Object({
    type: Type.Enum(['deposit', 'exchange', 'network', 'withdrawal']),
    code: Type.String(),
    asset: Type.String(),
    amount: Type.String(),
    percentage: Type.Optional(Type.String())
  }), { description: 'Fees, in the destination asset, taken from what reaches it.' }),
  requirements: Type.Array(Type.Enum(['travel-rule', 'authorize:3ds', 'authorize:apple-pay', 'authorize:paypal', 'authorize:venmo'])),
  expiresAt: Timestamp
}, { $id: 'Quote' })
export type Quote = Static<typeof Quote>

export const QuoteAnswer = Type.Object({ quote: Type.Ref('Quote') })
