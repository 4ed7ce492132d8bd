// The sandbox's scenarios: a user ready to use, funded; a year of history for a demo.
import { Type, type Static } from 'typebox'
import { Uuid } from './common.js'
import { Address, Phone } from './users.js'
import { Balance } from './accounts.js'

export const FundedUserRequest = Type.Object({
  organizationId: Type.Optional({ ...Uuid, description: 'Absent: the demo organization. One the sandbox does not know yet is created.' }),
  assets: Type.Record(Type.String({ pattern: '^[A-Z0-9]{2,12}$' }), Type.String({ pattern: '^[0-9]{1,20}(\\.[0-9]{1,18})?$', description: 'A positive decimal amount, within the asset\'s decimals.' }), {
    minProperties: 1,
    maxProperties: 20,
    description: 'The amount to deposit, by asset code: one account per asset.'
  }),
  user: Type.Optional(Type.Object({
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    fullName: Type.Optional(Type.String({ pattern: '^\\S+\\s+\\S+(\\s+\\S+)*$', maxLength: 200 })),
    birthdate: Type.Optional(Type.String({ format: 'date' })),
    primaryCitizenship: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    address: Type.Optional(Address),
    phone: Type.Optional(Phone)
  }, { additionalProperties: false, description: 'What to set instead of the defaults (a GB resident of Manchester, born 1990), checked as `POST /core/users` checks it.' }))
}, {
  additionalProperties: false,
  examples: [{ assets: { GBP: '1000.00', BTC: '0.05' } }, { organizationId: '00000000-0000-4000-8000-000000000001', assets: { USD: '250' }, user: { email: 'funded@example.com', fullName: 'Jane Doe' } }]
})
export type FundedUserRequest = Static<typeof FundedUserRequest>

export const FundedUser = Type.Object({
  userId: Uuid,
  accounts: Type.Array(Type.Object({
    id: Uuid,
    asset: Type.String(),
    balance: Balance
  }), { description: 'One account per asset, in the order given, with its balance after the deposit.' })
})

export const HistoryRequest = Type.Object({
  weeks: Type.Optional(Type.Integer({ minimum: 1, maximum: 104, default: 52, description: 'How many weeks back the history starts (default 52).' }))
}, { additionalProperties: false, examples: [{ weeks: 52 }] })

export const History = Type.Object({
  userId: Uuid,
  accounts: Type.Record(Type.String(), Uuid, { description: 'The user\'s account by asset (GBP, BTC, ETH).' }),
  from: Type.String({ format: 'date-time', description: 'When the user was created, `weeks` weeks back.' }),
  transactions: Type.Integer({ description: 'How many transactions the history holds.' })
})
