// core.create-transaction, core.get-transaction, core.list-transactions, core.list-account-transactions, the 3-D Secure page and the status control.
import type { FastifyInstance } from 'fastify'
import formbody from '@fastify/formbody'
import { Type } from 'typebox'
import { control, onOrganizationOf, operation } from '../kit/operation.js'
import { ApiError, conflict } from '../errors.js'
import { userContext } from '../http/user-context.js'
import { pageOf, pageRows, pageWindow, paginationFor, publicBase } from '../http/pagination.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import { Pagination } from '../../schemas/lists.js'
import { AccountParams } from '../../schemas/accounts.js'
import {
  ConfirmationDecision, CreateTransactionAnswer, CreateTransactionRequest, Transaction, TransactionAnswer, TransactionListQuery, TransactionParams,
  TransactionStatusChange
} from '../../schemas/transactions.js'
import { ownAccount } from '../accounts/service.js'
import { authorize, changeTransactionStatus, createTransaction, ledgerOf, transactionNotFound, transactionView } from './service.js'
import type { TransactionRecord } from './store.js'
import { CONFIRMATION_CSP, confirmationPage } from './confirmation-page.js'

const TAG = 'Transactions'
const USERS = ['user:business', 'user:individual'] as const
const TRANSACTION_404 = '`entity_not_found` (`details.entity: "transaction"`): no such transaction the acting user is a party of.'

/** The list answer, with the shared pagination links inlined (the schema has no `$id` here). */
const TransactionPage = Type.Object({
  transactions: Type.Array(Type.Ref('Transaction')),
  pagination: Type.Object(Pagination.properties, { description: 'Absolute links to other pages of the list, keeping every other query parameter.' })
})

const isFinal = (t: TransactionRecord): boolean => t.status === 'completed' || t.status === 'failed'
const notPending = (status: string): ApiError =>
  conflict('transaction_not_pending', 'The transaction has already completed or failed', { status })
const authorizationNotPending = (status: string): ApiError =>
  conflict('authorization_not_pending', 'The transaction has no authorization waiting for confirmation', { status })

/** The returnUrl with the outcome added to its query, as a card issuer's 3-D Secure page would return. */
function returnTo (returnUrl: string, t: TransactionRecord): string {
  const url = new URL(returnUrl)
  url.searchParams.set('transactionId', t.id)
  url.searchParams.set('status', t.status)
  return url.toString()
}

export async function transactionRoutes (app: FastifyInstance): Promise<void> {
  app.addSchema(Transaction)
  const headers = UserContextHeaders(app.config.serviceName)
  const ledger = ledgerOf(app)

  operation(app, {
    id: 'createTransaction',
    method: 'POST',
    url: '/core/transactions',
    tag: TAG,
    scopes: ['core.transactions:create'],
    subjects: USERS,
    summary: 'Create a transaction',
    description: 'Commits a quote of the acting user (once: a quote that was used, expired or is another user\'s is 404). Needs the end user\'s ' +
      'IP and agent headers. The checks run in this order: the headers; the quote; the user\'s capabilities and the origin card or bank account ' +
      '(a card no longer `ok` is `card-unauthorized`), as they may have changed since the quote; the origin and destination accounts; ' +
      '`missing-return-url` for a quote that requires `authorize:3ds`; then, atomically with the commit, a withdrawal repeating a pending one ' +
      '(same origin account, destination and amount), the origin account\'s available balance, and the daily limit of the quote\'s kind of movement ' +
      '(quotes given together may not all fit once some are committed). The origin amount is held from the origin account ' +
      'at once (its `available` drops); the transaction is `processing` and completes after TRANSACTION_SETTLEMENT_SECONDS on the sandbox clock ' +
      '(or from `POST /_sandbox/transactions/{transactionId}/status`), when the destination is credited and the fees taken. A 3-D Secure card ' +
      'transaction waits for its `origin.node.confirmationUrl` page (approve: it settles as any other; decline: it fails with `card-unauthorized`). ' +
      'A quote that requires `travel-rule` committed without `params.travelRule` is put `on-hold` at once, with a pending request for information. ' +
      'Emits `core.transaction.created` and the origin\'s `core.account.balance-changed`. `metadata` over 1024 characters does not stop the creation: ' +
      'the answer holds `errors.metadata`.',
    headers,
    body: CreateTransactionRequest,
    responses: {
      201: { description: 'Created; `errors` appears only when the metadata could not be stored.', ...CreateTransactionAnswer },
      404: '`entity_not_found`: the quote (`"quote"`: unknown, used, expired or another user\'s), or the origin or destination account (`"account"`).',
      409: '`operation_not_allowed` (`missing-user-ip-header`, `missing-user-agent-header`, `missing-return-url`, `duplicate-withdrawal`, ' +
        '`card-unauthorized`, `unspecified-error`), `user_capability_failure`, `insufficient_balance` or `transaction_amount_invalid` ' +
        '(`amount-exceeds-daily-limit`).'
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    const context = userContext(request, app.config.serviceName)
    return reply.code(201).send(await createTransaction(app, organizationId, userId, request.body, context, publicBase(app.config.publicUrl, request)))
  })

  operation(app, {
    id: 'listTransactions',
    method: 'GET',
    url: '/core/transactions',
    tag: TAG,
    scopes: ['core.transactions:read'],
    subjects: USERS,
    summary: 'List transactions',
    description: 'The transactions the acting user is a party of (made, or moving funds from or to one of their accounts), newest first.',
    querystring: TransactionListQuery,
    headers,
    responses: { 200: { description: 'A page of transactions.', ...TransactionPage } }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const page = pageOf(request.query)
    const { offset, limit } = pageWindow(page)
    const { items, hasNext } = pageRows(await ledger.listForUser(organizationId, userId, offset, limit), page)
    return { transactions: items.map(transactionView), pagination: paginationFor(request, app.config.publicUrl, page, hasNext) }
  })

  operation(app, {
    id: 'getTransaction',
    method: 'GET',
    url: '/core/transactions/:transactionId',
    tag: TAG,
    scopes: ['core.transactions:read'],
    subjects: USERS,
    summary: 'Get a transaction',
    description: 'One transaction the acting user is a party of.',
    params: TransactionParams,
    headers,
    responses: { 200: { description: 'The transaction.', ...TransactionAnswer }, 404: TRANSACTION_404 }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const t = await ledger.get(organizationId, request.params.transactionId)
    if (t === undefined || !await ledger.isParty(organizationId, t.id, userId)) throw transactionNotFound()
    return { transaction: transactionView(t) }
  })

  operation(app, {
    id: 'listAccountTransactions',
    method: 'GET',
    url: '/core/accounts/:accountId/transactions',
    tag: TAG,
    scopes: ['core.accounts:read', 'core.transactions:read'],
    subjects: USERS,
    summary: 'List an account\'s transactions',
    description: 'The transactions moving funds from or to one account of the acting user (archived or not), newest first. Needs both scopes.',
    params: AccountParams,
    querystring: TransactionListQuery,
    headers,
    responses: {
      200: { description: 'A page of transactions.', ...TransactionPage },
      404: '`entity_not_found` (`details.entity: "account"`): no such account of the acting user.'
    }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const account = await ownAccount(app, organizationId, userId, request.params.accountId)
    const page = pageOf(request.query)
    const { offset, limit } = pageWindow(page)
    const { items, hasNext } = pageRows(await ledger.listForAccount(account.id, offset, limit), page)
    return { transactions: items.map(transactionView), pagination: paginationFor(request, app.config.publicUrl, page, hasNext) }
  })

  control(app, {
    id: 'sandboxSetTransactionStatus',
    method: 'POST',
    url: '/_sandbox/transactions/:transactionId/status',
    summary: 'Set a transaction\'s status',
    description: 'Decides a pending transaction of any organization at once, as the service would later: `completed` settles it (the hold ' +
      'becomes the debit, the destination is credited, fees are taken), `failed` releases its hold (`reason`, default `unspecified-error`), ' +
      '`on-hold` opens a pending travel-rule request for information (`reason`, default `pending-requests-for-information`); answering it ' +
      'resumes the transaction. Emits `core.transaction.status-changed` and each moved account\'s `core.account.balance-changed`. ' +
      'The same status again changes nothing. A transaction waiting for 3-D Secure can be decided here too. ' +
      'An organization\'s control token reaches its own organization\'s transactions only.',
    acts: 'organization',
    params: TransactionParams,
    body: TransactionStatusChange,
    responses: {
      200: { description: 'The transaction as it is now.', ...TransactionAnswer },
      404: '`entity_not_found` (`details.entity: "transaction"`): no such transaction.',
      409: '`transaction_not_pending` (`details.status`): the transaction has already completed or failed.'
    }
  }, async (request) => {
    const { transactionId } = request.params
    const t = await ledger.get(undefined, transactionId)
    return await onOrganizationOf(app, request, t?.organizationId, transactionNotFound, async () => {
      if (t === undefined) throw transactionNotFound()
      if (isFinal(t)) throw notPending(t.status)
      const changed = await changeTransactionStatus(app, transactionId, request.body.status, request.body.reason ?? null)
      if (changed === undefined) throw transactionNotFound()
      if (changed === 'final') throw notPending((await ledger.get(undefined, transactionId))?.status ?? 'completed')
      return { transaction: transactionView(changed) }
    })
  })

  // The confirmation page: end users' browsers reach it without the admin token. Its form posts
  // `application/x-www-form-urlencoded`, parsed in this context only.
  await app.register(async page => {
    await page.register(formbody, { bodyLimit: 1024 })
    const confirmable = async (id: string): Promise<TransactionRecord> => {
      const t = await ledger.get(undefined, id)
      if (t === undefined || (t.body.origin.node as { confirmationUrl?: string }).confirmationUrl === undefined) throw transactionNotFound()
      return t
    }

    control(page, {
      id: 'sandboxThreeDsPage',
      method: 'GET',
      url: '/_sandbox/3ds/:transactionId',
      acts: 'open',
      summary: '3-D Secure confirmation page',
      description: 'The page at a 3-D Secure card transaction\'s `origin.node.confirmationUrl`: the amount, and Approve and Decline buttons ' +
        '(a form that posts back here). Once answered, it says the transaction needs no confirmation any more. No admin token: end users\' ' +
        'browsers open it.',
      params: TransactionParams,
      produces: ['text/html'],
      responses: {
        200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
        404: '`entity_not_found` (`details.entity: "transaction"`): no such transaction waiting for, or past, a 3-D Secure confirmation.'
      }
    }, async (request, reply) => reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', CONFIRMATION_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(confirmationPage(await confirmable(request.params.transactionId))))

    control(page, {
      id: 'sandboxThreeDsAnswer',
      method: 'POST',
      url: '/_sandbox/3ds/:transactionId',
      acts: 'open',
      summary: 'Answer a 3-D Secure confirmation',
      description: 'The confirmation page\'s form (`decision=approve` or `decision=decline`, form-encoded or JSON). Approve: the transaction ' +
        'settles as any other (after TRANSACTION_SETTLEMENT_SECONDS). Decline: it fails with `card-unauthorized` (`core.transaction.status-changed`). ' +
        'Then 303 to the transaction\'s return URL with `transactionId` and `status` (`processing` or `failed`) added to its query.',
      params: TransactionParams,
      body: ConfirmationDecision,
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      responses: {
        303: { description: 'To the return URL, with the outcome.', type: 'null' },
        404: '`entity_not_found` (`details.entity: "transaction"`): no such transaction waiting for, or past, a 3-D Secure confirmation.',
        409: '`authorization_not_pending` (`details.status`): the confirmation was answered already, or the transaction was decided otherwise.'
      }
    }, async (request, reply) => {
      const { transactionId } = request.params
      const t = await confirmable(transactionId)
      // On the transaction's organization's clock (the page has no token to say it).
      const outcome = await app.clock.within(t.organizationId, async () => await authorize(app, transactionId, request.body.decision === 'approve'))
      if (outcome === undefined) throw transactionNotFound()
      if (outcome === 'final') throw authorizationNotPending((await ledger.get(undefined, transactionId))?.status ?? t.status)
      const returnUrl = outcome.returnUrl ?? t.body.origin.node.confirmationUrl as string
      return reply.redirect(returnTo(returnUrl, outcome), 303)
    })
  })
}
