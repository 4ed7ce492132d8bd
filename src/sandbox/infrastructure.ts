// Global hooks of the sandbox (request log, fault injection): registered before every area so
// they see every request.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

async function sandboxInfrastructure (_app: FastifyInstance): Promise<void> {}

export default fp(sandboxInfrastructure, { name: 'sandbox-infrastructure' })
