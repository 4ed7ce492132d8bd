// The metadata area. (Routes land with their issue.)
import type { FastifyInstance } from 'fastify'

export default async function metadataArea (_app: FastifyInstance): Promise<void> {}
