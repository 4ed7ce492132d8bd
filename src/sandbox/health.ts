import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

export default async function health (app: FastifyInstance): Promise<void> {
  app.get('/_sandbox/health', {
    schema: {
      tags: ['Sandbox'],
      summary: 'Health',
      description: 'Answers 200 once the app is ready and its database answers. Always open, even with an admin token set.',
      operationId: 'sandboxHealth',
      response: {
        200: Type.Object({ status: Type.Literal('ok') }),
        503: Type.Object({ status: Type.Literal('unavailable') })
      }
    }
  }, async (_request, reply) => {
    const ok = await app.storage.ping().catch(() => false)
    return ok ? { status: 'ok' as const } : reply.code(503).send({ status: 'unavailable' as const })
  })
}
