// The users area. (Routes land with their issue.)
import type { FastifyInstance } from 'fastify'

export default async function usersArea (_app: FastifyInstance): Promise<void> {}
