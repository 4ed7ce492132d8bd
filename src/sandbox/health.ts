import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { control } from '../kit/operation.js'

export default async function health (app: FastifyInstance): Promise<void> {
  control(app, {
    id: 'sandboxHealth',
    method: 'GET',
    url: '/_sandbox/health',
    open: true,
    summary: 'Health',
    description: 'Answers 200 once the app is ready and its database answers. Always open, even with an admin token set.',
    responses: {
      200: Type.Object({ status: Type.Literal('ok') }),
      503: Type.Object({ status: Type.Literal('unavailable') })
    }
  }, async (_request, reply) => {
    const ok = await app.storage.ping().catch(() => false)
    return ok ? { status: 'ok' as const } : reply.code(503).send({ status: 'unavailable' as const })
  })
}
