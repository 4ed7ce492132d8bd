// Quotes as the API makes them: the origin and destination nodes resolved and checked (ownership,
// status, features, networks, addresses), the rate from the catalogue's price model, fees, the
// amounts cut to each asset's decimals, requirements, limits, the user's capabilities, and the
// expiry on the sandbox clock. A quote is stored as answered and consumed once (`consumeQuote`).
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ApiError, conflict } from '../errors.js'
import { catalogueOf } from '../catalogue/lookup.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import { crossMid, crossRate } from '../catalogue/prices.js'
import { validateAddress } from '../catalogue/addresses.js'
import { operationNotAllowed } from '../http/user-context.js'
import { Decimal, cut, significant } from '../money/decimal.js'
import { requireCapabilities } from '../capabilities/service.js'
import type { CapabilityCode } from '../capabilities/evaluate.js'
import { accountsOf } from '../accounts/service.js'
import { externalAccountsOf } from '../external-accounts/service.js'
import type { ExternalAccountRecord } from '../external-accounts/store.js'
import { checkQuotePermissions } from '../external-accounts/permissions.js'
import type { ApmMethod, CreateQuoteRequest, DestinationNodeView, OriginNodeView, Quote } from '../../schemas/quotes.js'
import { price } from './pricing.js'
import { quotesStore, type ConsumeResult, type QuoteRecord, type QuotesStore } from './store.js'

export const quotesOf = (app: FastifyInstance): QuotesStore => app.storage.store(quotesStore)

/** How long a quote holds when the request names no `ttl`, and the least `ttl` it may name (ms). */
export const DEFAULT_TTL_MS = 30_000
export const MIN_TTL_MS = 18_000
/** A crypto withdrawal worth this much (USD) or more carries `travel-rule`. */
export const TRAVEL_RULE_USD = '1000'
/** The least a quote may move, in USD. */
export const MINIMUM_USD = '1'

/** Per-quote maximum and daily maximum (USD) of each limit group; a group without a daily limit has none. */
export const LIMITS: Record<string, { maximum: string, daily?: string }> = {
  'card-deposit': { maximum: '5000', daily: '10000' },
  'card-withdrawal': { maximum: '5000', daily: '10000' },
  'apm-deposit': { maximum: '2000', daily: '5000' },
  'apm-withdrawal': { maximum: '2000', daily: '5000' },
  'bank-deposit': { maximum: '25000' },
  'bank-withdrawal': { maximum: '25000' },
  'crypto-withdrawal': { maximum: '100000' },
  internal: { maximum: '1000000' }
}

/** Fees, as fractions of what the origin amount fetches, taken in the destination asset. */
export const FEES = {
  'card-deposit': { type: 'deposit', code: 'card-deposit', fraction: '0.015', percentage: '1.5' },
  'apm-deposit': { type: 'deposit', code: 'apm-deposit', fraction: '0.025', percentage: '2.5' },
  'crypto-network': { type: 'network', code: 'network-fee', fraction: '0.001', percentage: '0.1' }
} as const
type FeeKey = keyof typeof FEES

type Side = 'origin' | 'destination'

/** A node resolved: its asset and decimals, how the quote shows it, and what it means for checks. */
interface Resolved {
  asset: string
  view: DestinationNodeView
  kind: 'account' | 'card' | 'bank' | 'apm' | 'crypto'
  ownerId?: string
  external?: ExternalAccountRecord
  method?: ApmMethod
}

const nodeNotFound = (side: Side, entity: string): ApiError =>
  new ApiError(404, 'entity_not_found', `The ${side} cannot be found`, { entity, context: 'body', property: side })
const nodeInvalid = (message: string): ApiError => conflict('transaction_node_invalid', message)
const addressInvalid = (message: string, property: string): ApiError => conflict('crypto_address_invalid', message, { context: 'body', property })
const featureMissing = (side: Side, feature: string): ApiError =>
  conflict('asset_feature_not_available', `The '${feature}' feature is not available for the ${side} asset`, { context: 'body', property: side, feature })
const amountInvalid = (message: string, details: Record<string, unknown>): ApiError =>
  conflict('transaction_amount_invalid', message, { context: 'body', property: 'denomination', ...details })

async function resolveNode (app: FastifyInstance, catalogue: Catalogue, organizationId: string, userId: string, side: Side, node: CreateQuoteRequest['destination']): Promise<Resolved> {
  if (node.type === 'account') {
    const account = await accountsOf(app).get(organizationId, node.id)
    // The origin is one of the user's accounts; the destination any account of the organization.
    if (account === undefined || (side === 'origin' && account.userId !== userId)) throw nodeNotFound(side, 'account')
    return { asset: account.asset, kind: 'account', ownerId: account.userId, view: { type: 'account', id: account.id, ownerId: account.userId } }
  }
  if (node.type === 'external-account') {
    const external = await externalAccountsOf(app).get(organizationId, node.id)
    if (external === undefined || external.userId !== userId) throw nodeNotFound(side, 'external-account')
    if (external.status !== 'ok') throw nodeInvalid(`The ${side} node is invalid`)
    const feature = side === 'origin' ? 'deposit' : 'withdraw'
    if (!external.features.includes(feature)) throw nodeInvalid(`The ${side} external account lacks '${feature}' feature`)
    const secondary = (external.details.secondaryNetworks as Record<string, string[]> | undefined)?.[feature] ?? []
    if (node.network !== undefined && node.network !== external.network && !secondary.includes(node.network)) {
      throw nodeInvalid(`The ${side} external account does not support the specified network`)
    }
    const network = node.network ?? external.network
    return {
      asset: external.asset,
      kind: external.type === 'card' ? 'card' : 'bank',
      ownerId: external.userId,
      external,
      view: { type: 'external-account', id: external.id, ownerId: external.userId, network }
    }
  }
  if (node.type === 'apm') {
    const rail = catalogue.rails().find(r => r.type === 'apm' && r.network === node.method)
    if (rail === undefined) throw nodeNotFound(side, 'rail')
    if (!rail.features.includes(side === 'origin' ? 'deposit' : 'withdraw')) throw nodeInvalid(`The ${side} node is invalid`)
    return { asset: rail.asset, kind: 'apm', method: node.method, view: { type: 'apm', method: node.method } }
  }
  // A crypto address (destinations only).
  const rail = catalogue.rails().find(r => r.type === 'crypto' && r.asset === node.asset && r.network === node.network)
  if (rail === undefined || !rail.features.includes('withdraw')) {
    throw new ApiError(404, 'entity_not_found', 'A rail for the specified destination asset and network cannot be found', { entity: 'rail', context: 'body', property: 'destination' })
  }
  const network = catalogue.network(node.network)!
  const validation = validateAddress(network, node.address, node.reference)
  if (!validation.isValid) {
    const code = validation.error?.code
    if (code === 'reference_missing') throw addressInvalid('The crypto address reference is missing', 'destination.reference')
    if (code === 'reference_invalid') throw addressInvalid('The crypto address reference is invalid', 'destination.reference')
    throw addressInvalid('The crypto address is invalid', 'destination.address')
  }
  // An address of an account of this service moves the funds between accounts; the sandbox sends nothing on chain.
  const owner = await accountsOf(app).routeDeposit(`crypto:${node.network}`, node.address)
  const execution = owner === undefined ? { mode: 'simulated' as const } : { mode: 'offchain' as const, accountId: owner.id, accountOwnerId: owner.userId }
  return {
    asset: node.asset,
    kind: 'crypto',
    view: { type: 'crypto-address', network: node.network, address: node.address, ...(node.reference === undefined ? {} : { reference: node.reference }), execution }
  }
}

/** The features each side's asset needs: selling and buying when the assets differ, else moving it in or out. */
function checkFeatures (catalogue: Catalogue, origin: Resolved, destination: Resolved): void {
  const has = (asset: string, feature: string): boolean => catalogue.asset(asset)?.features.includes(feature as never) === true
  if (origin.asset !== destination.asset) {
    if (!has(origin.asset, 'sell')) throw featureMissing('origin', 'sell')
    if (!has(destination.asset, 'buy')) throw featureMissing('destination', 'buy')
  }
  if (origin.kind !== 'account' && !has(origin.asset, 'deposit')) throw featureMissing('origin', 'deposit')
  if (destination.kind !== 'account' && !has(destination.asset, 'withdraw')) throw featureMissing('destination', 'withdraw')
  if (origin.kind === 'account' && destination.kind === 'account' && origin.asset === destination.asset && !has(origin.asset, 'transfer')) {
    throw featureMissing('origin', 'transfer')
  }
}

/** The limit group: what kind of movement it is. */
function limitGroup (origin: Resolved, destination: Resolved): string {
  if (origin.kind === 'card') return 'card-deposit'
  if (origin.kind === 'apm') return 'apm-deposit'
  if (origin.kind === 'bank') return 'bank-deposit'
  if (destination.kind === 'card') return 'card-withdrawal'
  if (destination.kind === 'apm') return 'apm-withdrawal'
  if (destination.kind === 'bank') return 'bank-withdrawal'
  if (destination.kind === 'crypto') return 'crypto-withdrawal'
  return 'internal'
}

function feeKeys (origin: Resolved, destination: Resolved): FeeKey[] {
  const keys: FeeKey[] = []
  if (origin.kind === 'card') keys.push('card-deposit')
  if (origin.kind === 'apm') keys.push('apm-deposit')
  if (destination.kind === 'crypto' && destination.view.type === 'crypto-address' && destination.view.execution?.mode !== 'offchain') keys.push('crypto-network')
  return keys
}

function capabilitiesFor (userId: string, origin: Resolved, destination: Resolved): CapabilityCode[] {
  const codes: CapabilityCode[] = []
  if (origin.kind === 'card') codes.push('cards', 'deposits')
  if (origin.kind === 'bank') codes.push('bank-deposits')
  if (origin.kind === 'apm') codes.push(origin.method!, 'deposits')
  if (origin.asset !== destination.asset) codes.push('trades')
  if (destination.kind === 'card') codes.push('card-withdrawals')
  if (destination.kind === 'bank') codes.push('bank-withdrawals')
  if (destination.kind === 'apm') codes.push(`${destination.method!}-withdrawals` as CapabilityCode)
  if (destination.kind === 'crypto') codes.push('crypto-withdrawals')
  if (destination.kind === 'account' && destination.ownerId !== userId) codes.push('sends')
  return codes
}

/** Units of `to` per unit of `from` at `now` (the model's mid); undefined when either has no price. */
const midRate = (catalogue: Catalogue, from: string, to: string, now: number): string | undefined => crossMid(catalogue, from, to, now)

const decimalsOf = (catalogue: Catalogue, asset: string): number => catalogue.asset(asset)?.decimals ?? 2

/** A JSON number for the reference's numeric limit details, from a decimal cut to its asset's decimals. */
const asNumber = (value: Decimal): number => Number(value.toFixed())

async function checkLimits (app: FastifyInstance, catalogue: Catalogue, userId: string, group: string, usdValue: Decimal, denomination: string, now: number): Promise<void> {
  const fromUsd = midRate(catalogue, 'USD', denomination, now)
  if (fromUsd === undefined) return
  const decimals = decimalsOf(catalogue, denomination)
  const inDenomination = (usd: string | Decimal, side: 'pay' | 'receive'): Decimal => cut(new Decimal(usd).times(fromUsd), decimals, side)
  if (usdValue.lt(MINIMUM_USD)) {
    throw amountInvalid('The amount minimum limit was not met', { rule: 'minimum-limit-not-met', limit: { minimumAmount: asNumber(inDenomination(MINIMUM_USD, 'pay')) } })
  }
  const limits = LIMITS[group]
  if (usdValue.gt(limits.maximum)) {
    throw amountInvalid('The amount maximum limit was exceeded', { rule: 'maximum-limit-exceeded', limit: { maximumAmount: asNumber(inDenomination(limits.maximum, 'receive')) } })
  }
  if (limits.daily === undefined) return
  const exceeded = dailyLimitCheck(limits.daily, usdValue, inDenomination, decimals)
  const error = exceeded(await quotesOf(app).usedSince(userId, group, dayStartOf(now)))
  if (error !== undefined) throw error
}

const dayStartOf = (now: number): number => {
  const day = new Date(now)
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate())
}

/** The daily limit's check, given the USD values of the group's quotes consumed today: the 409, or undefined. */
const dailyLimitCheck = (daily: string, usdValue: Decimal, inDenomination: (usd: string | Decimal, side: 'pay' | 'receive') => Decimal, decimals: number) =>
  (used: string[]): ApiError | undefined => {
    const remaining = Decimal.max(new Decimal(daily).minus(used.reduce((a, v) => a.plus(v), new Decimal(0))), 0)
    if (usdValue.lte(remaining)) return undefined
    return amountInvalid('The amount exceeds the daily limit', {
      rule: 'amount-exceeds-daily-limit',
      limit: { maximumAmount: inDenomination(daily, 'receive').toFixed(decimals), remainingAmount: inDenomination(remaining, 'receive').toFixed(decimals) }
    })
  }

/**
 * The daily limit a quote must still fit when it is committed (others of its group may have been
 * committed since it was given): undefined for a group without one. `check` runs inside the
 * commit's write, with the USD values the quotes store's `usedSinceInWrite` reads from `since`, so
 * concurrent commits cannot together pass it.
 */
export async function commitDailyLimit (app: FastifyInstance, record: QuoteRecord, now: number):
Promise<{ since: number, check: (used: string[]) => ApiError | undefined } | undefined> {
  const daily = LIMITS[record.limitGroup]?.daily
  if (daily === undefined) return undefined
  const catalogue = await catalogueOf(app)
  const denomination = record.quote.denomination.asset
  const fromUsd = midRate(catalogue, 'USD', denomination, now)
  if (fromUsd === undefined) return undefined
  const decimals = decimalsOf(catalogue, denomination)
  const inDenomination = (usd: string | Decimal, side: 'pay' | 'receive'): Decimal => cut(new Decimal(usd).times(fromUsd), decimals, side)
  return { since: dayStartOf(now), check: dailyLimitCheck(daily, new Decimal(record.usdValue), inDenomination, decimals) }
}

/**
 * `transacting-unsettled-funds`: the origin account's available balance does not cover `amount`,
 * but would with its funds not yet settled (ACH deposits). Without enough even then, the quote is
 * given, and committing it answers `insufficient_balance`.
 */
async function checkUnsettledFunds (app: FastifyInstance, organizationId: string, accountId: string, amount: string, decimals: number): Promise<void> {
  const ledger = await app.areas.accountLedger(app, organizationId, accountId)
  const available = new Decimal(ledger.balance.available)
  if (ledger.unsettled === undefined || available.gte(amount) || available.plus(ledger.unsettled.amount).lt(amount)) return
  throw amountInvalid('The amount is invalid due to unsettled funds', {
    rule: 'transacting-unsettled-funds',
    unsettledFunds: {
      settlementAt: ledger.unsettled.settlementAt,
      shortfallAmount: new Decimal(amount).minus(available).toFixed(decimals),
      reasons: ['pending-ach-deposit-settlement']
    }
  })
}

/**
 * The capabilities committing a quote needs: those it was quoted with, from its stored nodes and
 * limit group (the user's capabilities may have changed since).
 */
export function quoteCapabilities (record: QuoteRecord): CapabilityCode[] {
  const { origin, destination } = record.quote
  const side = (node: DestinationNodeView, asset: string, externalKind: Resolved['kind']): Resolved => {
    if (node.type === 'account') return { asset, view: node, kind: 'account', ownerId: node.ownerId }
    if (node.type === 'external-account') return { asset, view: node, kind: externalKind, ownerId: node.ownerId }
    if (node.type === 'apm') return { asset, view: node, kind: 'apm', method: node.method }
    return { asset, view: node, kind: 'crypto' }
  }
  const group = record.limitGroup
  return capabilitiesFor(
    record.userId,
    side(origin.node, origin.asset, group === 'card-deposit' ? 'card' : 'bank'),
    side(destination.node, destination.asset, group === 'card-withdrawal' ? 'card' : 'bank')
  )
}

export async function createQuote (app: FastifyInstance, organizationId: string, userId: string, input: CreateQuoteRequest): Promise<Quote> {
  await checkQuotePermissions(app, organizationId, input)
  const now = app.clock.now()
  const catalogue = await catalogueOf(app)
  const target = input.denomination.target ?? 'origin'
  const denomination = catalogue.asset(input.denomination.asset)
  if (denomination === undefined) {
    throw new ApiError(404, 'entity_not_found', 'The denomination asset cannot be found', { entity: 'asset', context: 'body', property: 'denomination.asset' })
  }
  const origin = await resolveNode(app, catalogue, organizationId, userId, 'origin', input.origin)
  const destination = await resolveNode(app, catalogue, organizationId, userId, 'destination', input.destination)
  if (input.origin.type !== 'account' && input.destination.type !== 'account') throw nodeInvalid('The origin node is invalid')
  if (input.origin.type === 'account' && input.destination.type === 'account' && input.origin.id === input.destination.id) throw nodeInvalid('The destination node is invalid')
  checkFeatures(catalogue, origin, destination)
  if (input.ttl !== undefined && input.ttl < MIN_TTL_MS) {
    throw conflict('number_invalid', `The number must be greater than or equal to ${MIN_TTL_MS}`, {
      context: 'body', property: 'ttl', rule: 'greater-than-or-equal-to-threshold', threshold: { limit: MIN_TTL_MS }
    })
  }
  const targetAsset = target === 'origin' ? origin.asset : destination.asset
  const rate = crossRate(catalogue, origin.asset, destination.asset, now)?.bid
  const denominationRate = midRate(catalogue, denomination.code, targetAsset, now)
  const originUsd = midRate(catalogue, origin.asset, 'USD', now)
  if (rate === undefined || denominationRate === undefined || originUsd === undefined) {
    throw operationNotAllowed(['unspecified-error'], 'Transaction not allowed due to an unspecified error')
  }
  const fees = feeKeys(origin, destination)
  const priced = price({
    rate,
    originDecimals: decimalsOf(catalogue, origin.asset),
    destinationDecimals: decimalsOf(catalogue, destination.asset),
    fees: fees.map(k => FEES[k].fraction),
    target,
    amount: new Decimal(input.denomination.amount).times(denominationRate).toFixed()
  })
  const group = limitGroup(origin, destination)
  const usdValue = new Decimal(priced.origin).times(originUsd)
  await checkLimits(app, catalogue, userId, group, usdValue, denomination.code, now)
  if (new Decimal(priced.destination).lte(0)) {
    throw amountInvalid('The amount minimum limit was not met', { rule: 'minimum-limit-not-met', limit: { minimumAmount: asNumber(cut(new Decimal(MINIMUM_USD).times(midRate(catalogue, 'USD', denomination.code, now)!), denomination.decimals, 'pay')) } })
  }
  if (input.origin.type === 'account') await checkUnsettledFunds(app, organizationId, input.origin.id, priced.origin, decimalsOf(catalogue, origin.asset))
  await requireCapabilities(app, organizationId, userId, capabilitiesFor(userId, origin, destination))

  const requirements: Quote['requirements'] = []
  if (destination.kind === 'crypto' && destination.view.type === 'crypto-address' && destination.view.execution?.mode !== 'offchain' && usdValue.gte(TRAVEL_RULE_USD)) {
    requirements.push('travel-rule')
  }
  if (origin.external?.behaviour === '3ds') requirements.push('authorize:3ds')
  if (origin.kind === 'apm') requirements.push(`authorize:${origin.method!}`)
  if (destination.kind === 'apm' && origin.kind !== 'apm') requirements.push(`authorize:${destination.method!}`)

  const ttl = input.ttl ?? DEFAULT_TTL_MS
  const quote: Quote = {
    id: randomUUID(),
    origin: { asset: origin.asset, amount: priced.origin, rate: significant(new Decimal(1).div(rate), 20, Decimal.ROUND_UP).toFixed(), node: origin.view as OriginNodeView },
    destination: { asset: destination.asset, amount: priced.destination, rate, node: destination.view },
    denomination: { asset: denomination.code, amount: input.denomination.amount, rate: denominationRate, target },
    fees: fees.map((k, i) => ({ type: FEES[k].type, code: FEES[k].code, asset: destination.asset, amount: priced.fees[i], percentage: FEES[k].percentage })),
    requirements,
    expiresAt: new Date(now + ttl).toISOString()
  }
  await quotesOf(app).create({
    id: quote.id,
    organizationId,
    userId,
    quote,
    limitGroup: group,
    usdValue: usdValue.toFixed(),
    expiresAt: now + ttl,
    usedAt: null,
    createdAt: new Date(now).toISOString()
  })
  return quote
}

/**
 * Consumes a quote once, for the ledger (area 5) as it commits a transaction: refused when it does
 * not exist in the organization, was used, or has expired on the sandbox clock.
 */
export const consumeQuote = (app: FastifyInstance, organizationId: string, quoteId: string, now = app.clock.now()): Promise<ConsumeResult> =>
  quotesOf(app).consume(organizationId, quoteId, now)
