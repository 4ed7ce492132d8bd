// core.simulate-bank-deposit and core.simulate-crypto-deposit.
import type { FastifyInstance } from 'fastify'

export async function depositRoutes (app: FastifyInstance): Promise<void> {
  app.log.trace('routes to come')
}
