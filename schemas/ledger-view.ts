// The sandbox view of the ledger (not part of the real service): each user's accounts with their
// balances, and the newest transactions with their status, for the dashboard.
import { Type } from 'typebox'
import { Timestamp, Uuid } from './common.js'

export const LedgerViewQuery = Type.Object({ organizationId: Type.Optional(Uuid) }, { additionalProperties: false })

const Balance = Type.Object({ total: Type.String(), available: Type.String() })
const Side = Type.Object({
  asset: Type.String(),
  amount: Type.String(),
  type: Type.String({ description: 'The node\'s type: `account`, `external-account`, `crypto-address`, `bank-address`, `apm`.' }),
  accountId: Type.Optional(Uuid)
})

export const LedgerView = Type.Object({
  users: Type.Array(Type.Object({
    id: Uuid,
    organizationId: Uuid,
    email: Type.String(),
    accounts: Type.Array(Type.Object({
      id: Uuid,
      label: Type.String(),
      asset: Type.String(),
      archived: Type.Boolean(),
      balance: Balance
    }), { description: 'The user\'s accounts (at most 100), oldest first.' })
  }), { description: 'The users (at most 200).' }),
  transactions: Type.Array(Type.Object({
    id: Uuid,
    organizationId: Uuid,
    userId: Uuid,
    kind: Type.String({ description: '`transfer` (a committed quote) or `deposit`.' }),
    label: Type.String({
      description: 'What the dashboard calls it. A trade (a quote between two accounts of the user in different assets): `buy <asset>` when the ' +
        'destination\'s asset is not fiat, else `sell <asset>` when the origin\'s is not, else `exchange <from> → <to>`; otherwise `kind`.'
    }),
    status: Type.String({ description: '`processing`, `on-hold`, `completed` or `failed`.' }),
    reason: Type.Optional(Type.String()),
    pendingRequestForInformation: Type.Optional(Type.String({ format: 'uuid', description: 'A transaction on hold: its pending request for information, which the dashboard can expire.' })),
    origin: Side,
    destination: Side,
    createdAt: Timestamp,
    updatedAt: Timestamp
  }), { description: 'The newest transactions (at most 200), newest first.' })
})
