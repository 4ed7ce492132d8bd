// The webhooks area. (Routes land with their issue.)
import type { FastifyInstance } from 'fastify'

export default async function webhooksArea (_app: FastifyInstance): Promise<void> {}
