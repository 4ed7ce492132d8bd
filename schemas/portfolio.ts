// The portfolio and statements contract: read models over the ledger, valued in a denomination
// asset with the catalogue's prices. Every figure is a decimal string.
import { Type, type Static } from 'typebox'
import { Timestamp, Uuid } from './common.js'
import { PageQuery } from './lists.js'

const Amount = (description: string) => Type.String({ description })

const Denomination = Type.String({
  minLength: 1,
  default: 'USD',
  description: 'The asset every value is given in (absent: USD). An unknown asset is 404 `entity_not_found`; an asset without a price is 409 `asset_not_supported`.'
})
const IncludeBase = Type.Boolean({ default: false, description: 'Also give each amount in the holding\'s own asset (`baseTotal`, `baseAvailable`).' })

export const PERFORMANCE_INTERVALS = ['one-hour', 'one-day', 'all-time'] as const
export type PerformanceInterval = typeof PERFORMANCE_INTERVALS[number]
export const HISTORICAL_BALANCE_INTERVALS = ['one-hour', 'one-day', 'one-week', 'one-month', 'one-year'] as const
export type HistoricalBalanceInterval = typeof HISTORICAL_BALANCE_INTERVALS[number]

const PerformanceIntervalQuery = Type.Enum(PERFORMANCE_INTERVALS, {
  default: 'one-day',
  description: '`all-time`: since the first acquisition. `one-hour`, `one-day`: over the period that ends now; units held at its start count as bought at their value then.'
})
const HistoricalIntervalQuery = Type.Enum(HISTORICAL_BALANCE_INTERVALS, {
  default: 'one-day',
  description: 'The period that ends at the sandbox clock\'s now; one point per step (a minute, 30 minutes, 3 hours, 12 hours, 5 days), as the historical rates have.'
})

// ---- Requests ----

export const OverviewQuery = Type.Object({ denomination: Type.Optional(Denomination), includeBase: Type.Optional(IncludeBase) })
export const PerformanceQuery = Type.Object({ denomination: Type.Optional(Denomination), interval: Type.Optional(PerformanceIntervalQuery) })
export type PerformanceQuery = Static<typeof PerformanceQuery>
export const PortfolioHistoryQuery = Type.Object({ denomination: Type.Optional(Denomination), interval: Type.Optional(HistoricalIntervalQuery) })
export const HistoryQuery = Type.Object({
  denomination: Type.Optional(Denomination),
  interval: Type.Optional(HistoricalIntervalQuery),
  includeBase: Type.Optional(IncludeBase)
})

export const AssetParams = Type.Object({ asset: Type.String({ minLength: 1, description: 'The asset code.' }) })
export const PortfolioAccountParams = Type.Object({ accountId: Type.String({ format: 'uuid', description: 'The account id.' }) })

export const ManyAssetsRequest = Type.Object({
  codes: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 100, description: 'The asset codes to retrieve.' })
}, { examples: [{ codes: ['BTC', 'ETH'] }] })
export const ManyAccountsRequest = Type.Object({
  ids: Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 100, description: 'The account ids to retrieve.' })
}, { examples: [{ ids: ['e4c1cbff-28a7-4602-9661-169e42040c22'] }] })

const StatementPeriodQuery = {
  period: Type.Enum(['one-month'], { description: 'The statement period type.' }),
  year: Type.Integer({ minimum: 2010, maximum: 2100, description: 'The statement year.' }),
  month: Type.Integer({ minimum: 1, maximum: 12, description: 'The statement month.' }),
  denomination: Type.Optional(Type.String({ minLength: 1, default: 'USD', description: 'The asset the rates are given in (absent: USD); an unknown asset or one without a price is 409 `asset_not_supported`.' }))
}
export const PortfolioStatementQuery = Type.Object(StatementPeriodQuery)
export type PortfolioStatementQuery = Static<typeof PortfolioStatementQuery>
export const TransactionsStatementQuery = Type.Object({ ...StatementPeriodQuery, ...PageQuery.properties })
export type TransactionsStatementQuery = Static<typeof TransactionsStatementQuery>

// ---- Answers ----

const Holding = Type.Object({
  asset: Type.String({ description: 'Asset code.' }),
  total: Amount('The value of everything held in the asset, in the denomination.'),
  available: Amount('The value of what can be spent now, in the denomination.'),
  baseTotal: Type.Optional(Amount('Everything held, in the asset itself (`includeBase`).')),
  baseAvailable: Type.Optional(Amount('What can be spent now, in the asset itself (`includeBase`).'))
})

export const Overview = Type.Object({
  summary: Type.Object({
    total: Amount('Total portfolio value: the sum of the holdings\' `total`.'),
    available: Amount('Available portfolio value: the sum of the holdings\' `available`.')
  }),
  holdings: Type.Array(Holding, { description: 'One per asset the user holds (a total above zero), by asset code.' })
})

const Performance = Type.Object({
  averagePricePaid: Amount('What one unit held cost on average, in the denomination (average cost).'),
  totalInvested: Amount('What the units held cost, in the denomination.'),
  unrealizedGains: Amount('Their value now less what they cost (negative: a loss).')
})
export type Performance = Static<typeof Performance>

export const PortfolioPerformance = Type.Object({
  performance: Type.Object({
    totalInvested: Amount('The sum of every asset\'s `totalInvested`.'),
    unrealizedGains: Amount('The sum of every asset\'s `unrealizedGains`.')
  })
})
export const OnePerformance = Type.Object({ performance: Performance })
export const ManyPerformance = Type.Object({
  performance: Type.Record(Type.String(), Performance, { description: 'By asset code (or account id) asked for; unknown ones are left out.' })
})

const Point = (base: boolean) => Type.Object({
  timestamp: { ...Timestamp, description: 'The instant of the point.' },
  balance: Type.Optional(Type.Object({
    total: Amount('The value of everything held at that instant, in the denomination.'),
    available: Amount('The value of what could be spent at that instant, in the denomination.'),
    ...(base
      ? {
          baseTotal: Type.Optional(Amount('Everything held, in the asset itself (`includeBase`).')),
          baseAvailable: Type.Optional(Amount('What could be spent, in the asset itself (`includeBase`).'))
        }
      : {})
  }, { description: 'Absent before the first movement of funds.' }))
})
export const PortfolioHistory = Type.Object({ historicalBalance: Type.Array(Point(false), { minItems: 1 }) })
export const History = Type.Object({ historicalBalance: Type.Array(Point(true), { minItems: 1 }) })

const Period = Type.Object({
  from: { ...Timestamp, description: 'The start of the statement period.' },
  to: { ...Timestamp, description: 'The end of the statement period (its last millisecond).' }
})
const Rates = Type.Record(Type.String(), Type.String(), { description: 'Mid rates keyed by asset-denomination pair (`BTC-USD`).' })

export const PortfolioStatement = Type.Object({
  statement: Type.Object({
    period: Period,
    rates: Rates,
    holdings: Type.Array(Type.Object({
      asset: Type.String({ description: 'The asset code.' }),
      total: Amount('The total amount held at the end of the period, in the asset.')
    }))
  })
})

const Node = Type.Object({ type: Type.String({ description: 'The type of the node.' }) }, { additionalProperties: true, description: 'The node, as the transaction shows it.' })
const Side = Type.Object({ asset: Type.String(), amount: Type.String(), rate: Type.String(), node: Node })
const StatementTransaction = Type.Object({
  id: Uuid,
  origin: Side,
  destination: Side,
  denomination: Type.Optional(Type.Object({ asset: Type.String(), amount: Type.String(), rate: Type.String(), target: Type.Enum(['origin', 'destination']) })),
  fees: Type.Array(Type.Object({
    type: Type.Enum(['deposit', 'exchange', 'network', 'withdrawal']),
    code: Type.String(),
    asset: Type.String(),
    amount: Type.String(),
    percentage: Type.Optional(Type.String())
  })),
  status: Type.Enum(['processing', 'on-hold', 'completed', 'failed']),
  statusDetails: Type.Optional(Type.Object({ reason: Type.String() })),
  quotedAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  completedAt: Type.Optional(Timestamp)
})

export const TransactionsStatement = Type.Object({
  statement: Type.Object({
    period: Period,
    transactions: Type.Array(Type.Object({
      rates: { ...Rates, description: 'Mid rates of its origin and destination assets at its completion, keyed by asset-denomination pair.' },
      transaction: StatementTransaction
    }))
  }),
  pagination: Type.Object({
    first: Type.String({ format: 'uri' }),
    prev: Type.Optional(Type.String({ format: 'uri' })),
    next: Type.Optional(Type.String({ format: 'uri' }))
  }, { description: 'Absolute links to other pages, keeping every other query parameter.' })
})
