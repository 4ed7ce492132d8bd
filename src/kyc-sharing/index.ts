// The kyc-sharing area. (Routes land with their issue.)
import type { FastifyInstance } from 'fastify'

export default async function kycSharingArea (_app: FastifyInstance): Promise<void> {}
