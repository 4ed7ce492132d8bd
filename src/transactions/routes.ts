// core.create-transaction, core.get-transaction, core.list-transactions, core.list-account-transactions, the 3-D Secure page and the status control.
import type { FastifyInstance } from 'fastify'

export async function transactionRoutes (app: FastifyInstance): Promise<void> {
  app.log.trace('routes to come')
}
