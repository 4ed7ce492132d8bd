// the requests-for-information operations.
import type { FastifyInstance } from 'fastify'

export async function rfiRoutes (app: FastifyInstance): Promise<void> {
  app.log.trace('routes to come')
}
