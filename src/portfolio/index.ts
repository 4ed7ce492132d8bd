// The portfolio and statements area: read models over the ledger (balances, postings, completed
// transactions), valued in a denomination asset with the catalogue's prices. It writes nothing.
import type { FastifyInstance } from 'fastify'
import { defineArea } from '../kit/area.js'
import { operation } from '../kit/operation.js'
import { pageOf, pageRows, pageWindow, paginationFor } from '../http/pagination.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import {
  AssetParams, History, HistoryQuery, ManyAccountsRequest, ManyAssetsRequest, ManyPerformance, OnePerformance, Overview, OverviewQuery,
  PerformanceQuery, PortfolioAccountParams, PortfolioHistory, PortfolioHistoryQuery, PortfolioPerformance, PortfolioStatement,
  PortfolioStatementQuery, TransactionsStatement, TransactionsStatementQuery
} from '../../schemas/portfolio.js'
import { accountsOf } from '../accounts/service.js'
import {
  accountsPerformance, assetsPerformance, historicalBalance, knownAsset, overview, portfolioPerformance, portfolioStatement,
  statementPeriod, transactionsStatement, userAccount, valuer
} from './service.js'

const PORTFOLIO = 'Portfolio'
const STATEMENTS = 'Statements'
const USERS = ['user:business', 'user:individual'] as const
// Average-cost performance is the reference's for individual users only.
const INDIVIDUALS = ['user:individual'] as const

const VALUES = 'Values are in `denomination` (default USD) at the catalogue\'s mid prices of the instant (pinned prices included), ' +
  'cut toward zero to the denomination\'s decimals; a portfolio figure is the sum of its assets\' cut figures. An asset\'s performance ' +
  '(`/core/portfolio/assets/...`) is answered as computed, not cut, as the reference\'s asset examples show.'
const AVERAGE_COST = 'Average cost: every acquisition (a deposit, a completed trade or transfer into the asset) costs what the user paid for it, ' +
  'valued at that instant: the origin amount of its transaction, fees included, when it came from another asset, else the units received. ' +
  'A disposal takes its share of the cost at the average price (the average does not change). `totalInvested` is the cost of the units held, ' +
  '`averagePricePaid` that cost per unit, `unrealizedGains` their value now less their cost. With `interval` `one-hour` or `one-day`, the units ' +
  'held at the start of the period count as bought at their value then, so the gains are those of the period.'
const HISTORY = 'One point per step of the interval that ends at the sandbox clock\'s now (one-hour: every minute; one-day: 30 minutes; one-week: ' +
  '3 hours; one-month: 12 hours; one-year: 5 days). Each account\'s balance at a point is what its last posting at or before it left, valued at that ' +
  'instant\'s prices; `balance` is absent before the first posting.'
const STATEMENT = 'A statement covers one calendar month (UTC): it must have ended by the sandbox clock, and must not end before the user was created.'
const DENOMINATION_404 = '`entity_not_found` (`details.entity: "asset"`, `property: "denomination"`): no such denomination asset.'
const DENOMINATION_409 = '`asset_not_supported` (`property: "denomination"`): the denomination asset has no price now, or no features.'
const STATEMENT_409 = '`asset_not_supported`: the denomination is not an asset of the catalogue with a price; `date_invalid`: the period is not yet complete, ' +
  'or it predates the user\'s creation.'

async function portfolioRoutes (app: FastifyInstance): Promise<void> {
  const headers = UserContextHeaders(app.config.serviceName)

  operation(app, {
    id: 'getPortfolioOverview',
    method: 'GET',
    url: '/core/portfolio',
    tag: PORTFOLIO,
    scopes: ['core.portfolio:read'],
    subjects: USERS,
    summary: 'Get overview',
    description: 'The total value of the acting user\'s accounts and one holding per asset they hold (a total above zero, all accounts of the asset together), ' +
      `by asset code. ${VALUES} With \`includeBase\`, each holding also gives its amounts in its own asset.`,
    querystring: OverviewQuery,
    headers,
    responses: { 200: { description: 'Portfolio overview retrieved.', ...Overview }, 404: DENOMINATION_404, 409: DENOMINATION_409 }
  }, async (request) => {
    const v = await valuer(app, request.query.denomination)
    return await overview(app, request.auth.userId, v, request.query.includeBase === true)
  })

  operation(app, {
    id: 'getPortfolioPerformance',
    method: 'GET',
    url: '/core/portfolio/performance',
    tag: PORTFOLIO,
    scopes: ['core.portfolio:read'],
    subjects: INDIVIDUALS,
    summary: 'Get performance',
    description: `The sums of every asset's \`totalInvested\` and \`unrealizedGains\` (see the asset performance). ${AVERAGE_COST} ${VALUES}`,
    querystring: PerformanceQuery,
    headers,
    responses: { 200: { description: 'Portfolio performance retrieved.', ...PortfolioPerformance }, 404: DENOMINATION_404, 409: DENOMINATION_409 }
  }, async (request) => {
    const v = await valuer(app, request.query.denomination)
    return await portfolioPerformance(app, request.auth.userId, v, request.query.interval ?? 'one-day')
  })

  operation(app, {
    id: 'getPortfolioHistoricalBalance',
    method: 'GET',
    url: '/core/portfolio/historical-balance',
    tag: PORTFOLIO,
    scopes: ['core.portfolio:read'],
    subjects: USERS,
    summary: 'Get historical balance',
    description: `The value of all the acting user's accounts over time. ${HISTORY} ${VALUES}`,
    querystring: PortfolioHistoryQuery,
    headers,
    responses: { 200: { description: 'Portfolio historical balance retrieved.', ...PortfolioHistory }, 404: DENOMINATION_404, 409: DENOMINATION_409 }
  }, async (request) => {
    const v = await valuer(app, request.query.denomination)
    return await historicalBalance(app, request.auth.userId, v, { kind: 'portfolio' }, request.query.interval ?? 'one-day', false)
  })

  operation(app, {
    id: 'getPortfolioAssetPerformance',
    method: 'GET',
    url: '/core/portfolio/assets/:asset/performance',
    tag: PORTFOLIO,
    scopes: ['core.portfolio:read'],
    subjects: INDIVIDUALS,
    summary: 'Get asset performance',
    description: `The performance of all the acting user's accounts in the asset together (zeros for an asset never held). ${AVERAGE_COST} ${VALUES}`,
    params: AssetParams,
    querystring: PerformanceQuery,
    headers,
    responses: {
      200: { description: 'Portfolio asset performance retrieved.', ...OnePerformance },
      404: '`entity_not_found` (`details.entity: "asset"`): no such asset, or (`property: "denomination"`) no such denomination asset.',
      409: DENOMINATION_409
    }
  }, async (request) => {
    const v = await valuer(app, request.query.denomination)
    const asset = knownAsset(v, request.params.asset)
    const many = await assetsPerformance(app, request.auth.userId, v, [asset], request.query.interval ?? 'one-day')
    return { performance: many[asset] }
  })

  operation(app, {
    id: 'getPortfolioManyAssetsPerformance',
    method: 'POST',
    url: '/core/portfolio/assets/_mget/performance',
    tag: PORTFOLIO,
    scopes: ['core.portfolio:read'],
    subjects: INDIVIDUALS,
    summary: 'Get many assets performance',
    description: `The performance of each asset of \`codes\`, by asset code; codes that are not assets of the catalogue are left out. ${AVERAGE_COST} ${VALUES}`,
    querystring: PerformanceQuery,
    headers,
    body: ManyAssetsRequest,
    responses: { 200: { description: 'Portfolio assets performance retrieved.', ...ManyPerformance }, 404: DENOMINATION_404, 409: DENOMINATION_409 }
  }, async (request) => {
    const v = await valuer(app, request.query.denomination)
    const codes = [...new Set(request.body.codes)].filter(code => v.catalogue.asset(code) !== undefined)
    return { performance: await assetsPerformance(app, request.auth.userId, v, codes, request.query.interval ?? 'one-day') }
  })

  operation(app, {
    id: 'getPortfolioAssetHistoricalBalance',
    method: 'GET',
    url: '/core/portfolio/assets/:asset/historical-balance',
    tag: PORTFOLIO,
    scopes: ['core.portfolio:read'],
    subjects: USERS,
    summary: 'Get asset historical balance',
    description: `The value of all the acting user's accounts in the asset over time. ${HISTORY} ${VALUES} With \`includeBase\`, each point also gives the amounts in the asset.`,
    params: AssetParams,
    querystring: HistoryQuery,
    headers,
    responses: {
      200: { description: 'Portfolio asset historical balance retrieved.', ...History },
      404: '`entity_not_found` (`details.entity: "asset"`): no such asset, or (`property: "denomination"`) no such denomination asset.',
      409: DENOMINATION_409
    }
  }, async (request) => {
    const v = await valuer(app, request.query.denomination, { withEntity: true })
    const asset = knownAsset(v, request.params.asset)
    return await historicalBalance(app, request.auth.userId, v, { kind: 'asset', asset }, request.query.interval ?? 'one-day', request.query.includeBase === true)
  })

  operation(app, {
    id: 'getPortfolioAccountPerformance',
    method: 'GET',
    url: '/core/portfolio/accounts/:accountId/performance',
    tag: PORTFOLIO,
    scopes: ['core.portfolio:read'],
    subjects: INDIVIDUALS,
    summary: 'Get account performance',
    description: `The performance of one account of the acting user (archived or not). ${AVERAGE_COST} ${VALUES}`,
    params: PortfolioAccountParams,
    querystring: PerformanceQuery,
    headers,
    responses: {
      200: { description: 'Portfolio account performance retrieved.', ...OnePerformance },
      404: '`entity_not_found`: no such account of the acting user (`details.entity: "account"`), or no such denomination asset (`"asset"`).',
      409: DENOMINATION_409
    }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const v = await valuer(app, request.query.denomination)
    const account = await userAccount(app, organizationId, userId, request.params.accountId)
    const many = await accountsPerformance(app, userId, v, [account], request.query.interval ?? 'one-day')
    return { performance: many[account.id] }
  })

  operation(app, {
    id: 'getPortfolioManyAccountsPerformance',
    method: 'POST',
    url: '/core/portfolio/accounts/_mget/performance',
    tag: PORTFOLIO,
    scopes: ['core.portfolio:read'],
    subjects: INDIVIDUALS,
    summary: 'Get many accounts performance',
    description: `The performance of each account of \`ids\`, by account id; ids that are not accounts of the acting user are left out. ${AVERAGE_COST} ${VALUES}`,
    querystring: PerformanceQuery,
    headers,
    body: ManyAccountsRequest,
    responses: { 200: { description: 'Portfolio accounts performance retrieved.', ...ManyPerformance }, 404: DENOMINATION_404, 409: DENOMINATION_409 }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const v = await valuer(app, request.query.denomination)
    const accounts = accountsOf(app)
    const found = []
    for (const id of new Set(request.body.ids)) {
      const a = await accounts.get(organizationId, id)
      if (a !== undefined && a.userId === userId) found.push(a)
    }
    return { performance: await accountsPerformance(app, userId, v, found, request.query.interval ?? 'one-day') }
  })

  operation(app, {
    id: 'getPortfolioAccountHistoricalBalance',
    method: 'GET',
    url: '/core/portfolio/accounts/:accountId/historical-balance',
    tag: PORTFOLIO,
    scopes: ['core.portfolio:read'],
    subjects: USERS,
    summary: 'Get account historical balance',
    description: `The value of one account of the acting user over time. ${HISTORY} ${VALUES} With \`includeBase\`, each point also gives the amounts in the account's asset.`,
    params: PortfolioAccountParams,
    querystring: HistoryQuery,
    headers,
    responses: {
      200: { description: 'Portfolio account historical balance retrieved.', ...History },
      404: '`entity_not_found`: no such account of the acting user (`details.entity: "account"`), or no such denomination asset (`"asset"`).',
      409: DENOMINATION_409
    }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const v = await valuer(app, request.query.denomination, { withEntity: true })
    const account = await userAccount(app, organizationId, userId, request.params.accountId)
    return await historicalBalance(app, userId, v, { kind: 'account', account }, request.query.interval ?? 'one-day', request.query.includeBase === true)
  })

  operation(app, {
    id: 'getPortfolioStatement',
    method: 'GET',
    url: '/core/statements/portfolio',
    tag: STATEMENTS,
    scopes: ['core.statements:read'],
    subjects: USERS,
    summary: 'Get portfolio statement',
    description: 'What the acting user held at the end of the month, per asset (all accounts of the asset together, in the asset), with the mid rate of ' +
      `each asset in \`denomination\` at that instant (\`rates\`, keyed \`ASSET-DENOMINATION\`). ${STATEMENT}`,
    querystring: PortfolioStatementQuery,
    headers,
    responses: { 200: { description: 'Portfolio statement retrieved.', ...PortfolioStatement }, 409: STATEMENT_409 }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const v = await valuer(app, request.query.denomination, { unknownIsConflict: true })
    const period = await statementPeriod(app, organizationId, userId, request.query.year, request.query.month)
    return await portfolioStatement(app, userId, v, period)
  })

  operation(app, {
    id: 'getTransactionsStatement',
    method: 'GET',
    url: '/core/statements/transactions',
    tag: STATEMENTS,
    scopes: ['core.statements:read'],
    subjects: USERS,
    summary: 'Get transactions statement',
    description: 'The acting user\'s transactions that completed in the month, newest completion first, a page at a time (`page`, `perPage`), each with the ' +
      `mid rates of its origin and destination assets in \`denomination\` at its completion (\`rates\`, keyed \`ASSET-DENOMINATION\`). ${STATEMENT}`,
    querystring: TransactionsStatementQuery,
    headers,
    responses: { 200: { description: 'Transactions statement retrieved.', ...TransactionsStatement }, 409: STATEMENT_409 }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const v = await valuer(app, request.query.denomination, { unknownIsConflict: true })
    const period = await statementPeriod(app, organizationId, userId, request.query.year, request.query.month)
    const page = pageOf(request.query)
    const { offset, limit } = pageWindow(page)
    const statement = await transactionsStatement(app, organizationId, userId, v, period, offset, limit)
    const { items, hasNext } = pageRows(statement.transactions, page)
    return { statement: { ...statement, transactions: items }, pagination: paginationFor(request, app.config.publicUrl, page, hasNext) }
  })
}

export default defineArea({
  name: 'portfolio',
  tags: [
    { name: PORTFOLIO, description: 'Portfolio: what a user holds, its value over time and its performance, from the ledger.' },
    { name: STATEMENTS, description: 'Statements: monthly holdings and transactions.' }
  ],
  plugin: portfolioRoutes
})
