// The ledger and transactions area: a double-entry ledger behind every balance, transactions that
// commit quotes (with holds, 3-D Secure, travel-rule RFIs and settlement on the sandbox clock),
// simulated deposits, and the ledger's answers to the accounts and users areas (balances,
// pending transactions, unsettled funds).
import type { FastifyInstance } from 'fastify'
import { defineArea } from '../kit/area.js'
import { config } from './config.js'
import { migrations } from './migrations.js'
import { followSettlements, ledgerOf } from './service.js'
import { transactionRoutes } from './routes.js'
import { depositRoutes } from './deposits.js'
import { rfiRoutes } from './rfis.js'
import { ledgerView } from './sandbox-view.js'
import { transactionsSandboxEntity } from './sandbox.js'
import { accountsPanel, transactionsPanel } from './dashboard-panels.js'

async function transactionsArea (app: FastifyInstance): Promise<void> {
  const stop = followSettlements(app)
  app.addHook('onClose', async () => { await stop() })
  // One context: the three share the area's schemas (each adds only its own).
  await transactionRoutes(app)
  await depositRoutes(app)
  await rfiRoutes(app)
  await ledgerView(app)
}

export default defineArea({
  config,
  name: 'transactions',
  // The `Transactions` tag is the quotes area's: quotes and the transactions that commit them.
  tags: [],
  migrations,
  // A transaction's metadata belongs to the user who made it (the depositor of a deposit).
  metadataEntities: [{
    segment: 'transactions',
    name: 'transaction',
    param: 'transactionId',
    title: 'transaction',
    operation: 'Transaction',
    ownerOf: async (app, organizationId, id) => (await ledgerOf(app).get(organizationId, id))?.userId
  }],
  sandboxEntities: [transactionsSandboxEntity],
  dashboardPanels: [accountsPanel, transactionsPanel],
  userHoldings: async (app, organizationId, userId) => await ledgerOf(app).userHoldings(organizationId, userId),
  accountLedger: async (app, _organizationId, accountId) => {
    const ledger = ledgerOf(app)
    const [balance, unsettled] = await Promise.all([ledger.balance(accountId), ledger.unsettled(accountId)])
    return { balance, ...(unsettled === undefined ? {} : { unsettled: { amount: unsettled.amount, settlementAt: new Date(unsettled.settlementAt).toISOString() } }) }
  },
  accountPending: async (app, _organizationId, accountId) => await ledgerOf(app).accountPending(accountId),
  // A deleted user's transactions leave their lists; the ledger keeps its records.
  removeUser: app => {
    const ledger = ledgerOf(app)
    return async (organizationId, userId) => { await ledger.removeUser(organizationId, userId) }
  },
  plugin: transactionsArea
})
