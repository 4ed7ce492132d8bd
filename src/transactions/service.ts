// Transactions as the API makes and shows them, over the ledger: committing a quote (user context,
// 3-D Secure, travel rule, duplicate withdrawals, the hold), deposits that credit at once, the
// status machine (processing -> completed | failed; processing -> on-hold -> processing), and the
// settlement of processing transactions and unsettled funds on the sandbox clock.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { allTogether, followDueWork, type DueAt, type DueScope } from '../kit/due-work.js'
import { ApiError, conflict, entityNotFound } from '../errors.js'
import { operationNotAllowed, requireUserContext, type UserContext } from '../http/user-context.js'
import { metadataAtCreation, type CreationErrors } from '../metadata/revision.js'
import { accountsOf, unarchiveOnFunds } from '../accounts/service.js'
import { commitDailyLimit, quoteCapabilities, quotesOf } from '../quotes/service.js'
import { requireCapabilities } from '../capabilities/service.js'
import { externalAccountsOf } from '../external-accounts/service.js'
import type { Account } from '../../schemas/accounts.js'
import { ledgerStore, type Balance, type LedgerEvents, type LedgerStore, type TransactionBody, type TransactionRecord, type TransactionStatus } from './store.js'

export const ledgerOf = (app: FastifyInstance): LedgerStore => app.storage.store(ledgerStore)

export const transactionNotFound = (): ApiError => entityNotFound('transaction', 'The transaction cannot be found')

/** The transaction as the API and its events show it. */
export function transactionView (t: TransactionRecord): Record<string, unknown> {
  return {
    id: t.id,
    origin: t.body.origin,
    destination: t.body.destination,
    ...(t.body.denomination === undefined ? {} : { denomination: t.body.denomination }),
    fees: t.body.fees,
    status: t.status,
    ...(t.reason === null ? {} : { statusDetails: { reason: t.reason } }),
    quotedAt: t.body.quotedAt,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    ...(t.completedAt === null ? {} : { completedAt: t.completedAt })
  }
}

/** Events made inside the ledger's writes: accounts are read there, inside the write. */
export function ledgerEvents (app: FastifyInstance): LedgerEvents {
  const accounts = accountsOf(app)
  return {
    transaction: (type, t) => app.events.build(t.organizationId, type, { transaction: transactionView(t) }),
    async balanceChanged (accountId, balance: Balance) {
      const a = await accounts.findInWrite(accountId)
      if (a === undefined) return undefined
      const account: Account = { id: a.id, ownerId: a.userId, label: a.label, asset: a.asset, balance, createdAt: a.createdAt, updatedAt: a.updatedAt }
      return app.events.build(a.organizationId, 'core.account.balance-changed', { account })
    },
    async credited (accountId) { await unarchiveOnFunds(app, accountId) }
  }
}

const quoteNotFound = (): ApiError => new ApiError(404, 'entity_not_found', 'The quote cannot be found', { entity: 'quote' })
const nodeNotFound = (side: 'origin' | 'destination'): ApiError =>
  new ApiError(404, 'entity_not_found', `The ${side} cannot be found`, { entity: 'account', context: 'body', property: side })
export const insufficientBalance = (): ApiError =>
  conflict('insufficient_balance', 'The origin does not have enough balance to perform the transaction', { context: 'body', property: 'origin' })
const duplicateWithdrawal = (): ApiError => operationNotAllowed(['duplicate-withdrawal'], 'Transaction not allowed due to a duplicate withdrawal')
const missingReturnUrl = (): ApiError => operationNotAllowed(['missing-return-url'], 'Transaction not allowed due to a missing return URL')
const processingFailure = (reason: 'card-unauthorized'): ApiError => operationNotAllowed([reason], 'Transaction not allowed due to a processing failure')
const unspecifiedError = (): ApiError => operationNotAllowed(['unspecified-error'], 'Transaction not allowed due to an unspecified error')

export interface CreateTransactionInput {
  quoteId: string
  params?: { travelRule?: Record<string, unknown>, requirements?: Array<{ name: string, returnUrl?: string }>, returnUrl?: string }
  metadata?: Record<string, unknown>
}

/**
 * Where the sandbox serves the 3-D Secure confirmation page of a transaction: on `base`, PUBLIC_URL
 * or (when it is not set) the scheme and host the request came to.
 */
export const confirmationUrl = (base: string, transactionId: string): string =>
  `${base.replace(/\/$/, '')}/_sandbox/3ds/${transactionId}`

const settlementDelayMs = (app: FastifyInstance): number => app.config.transactionSettlementSeconds * 1000

/** Commits the acting user's quote as a transaction (`core.create-transaction`). */
export async function createTransaction (
  app: FastifyInstance, organizationId: string, userId: string, input: CreateTransactionInput, context: UserContext, base = app.config.publicUrl
): Promise<{ transaction: Record<string, unknown>, errors?: CreationErrors }> {
  requireUserContext(context, ['ip', 'agent'], app.config.serviceName)
  const quotes = quotesOf(app)
  const quoteRecord = await quotes.get(organizationId, input.quoteId)
  const now = app.clock.now()
  if (quoteRecord === undefined || quoteRecord.userId !== userId || quoteRecord.usedAt !== null || quoteRecord.expiresAt <= now) throw quoteNotFound()
  const quote = quoteRecord.quote
  const originNode = quote.origin.node
  const destinationNode = quote.destination.node

  // What the quote needed may have changed since: the user's capabilities, the card or bank account.
  await requireCapabilities(app, organizationId, userId, quoteCapabilities(quoteRecord))
  if (originNode.type === 'external-account') {
    const external = await externalAccountsOf(app).get(organizationId, originNode.id)
    if (external === undefined || external.status !== 'ok') throw external?.type === 'card' ? processingFailure('card-unauthorized') : unspecifiedError()
  }

  // The accounts the funds leave and reach: still there (not archived, for the origin).
  const accounts = accountsOf(app)
  let originAccountId: string | null = null
  if (originNode.type === 'account') {
    const origin = await accounts.get(organizationId, originNode.id)
    if (origin === undefined || origin.userId !== userId || origin.archivedAt !== null) throw nodeNotFound('origin')
    originAccountId = origin.id
  }
  let destinationAccountId: string | null = null
  let destinationOwner: string | null = null
  if (destinationNode.type === 'account') {
    const destination = await accounts.get(organizationId, destinationNode.id)
    if (destination === undefined) throw nodeNotFound('destination')
    destinationAccountId = destination.id
    destinationOwner = destination.userId
  } else if (destinationNode.type === 'crypto-address' && destinationNode.execution?.mode === 'offchain') {
    const destination = await accounts.find(destinationNode.execution.accountId)
    if (destination === undefined) throw nodeNotFound('destination')
    destinationAccountId = destination.id
    destinationOwner = destination.userId
  }

  // 3-D Secure: the card's authorization waits for the confirmation page, which returns to returnUrl.
  const needs3ds = quote.requirements.includes('authorize:3ds')
  const returnUrl = input.params?.requirements?.find(r => r.name === 'authorize:3ds')?.returnUrl ?? input.params?.returnUrl
  if (needs3ds && returnUrl === undefined) throw missingReturnUrl()
  const travelRuleMissing = quote.requirements.includes('travel-rule') && input.params?.travelRule === undefined

  const id = randomUUID()
  const iso = new Date(now).toISOString()
  const origin = needs3ds && originNode.type === 'external-account'
    ? { ...quote.origin, node: { ...originNode, confirmationUrl: confirmationUrl(base, id) } }
    : quote.origin
  const body: TransactionBody = { origin, destination: quote.destination, denomination: quote.denomination, fees: quote.fees, quotedAt: quoteRecord.createdAt }
  const withdrawal = destinationNode.type === 'external-account' || destinationNode.type === 'crypto-address' || destinationNode.type === 'apm'
  const destinationKey = destinationNode.type === 'crypto-address'
    ? `${destinationNode.network}:${destinationNode.address}:${destinationNode.reference ?? ''}`
    : destinationNode.type === 'external-account' ? destinationNode.id : destinationNode.type
  const record: TransactionRecord = {
    id,
    organizationId,
    userId,
    kind: 'transfer',
    quoteId: quoteRecord.id,
    status: 'processing',
    reason: null,
    body,
    originAccountId,
    destinationAccountId,
    holdAmount: originAccountId === null ? null : quote.origin.amount,
    settleAt: needs3ds || travelRuleMissing ? null : now + settlementDelayMs(app),
    authorization: needs3ds ? '3ds' : null,
    returnUrl: returnUrl ?? null,
    withdrawalKey: withdrawal && originAccountId !== null ? `${originAccountId}|${destinationKey}|${quote.origin.amount}` : null,
    createdAt: iso,
    updatedAt: iso,
    completedAt: null
  }
  const parties: Array<{ userId: string, accountId: string }> = []
  if (originAccountId !== null) parties.push({ userId, accountId: originAccountId })
  if (destinationAccountId !== null) parties.push({ userId: destinationOwner!, accountId: destinationAccountId })
  if (parties.length === 0) throw nodeNotFound('origin')
  // The maker sees it too when it moves funds from outside to another user's account.
  if (!parties.some(p => p.userId === userId)) parties.push({ userId, accountId: '' })
  const { metadata, errors } = metadataAtCreation(input.metadata, iso)
  const daily = await commitDailyLimit(app, quoteRecord, now)
  let limitError: ApiError | undefined
  const result = await ledgerOf(app).commit({
    input: { record, parties },
    hold: originAccountId === null ? undefined : { accountId: originAccountId, userId, asset: quote.origin.asset, total: '0', available: `-${quote.origin.amount}` },
    consume: async () => {
      limitError = daily === undefined ? undefined : daily.check(await quotes.usedSinceInWrite(userId, quoteRecord.limitGroup, daily.since))
      if (limitError !== undefined) return 'limit-exceeded'
      const consumed = await quotes.consumeInWrite(organizationId, quoteRecord.id, now)
      return consumed.ok ? 'ok' : consumed.reason === 'not-found' ? 'quote-not-found' : consumed.reason === 'used' ? 'quote-used' : 'quote-expired'
    },
    events: ledgerEvents(app),
    metadata,
    onHold: travelRuleMissing
  })
  if (!result.ok) {
    if (result.reason === 'insufficient-balance') throw insufficientBalance()
    if (result.reason === 'duplicate-withdrawal') throw duplicateWithdrawal()
    if (result.reason === 'limit-exceeded' && limitError !== undefined) throw limitError
    throw quoteNotFound()
  }
  const transaction = transactionView(result.transaction)
  return errors === undefined ? { transaction } : { transaction, errors }
}

export interface DepositInput {
  /** The transaction's id (a new one when absent). */
  id?: string
  organizationId: string
  /** The owner of the account credited. */
  userId: string
  accountId: string
  /** The origin node as the transaction shows it (`bank-address` with its network, or `crypto-address`). */
  originNode: Record<string, unknown>
  asset: string
  amount: string
  /** ACH: the funds stay unsettled for ACH_SETTLEMENT_SECONDS. */
  unsettled?: boolean
  /**
   * What the account receives when its asset is not the deposit's (converted on arrival), with
   * the rates the transaction shows; the deposit itself otherwise.
   */
  credit?: { asset: string, amount: string, originRate: string, destinationRate: string }
}

/**
 * A deposit arriving from outside (the test helpers): a transaction that credits the account at
 * once and completes, with its events (`created`, `status-changed`, `balance-changed`).
 */
export async function deposit (app: FastifyInstance, input: DepositInput): Promise<TransactionRecord> {
  const now = app.clock.now()
  const iso = new Date(now).toISOString()
  const account = await accountsOf(app).get(input.organizationId, input.accountId)
  if (account === undefined) throw entityNotFound('account')
  const record = depositRecord({ ...input, id: input.id ?? randomUUID() }, account, iso)
  const unsettled = input.unsettled === true && app.config.achSettlementSeconds > 0
    ? { until: now + app.config.achSettlementSeconds * 1000, reason: 'pending-ach-deposit-settlement' }
    : undefined
  return await ledgerOf(app).deposit({ record, parties: [{ userId: account.userId, accountId: account.id }] }, unsettled, now, ledgerEvents(app))
}

/** A deposit's transaction, processing, crediting `account` (its owner's) at `iso`. */
export function depositRecord (input: Omit<DepositInput, 'accountId' | 'unsettled'> & { id: string }, account: { id: string, userId: string }, iso: string): TransactionRecord {
  return {
    id: input.id,
    organizationId: input.organizationId,
    userId: input.userId,
    kind: 'deposit',
    quoteId: null,
    status: 'processing',
    reason: null,
    body: {
      origin: { asset: input.asset, amount: input.amount, rate: input.credit?.originRate ?? '1', node: input.originNode },
      destination: {
        asset: input.credit?.asset ?? input.asset,
        amount: input.credit?.amount ?? input.amount,
        rate: input.credit?.destinationRate ?? '1',
        node: { type: 'account', id: account.id, ownerId: account.userId }
      },
      denomination: { asset: input.asset, amount: input.amount, rate: '1', target: 'origin' },
      fees: [],
      quotedAt: iso
    },
    originAccountId: null,
    destinationAccountId: account.id,
    holdAmount: null,
    settleAt: null,
    authorization: null,
    returnUrl: null,
    withdrawalKey: null,
    createdAt: iso,
    updatedAt: iso,
    completedAt: null
  }
}

/**
 * Moves a transaction of any organization (the control API, the 3-D Secure page, the clock):
 * `completed`, `failed` (with `reason`), `on-hold` (a pending travel-rule RFI) or back to
 * `processing`. Undefined when there is no such transaction; 'final' when it has completed or failed.
 */
export async function changeTransactionStatus (app: FastifyInstance, id: string, status: TransactionStatus, reason: string | null = null):
Promise<TransactionRecord | undefined | 'final'> {
  const now = app.clock.now()
  const result = await ledgerOf(app).changeStatus(undefined, id, status, reason, now, status === 'processing' ? now + settlementDelayMs(app) : null, ledgerEvents(app))
  if (!result.ok) return result.reason === 'final' ? 'final' : undefined
  return result.transaction
}

/**
 * The 3-D Secure page's answer: approved, the transaction settles as any other; declined, it fails
 * (`card-unauthorized`). Undefined for no such transaction; 'final' when it waits for no
 * authorization (answered already, or decided otherwise).
 */
export async function authorize (app: FastifyInstance, id: string, approved: boolean): Promise<TransactionRecord | undefined | 'final'> {
  const now = app.clock.now()
  const result = await ledgerOf(app).authorize(id, approved, now, now + settlementDelayMs(app), ledgerEvents(app))
  if (!result.ok) return result.reason === 'not-found' ? undefined : 'final'
  return result.transaction
}

/** Closes a pending RFI unanswered (the clock's expiry, or the control API); its transaction on hold fails. */
export async function closeRfi (app: FastifyInstance, transactionId: string, rfiId: string, status: 'expired' | 'failed') {
  return await ledgerOf(app).closeRfi(transactionId, rfiId, status, app.clock.now(), ledgerEvents(app))
}

/** Answers an RFI; a transaction on hold with nothing else pending resumes processing. */
export async function answerRfi (app: FastifyInstance, transactionId: string, rfiId: string, data: Record<string, unknown>) {
  const now = app.clock.now()
  return await ledgerOf(app).answerRfi(transactionId, rfiId, data, now, now + settlementDelayMs(app), ledgerEvents(app))
}

/**
 * Completes the processing transactions whose settlement time has come, and settles unsettled
 * funds: now, every second and whenever the clock moves. Due times are stored, so a restart picks
 * them up. Returns the function that stops.
 */
export function followSettlements (app: FastifyInstance): () => Promise<void> {
  const settleDue = async (scope: DueScope): Promise<void> => {
    const ledger = ledgerOf(app)
    for (;;) {
      const now = app.clock.now()
      const due = await ledger.due(now, 100, scope)
      await allTogether(due, async id => await ledger.changeStatus(undefined, id, 'completed', null, now, null, ledgerEvents(app)))
      const funds = await ledger.settleFunds(now, 100, scope, ledgerEvents(app))
      const stale = await ledger.staleRfis(new Date(now - app.config.rfiExpirySeconds * 1000).toISOString(), 100, scope)
      await allTogether(stale, async rfi => await ledger.closeRfi(rfi.transactionId, rfi.id, 'expired', now, ledgerEvents(app)))
      if (due.length < 100 && funds < 100 && stale.length < 100) return
    }
  }
  const earliest = async (through: number): Promise<DueAt[]> => {
    const ledger = ledgerOf(app)
    const expiryMs = app.config.rfiExpirySeconds * 1000
    const stale = await ledger.oldestPendingRfis(new Date(through - expiryMs).toISOString())
    return [...await ledger.earliestDue(through), ...stale.map(r => ({ organizationId: r.organizationId, at: Date.parse(r.createdAt) + expiryMs }))]
  }
  return followDueWork(app, 'settling transactions', earliest, settleDue)
}
