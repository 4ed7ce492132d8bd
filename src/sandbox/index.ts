// The sandbox control API under /_sandbox (not part of the real service).
import type { FastifyInstance } from 'fastify'
import health from './health.js'

export default async function sandboxArea (app: FastifyInstance): Promise<void> {
  await app.register(health)
}
