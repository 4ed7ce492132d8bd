// The requests for information contract: what the service asks about a transaction before it can
// go on (travel-rule data), and the answer that resolves it.
import { Type, type Static } from 'typebox'
import { Timestamp } from './common.js'

export const RFI_STATUSES = ['ok', 'pending', 'expired', 'failed'] as const

export const RfiParams = Type.Object({ transactionId: Type.String({ format: 'uuid', description: 'The transaction id.' }) })
export const RfiItemParams = Type.Object({
  transactionId: Type.String({ format: 'uuid', description: 'The transaction id.' }),
  requestForInformationId: Type.String({ format: 'uuid', description: 'The request for information id.' })
})

export const RequestForInformation = Type.Object({
  id: Type.String({ description: 'The id of the RFI.' }),
  type: Type.Literal('travel-rule', { description: 'The type of the RFI.' }),
  status: Type.Enum(RFI_STATUSES, { description: '`pending` until answered (`ok`); `expired` when unanswered for RFI_EXPIRY_SECONDS; `failed` when its transaction fails; `ok` when it completes.' }),
  data: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The travel-rule data that answered it.' })),
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { $id: 'RequestForInformation' })
export type RequestForInformation = Static<typeof RequestForInformation>

export const RfiList = Type.Object({ requestsForInformation: Type.Array(Type.Ref('RequestForInformation')) })
export const RfiAnswer = Type.Object({ requestForInformation: Type.Ref('RequestForInformation') })

export const UpdateRfiRequest = Type.Object({
  data: Type.Record(Type.String(), Type.Unknown(), {
    minProperties: 1,
    description: 'The travel-rule data: any object with at least one property. A travel-rule widget\'s payload (`proof.txUpdate`) is kept as that transfer update.'
  })
}, {
  title: 'Travel Rule',
  examples: [{
    data: {
      originatorProof: { type: 'self-declaration', address: 'xrpl:0:rExampleAddress123456789', confirmed: true, status: 'verified' },
      transactionAmount: '4000000',
      originatorEqualsBeneficiary: true
    }
  }]
})
export type UpdateRfiRequest = Static<typeof UpdateRfiRequest>

/** The sandbox control's change: an RFI closed unanswered. */
export const RfiStatusChange = Type.Object({
  status: Type.Enum(['expired', 'failed'], { description: '`expired` as the clock would after RFI_EXPIRY_SECONDS, or `failed` as a review would.' })
}, { examples: [{ status: 'expired' }] })

export const RfiClosedAnswer = Type.Object({
  requestForInformation: Type.Ref('RequestForInformation'),
  transaction: Type.Ref('Transaction')
})

export const RFI_SCHEMAS = [RequestForInformation]
