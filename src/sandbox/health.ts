import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { errorResponse } from '../../schemas/common.js'
import { serviceUnavailable } from '../errors.js'
import { control } from '../kit/operation.js'

export default async function health (app: FastifyInstance): Promise<void> {
  control(app, {
    id: 'sandboxHealth',
    method: 'GET',
    url: '/_sandbox/health',
    acts: 'open',
    summary: 'Health',
    description: 'Answers 200 once the app is ready and its database answers; 503 `service_unavailable` (the API\'s error body) while the database ' +
        'cannot be reached. Always open, even with an admin token set.',
    responses: {
      200: Type.Object({ status: Type.Literal('ok') }),
      503: errorResponse('The database cannot be reached (`service_unavailable`).')
    }
  }, async () => {
    const ok = await app.storage.ping().catch(() => false)
    // Thrown, so the one error handler renders it as every other 503.
    if (!ok) throw serviceUnavailable()
    return { status: 'ok' as const }
  })
}
