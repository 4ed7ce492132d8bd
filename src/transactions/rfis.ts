// The requests-for-information operations: a transaction's RFIs (travel-rule data the service
// asks for before a transaction on hold goes on), one of them, and the answer that resolves it.
// Answering the last pending RFI of a transaction on hold resumes it (processing, completing
// TRANSACTION_SETTLEMENT_SECONDS later on the sandbox clock).
import type { FastifyInstance } from 'fastify'
import { type ApiError, entityNotFound } from '../errors.js'
import { control, onOrganizationOf, operation } from '../kit/operation.js'
import { conflict } from '../errors.js'
import { operationNotAllowed } from '../http/user-context.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import {
  RFI_SCHEMAS, RfiAnswer, RfiClosedAnswer, RfiItemParams, RfiList, RfiParams, RfiStatusChange, UpdateRfiRequest, type RequestForInformation
} from '../../schemas/rfis.js'
import type { RfiRecord, TransactionRecord } from './store.js'
import { answerRfi, closeRfi, ledgerOf, transactionNotFound, transactionView } from './service.js'

const TAG = 'Transactions'
const USERS = ['user:business', 'user:individual'] as const

const rfiNotFound = (): ApiError => entityNotFound('request-for-information', 'The request for information cannot be found')
const rfiNotPending = (status: string): ApiError => conflict('request_for_information_not_pending', 'The request for information is not pending', { status })
const updateNotAllowed = (): ApiError =>
  operationNotAllowed(['request-for-information-update-not-allowed'], 'The current status of the request for information does not allow updates')

export const rfiView = (r: RfiRecord): RequestForInformation => ({
  id: r.id,
  type: 'travel-rule',
  status: r.status,
  ...(r.data === null ? {} : { data: r.data }),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

/** The transaction, when the acting user is one of its parties; 404 otherwise (another user's, another organization's). */
async function visibleTransaction (app: FastifyInstance, organizationId: string, userId: string, transactionId: string): Promise<TransactionRecord> {
  const ledger = ledgerOf(app)
  const found = await ledger.get(organizationId, transactionId)
  if (found === undefined || !await ledger.isParty(organizationId, transactionId, userId)) throw transactionNotFound()
  return found
}

/**
 * What an answer keeps: a travel-rule widget's payload (`proof.txUpdate`, as in the reference's
 * example) is kept as that transfer update; any other object as sent.
 */
export function travelRuleData (data: Record<string, unknown>): Record<string, unknown> {
  const proof = data.proof
  const update = isObject(proof) ? proof.txUpdate : undefined
  return isObject(update) && Object.keys(update).length > 0 ? update : data
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

export async function rfiRoutes (app: FastifyInstance): Promise<void> {
  for (const schema of RFI_SCHEMAS) app.addSchema(schema)
  const headers = UserContextHeaders(app.config.serviceName)
  const ledger = ledgerOf(app)
  const TRANSACTION_404 = '`entity_not_found` (`details.entity: "transaction"`): no such transaction the acting user is a party to.'
  const BOTH_404 = '`entity_not_found`: no such transaction the acting user is a party to (`"transaction"`), or no such RFI of it (`"request-for-information"`).'

  operation(app, {
    id: 'listTransactionRequestsForInformation',
    method: 'GET',
    url: '/core/transactions/:transactionId/requests-for-information',
    tag: TAG,
    scopes: ['core.transactions.requests-for-information:read'],
    subjects: USERS,
    summary: 'List requests for information',
    description: 'The RFIs of a transaction of the acting user, oldest first. A transaction goes on hold with a pending `travel-rule` RFI when it ' +
      'needs travel-rule data it was not given (a crypto withdrawal worth 1000 USD or more committed without `params.travelRule`), or through ' +
      '`POST /_sandbox/transactions/{id}/status` with `on-hold`.',
    params: RfiParams,
    headers,
    responses: { 200: { description: 'The requests for information.', ...RfiList }, 404: TRANSACTION_404 }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const transaction = await visibleTransaction(app, organizationId, userId, request.params.transactionId)
    return { requestsForInformation: (await ledger.rfis(transaction.id)).map(rfiView) }
  })

  operation(app, {
    id: 'getTransactionRequestForInformation',
    method: 'GET',
    url: '/core/transactions/:transactionId/requests-for-information/:requestForInformationId',
    tag: TAG,
    scopes: ['core.transactions.requests-for-information:read'],
    subjects: USERS,
    summary: 'Get request for information',
    description: 'One RFI of a transaction of the acting user.',
    params: RfiItemParams,
    headers,
    responses: { 200: { description: 'The request for information.', ...RfiAnswer }, 404: BOTH_404 }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const transaction = await visibleTransaction(app, organizationId, userId, request.params.transactionId)
    const rfi = await ledger.rfi(transaction.id, request.params.requestForInformationId)
    if (rfi === undefined) throw rfiNotFound()
    return { requestForInformation: rfiView(rfi) }
  })

  operation(app, {
    id: 'updateTransactionRequestForInformation',
    method: 'PUT',
    url: '/core/transactions/:transactionId/requests-for-information/:requestForInformationId',
    tag: TAG,
    scopes: ['core.transactions.requests-for-information:update'],
    subjects: USERS,
    summary: 'Update request for information',
    description: 'Answers a pending RFI with its travel-rule `data` (any object with at least one property; a travel-rule widget\'s payload ' +
      'carrying `proof.txUpdate` is kept as that transfer update). The RFI becomes `ok`; when it was the last pending RFI of a transaction on ' +
      'hold, the transaction resumes (`processing`, `core.transaction.status-changed`) and completes TRANSACTION_SETTLEMENT_SECONDS later on the ' +
      'sandbox clock. An RFI that is not pending cannot be updated.',
    params: RfiItemParams,
    headers,
    body: UpdateRfiRequest,
    responses: {
      200: { description: 'The request for information, answered.', ...RfiAnswer },
      404: BOTH_404,
      409: '`operation_not_allowed` (`details.reasons: ["request-for-information-update-not-allowed"]`): the RFI is not pending (already answered, expired or failed).'
    }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const transaction = await visibleTransaction(app, organizationId, userId, request.params.transactionId)
    const answered = await answerRfi(app, transaction.id, request.params.requestForInformationId, travelRuleData(request.body.data))
    if (!answered.ok) throw answered.reason === 'not-found' ? rfiNotFound() : updateNotAllowed()
    return { requestForInformation: rfiView(answered.rfi) }
  })

  control(app, {
    id: 'sandboxCloseRequestForInformation',
    method: 'POST',
    url: '/_sandbox/transactions/:transactionId/requests-for-information/:requestForInformationId/status',
    summary: 'Close a request for information unanswered',
    description: 'Closes a pending RFI of a transaction of any organization at once, as the service would: `expired` (what the sandbox clock does ' +
      'RFI_EXPIRY_SECONDS after the RFI opened) or `failed`. A transaction on hold then fails (`statusDetails.reason: ' +
      'travel-rule-verification-failed`), its hold released, with `core.transaction.status-changed` and `core.account.balance-changed`. ' +
      'An organization\'s control token reaches its own organization\'s transactions only.',
    acts: 'organization',
    params: RfiItemParams,
    body: RfiStatusChange,
    responses: {
      200: { description: 'The request for information, closed, and its transaction as it is now.', ...RfiClosedAnswer },
      404: '`entity_not_found`: no such transaction (`"transaction"`), or no such RFI of it (`"request-for-information"`).',
      409: '`request_for_information_not_pending` (`details.status`): the RFI was answered or closed already.'
    }
  }, async (request) => {
    const { transactionId, requestForInformationId } = request.params
    const found = await ledger.get(undefined, transactionId)
    return await onOrganizationOf(app, request, found?.organizationId, transactionNotFound, async () => {
      const closed = await closeRfi(app, transactionId, requestForInformationId, request.body.status)
      if (!closed.ok) {
        if (closed.reason === 'not-found') throw rfiNotFound()
        throw rfiNotPending((await ledger.rfi(transactionId, requestForInformationId))?.status ?? 'ok')
      }
      return { requestForInformation: rfiView(closed.rfi), transaction: transactionView(closed.transaction) }
    })
  })
}
