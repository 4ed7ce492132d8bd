// The portfolio and statements as read models over the ledger: balances from the running figures,
// the past from the postings (each carries the balance it left), values in a denomination asset
// with the catalogue's prices at the instant that matters, average cost from the acquisitions.
//
// Rules every answer keeps (README "Portfolio and statements"):
// - a value is amount × (USD mid of the asset ÷ USD mid of the denomination) at the instant,
//   cut toward zero to the denomination's decimals; a portfolio figure is the sum of its assets'
//   cut figures, so it always equals what its parts show;
// - average cost: each acquisition (a posting that raises the total) costs what the user paid for
//   it, valued at that instant: the transaction's origin amount (fees included) when it came from
//   another asset, else the units themselves; a disposal takes its share of the cost at the
//   average (cost × units gone ÷ units held), leaving the average unchanged.
import type { FastifyInstance } from 'fastify'
import { ApiError, conflict, entityNotFound } from '../errors.js'
import { catalogueOf } from '../catalogue/lookup.js'
import { crossMid, historyInstants, usdMid } from '../catalogue/prices.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import { Decimal, cut, type DecimalValue } from '../money/decimal.js'
import { accountNotFound, accountsOf } from '../accounts/service.js'
import { ledgerOf, transactionView } from '../transactions/service.js'
import type { AccountRecord } from '../accounts/store.js'
import type { HistoricalBalanceInterval, Performance, PerformanceInterval } from '../../schemas/portfolio.js'
import { ledgerReaderOf, type HeldAt, type UserPosting } from '../transactions/reader.js'

const ZERO = new Decimal(0)
const HOUR = 3_600_000
const WINDOWS: Record<PerformanceInterval, number | undefined> = { 'one-hour': HOUR, 'one-day': 24 * HOUR, 'all-time': undefined }

// ---- Denomination and values ----

/** How the answer values amounts: the catalogue, the denomination and its decimals. */
export interface Valuer {
  catalogue: Catalogue
  denomination: string
  decimals: number
}

export interface DenominationErrors {
  /** Statements answer 409 for an unknown denomination too (they document no 404). */
  unknownIsConflict?: boolean
  /** The 409's details name the entity (`asset`), as the historical balances of an asset or account do. */
  withEntity?: boolean
}

const denominationNotFound = (): ApiError =>
  new ApiError(404, 'entity_not_found', 'The denomination asset cannot be found', { context: 'query', property: 'denomination', entity: 'asset' })
const denominationNotSupported = (withEntity: boolean): ApiError =>
  conflict('asset_not_supported', 'The denomination asset is not supported', { context: 'query', property: 'denomination', ...(withEntity ? { entity: 'asset' } : {}) })

/**
 * The denomination of an answer: an asset of the catalogue (else 404 `entity_not_found`) with a
 * price at the sandbox clock's now and at least one feature (else 409 `asset_not_supported`).
 */
export async function valuer (app: FastifyInstance, code: string | undefined, errors: DenominationErrors = {}): Promise<Valuer> {
  const denomination = code ?? 'USD'
  const catalogue = await catalogueOf(app)
  const asset = catalogue.asset(denomination)
  if (asset === undefined) throw errors.unknownIsConflict === true ? denominationNotSupported(errors.withEntity === true) : denominationNotFound()
  if (asset.features.length === 0 || usdMid(catalogue, denomination, app.clock.now()) === undefined) throw denominationNotSupported(errors.withEntity === true)
  return { catalogue, denomination, decimals: asset.decimals }
}

/** Units of the denomination one unit of `asset` is worth at `ms`; undefined when either has no price then. */
function priceOf (v: Valuer, asset: string, ms: number): Decimal | undefined {
  const a = usdMid(v.catalogue, asset, ms)
  const d = usdMid(v.catalogue, v.denomination, ms)
  return a === undefined || d === undefined ? undefined : a.div(d)
}

/** An amount of `asset` valued at `ms`, cut toward zero to the denomination's decimals (zero without a price). */
function valueOf (v: Valuer, asset: string, amount: DecimalValue, ms: number): Decimal {
  const price = priceOf(v, asset, ms)
  return price === undefined ? ZERO : cut(price.times(amount), v.decimals, 'receive')
}

/** A figure in the denomination: cut toward zero, written with all its decimals (never `-0`). */
const figure = (v: Valuer, value: Decimal): string => {
  const c = cut(value, v.decimals, 'receive')
  return (c.isZero() ? ZERO : c).toFixed(v.decimals)
}

/** An amount of `asset` in the asset itself, with its decimals. */
const baseAmount = (v: Valuer, asset: string, amount: Decimal): string => {
  const decimals = v.catalogue.asset(asset)?.decimals
  return decimals === undefined ? amount.toFixed() : cut(amount, decimals, 'receive').toFixed(decimals)
}

const sum = (values: Decimal[]): Decimal => values.reduce((a, b) => a.plus(b), ZERO)

// ---- Who and what ----

export const assetNotFound = (): ApiError => entityNotFound('asset')

/** The asset of a path: an asset of the catalogue, else 404. */
export function knownAsset (v: Valuer, code: string): string {
  if (v.catalogue.asset(code) === undefined) throw assetNotFound()
  return code
}

/** One of the acting user's accounts, else 404. */
export async function userAccount (app: FastifyInstance, organizationId: string, userId: string, accountId: string): Promise<AccountRecord> {
  const found = await accountsOf(app).get(organizationId, accountId)
  if (found === undefined || found.userId !== userId) throw accountNotFound()
  return found
}

// ---- Overview ----

interface Amounts { total: Decimal, available: Decimal }

function byAsset (rows: Array<{ asset: string, total: string, available: string }>): Map<string, Amounts> {
  const out = new Map<string, Amounts>()
  for (const r of rows) {
    const a = out.get(r.asset) ?? { total: ZERO, available: ZERO }
    out.set(r.asset, { total: a.total.plus(r.total), available: a.available.plus(r.available) })
  }
  return new Map([...out.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
}

export async function overview (app: FastifyInstance, userId: string, v: Valuer, includeBase: boolean) {
  const now = app.clock.now()
  const holdings = []
  for (const [asset, { total, available }] of byAsset(await ledgerReaderOf(app).balances(userId))) {
    if (total.isZero()) continue
    holdings.push({
      asset,
      total: valueOf(v, asset, total, now),
      available: valueOf(v, asset, available, now),
      ...(includeBase ? { baseTotal: baseAmount(v, asset, total), baseAvailable: baseAmount(v, asset, available) } : {})
    })
  }
  return {
    summary: { total: figure(v, sum(holdings.map(h => h.total))), available: figure(v, sum(holdings.map(h => h.available))) },
    holdings: holdings.map(h => ({ ...h, total: figure(v, h.total), available: figure(v, h.available) }))
  }
}

// ---- Historical balances ----

/** Which postings a series reads: all the user's, one asset's or one account's. */
export type Scope = { kind: 'portfolio' } | { kind: 'asset', asset: string } | { kind: 'account', account: AccountRecord }

const inScope = (scope: Scope) => (p: { asset: string, accountId: string }): boolean =>
  scope.kind === 'portfolio' ? true : scope.kind === 'asset' ? p.asset === scope.asset : p.accountId === scope.account.id

/** The balances by asset of accounts as they stood. */
const heldByAsset = (held: HeldAt[]): Map<string, Amounts> =>
  byAsset(held.map(h => ({ asset: h.asset, total: h.totalAfter, available: h.availableAfter })))

/**
 * The balances by asset at each instant, from the accounts' states there: each account's is what
 * its last posting at or before the instant left; undefined before the scope's first posting. The
 * read is one index seek per instant and account, not the user's history.
 */
async function balancesAt (app: FastifyInstance, userId: string, instants: number[], scope: Scope): Promise<Array<Map<string, Amounts> | undefined>> {
  const held = (await ledgerReaderOf(app).heldAt(userId, instants)).filter(inScope(scope))
  return instants.map(t => {
    const then = held.filter(h => h.at === t)
    return then.length === 0 ? undefined : heldByAsset(then)
  })
}

export async function historicalBalance (app: FastifyInstance, userId: string, v: Valuer, scope: Scope, interval: HistoricalBalanceInterval, includeBase: boolean) {
  const now = app.clock.now()
  const instants = historyInstants(interval, now)
  const points = await balancesAt(app, userId, instants, scope)
  return {
    historicalBalance: instants.map((t, i) => {
      const timestamp = new Date(t).toISOString()
      const assets = points[i]
      if (assets === undefined) return { timestamp }
      const entries = [...assets.entries()]
      const balance: Record<string, string> = {
        total: figure(v, sum(entries.map(([asset, a]) => valueOf(v, asset, a.total, t)))),
        available: figure(v, sum(entries.map(([asset, a]) => valueOf(v, asset, a.available, t))))
      }
      if (includeBase && scope.kind !== 'portfolio') {
        const asset = scope.kind === 'asset' ? scope.asset : scope.account.asset
        const a = assets.get(asset) ?? { total: ZERO, available: ZERO }
        balance.baseTotal = baseAmount(v, asset, a.total)
        balance.baseAvailable = baseAmount(v, asset, a.available)
      }
      return { timestamp, balance }
    })
  }
}

// ---- Performance (average cost) ----

interface Movement { at: number, units: Decimal, origin: UserPosting['origin'] }

/** The scope's postings as movements of units: the net change of the total per transaction. */
function movements (postings: UserPosting[]): Movement[] {
  const out: Array<Movement & { transactionId: string }> = []
  for (const p of postings) {
    const last = out.at(-1)
    if (last !== undefined && last.transactionId === p.transactionId && last.at === p.at) last.units = last.units.plus(p.total)
    else out.push({ transactionId: p.transactionId, at: p.at, units: new Decimal(p.total), origin: p.origin })
  }
  return out.filter(m => !m.units.isZero())
}

/**
 * What a performance reads: the accounts' states at the start of its window (`opening`) and the
 * postings after it; all time, no opening and the whole history (average cost needs every
 * acquisition). A windowed read is as long as the window, not as the user's history.
 */
interface Span { opening: HeldAt[], postings: UserPosting[] }

/**
 * Units held and what they cost, by average cost, for one asset's span: with a window start, the
 * units held then (the opening's totals) count as bought at their value then.
 */
export function averageCost (v: Valuer, asset: string, { opening, postings }: Span, windowStart: number | undefined): { units: Decimal, cost: Decimal } {
  let units = sum(opening.map(h => new Decimal(h.totalAfter)))
  let cost = units.isZero() || windowStart === undefined ? ZERO : units.times(priceOf(v, asset, windowStart) ?? ZERO)
  for (const m of movements(postings)) {
    if (m.units.isPositive()) {
      const paid = m.origin !== undefined && m.origin.asset !== asset
        ? priceOf(v, m.origin.asset, m.at)?.times(m.origin.amount)
        : priceOf(v, asset, m.at)?.times(m.units)
      cost = cost.plus(paid ?? ZERO)
      units = units.plus(m.units)
    } else {
      const gone = Decimal.min(m.units.neg(), units)
      if (units.isPositive()) cost = cost.minus(cost.times(gone).div(units))
      units = units.minus(gone)
      if (units.isZero()) cost = ZERO
    }
  }
  return { units, cost }
}

interface ExactPerformance { averagePricePaid: Decimal, totalInvested: Decimal, unrealizedGains: Decimal }

function performanceOf (v: Valuer, asset: string, span: PerformanceSpan, scope: Scope): ExactPerformance {
  const { now, windowStart } = span
  const { units, cost } = averageCost(v, asset, { opening: span.opening.filter(inScope(scope)), postings: span.postings.filter(inScope(scope)) }, windowStart)
  return {
    averagePricePaid: units.isZero() ? ZERO : cost.div(units),
    totalInvested: cost,
    unrealizedGains: units.times(priceOf(v, asset, now) ?? ZERO).minus(cost)
  }
}

const performanceView = (v: Valuer, p: ExactPerformance): Performance => ({
  averagePricePaid: figure(v, p.averagePricePaid),
  totalInvested: figure(v, p.totalInvested),
  unrealizedGains: figure(v, p.unrealizedGains)
})

/** A figure as computed, not cut (never `-0`). */
const exact = (value: Decimal): string => (value.isZero() ? ZERO : value).toFixed()

/**
 * An asset's performance as the reference's asset examples show it: the figures as computed, not
 * cut to the denomination's decimals (accounts and the whole portfolio are cut, as theirs are).
 */
const exactPerformanceView = (p: ExactPerformance): Performance => ({
  averagePricePaid: exact(p.averagePricePaid),
  totalInvested: exact(p.totalInvested),
  unrealizedGains: exact(p.unrealizedGains)
})

interface PerformanceSpan extends Span { now: number, windowStart: number | undefined }

/**
 * What a performance request reads: with a window, the accounts' state at its start and the
 * postings in it; all time, every posting up to now (average cost needs each acquisition).
 */
async function performanceSpan (app: FastifyInstance, userId: string, interval: PerformanceInterval): Promise<PerformanceSpan> {
  const now = app.clock.now()
  const window = WINDOWS[interval]
  const reader = ledgerReaderOf(app)
  if (window === undefined) return { opening: [], postings: await reader.postings(userId, now), now, windowStart: undefined }
  const windowStart = now - window
  return { opening: await reader.heldAt(userId, [windowStart]), postings: await reader.postings(userId, now, windowStart), now, windowStart }
}

export async function portfolioPerformance (app: FastifyInstance, userId: string, v: Valuer, interval: PerformanceInterval) {
  const span = await performanceSpan(app, userId, interval)
  const assets = [...new Set([...span.opening, ...span.postings].map(p => p.asset))].sort()
  const each = assets.map(asset => performanceView(v, performanceOf(v, asset, span, { kind: 'asset', asset })))
  return {
    performance: {
      totalInvested: figure(v, sum(each.map(p => new Decimal(p.totalInvested)))),
      unrealizedGains: figure(v, sum(each.map(p => new Decimal(p.unrealizedGains))))
    }
  }
}

export async function assetsPerformance (app: FastifyInstance, userId: string, v: Valuer, assets: string[], interval: PerformanceInterval): Promise<Record<string, Performance>> {
  const span = await performanceSpan(app, userId, interval)
  const out: Record<string, Performance> = {}
  for (const asset of assets) out[asset] = exactPerformanceView(performanceOf(v, asset, span, { kind: 'asset', asset }))
  return out
}

export async function accountsPerformance (app: FastifyInstance, userId: string, v: Valuer, accounts: AccountRecord[], interval: PerformanceInterval): Promise<Record<string, Performance>> {
  const span = await performanceSpan(app, userId, interval)
  const out: Record<string, Performance> = {}
  for (const a of accounts) out[a.id] = performanceView(v, performanceOf(v, a.asset, span, { kind: 'account', account: a }))
  return out
}

// ---- Statements ----

export interface Period { from: number, to: number }

const dateInvalid = (message: string): ApiError => conflict('date_invalid', message, { context: 'query' })

/**
 * The month asked for, from its first to its last millisecond (UTC): complete by the sandbox clock
 * (it has ended) and not wholly before the user was created, else 409 `date_invalid`.
 */
export async function statementPeriod (app: FastifyInstance, organizationId: string, userId: string, year: number, month: number): Promise<Period> {
  const from = Date.UTC(year, month - 1, 1)
  const to = Date.UTC(year, month, 1) - 1
  if (app.clock.now() <= to) throw dateInvalid('The statement period is not yet complete')
  const user = await app.storage.users.get(organizationId, userId)
  if (user !== undefined && Date.parse(user.createdAt) > to) throw dateInvalid('The statement period predates the user creation date')
  return { from, to }
}

const periodView = (p: Period) => ({ from: new Date(p.from).toISOString(), to: new Date(p.to).toISOString() })

/** Mid rates of the assets in the denomination at an instant, keyed `ASSET-DENOMINATION`. */
function ratesAt (v: Valuer, assets: string[], ms: number): Record<string, string> {
  const rates: Record<string, string> = {}
  for (const asset of assets) {
    const mid = crossMid(v.catalogue, asset, v.denomination, ms)
    if (mid !== undefined) rates[`${asset}-${v.denomination}`] = mid
  }
  return rates
}

export async function portfolioStatement (app: FastifyInstance, userId: string, v: Valuer, period: Period) {
  const held = heldByAsset(await ledgerReaderOf(app).heldAt(userId, [period.to]))
  const holdings = [...held.entries()]
    .filter(([, a]) => !a.total.isZero())
    .map(([asset, a]) => ({ asset, total: baseAmount(v, asset, a.total) }))
  return { statement: { period: periodView(period), rates: ratesAt(v, holdings.map(h => h.asset), period.to), holdings } }
}

export async function transactionsStatement (app: FastifyInstance, organizationId: string, userId: string, v: Valuer, period: Period, offset: number, limit: number) {
  const ids = await ledgerReaderOf(app).completedBetween(organizationId, userId, new Date(period.from).toISOString(), new Date(period.to).toISOString(), offset, limit)
  const ledger = ledgerOf(app)
  const transactions = []
  for (const id of ids) {
    const t = await ledger.get(organizationId, id)
    if (t === undefined) continue
    const at = Date.parse(t.completedAt ?? t.updatedAt)
    transactions.push({ rates: ratesAt(v, [...new Set([t.body.origin.asset, t.body.destination.asset])], at), transaction: transactionView(t) })
  }
  return { period: periodView(period), transactions }
}
