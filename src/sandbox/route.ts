// What every sandbox control route shares: the tag, the admin guard and its 401.
import type { FastifyReply, FastifyRequest, FastifySchema, HookHandlerDoneFunction } from 'fastify'
import { Type } from 'typebox'
import { adminSecurity } from '../auth/guard.js'
import { errorResponse } from '../../schemas/common.js'

export const adminConfig = { admin: true }

/** preValidation of routes whose body is optional: no body reads as `{}`. */
export function emptyBodyAsObject (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.body === undefined || request.body === null) request.body = {}
  done()
}

export const invalid = errorResponse('The request has missing or invalid parameters (`request_invalid`, with `details.violations`).')

/** The schema of a control route: tag `Sandbox`, admin security, and the guard's 401 added. */
export function control (schema: FastifySchema & { summary: string, operationId: string, description: string, response: Record<number, unknown> }): FastifySchema {
  return {
    tags: ['Sandbox'],
    security: adminSecurity,
    ...schema,
    response: {
      ...schema.response,
      401: errorResponse('The sandbox admin token is missing or invalid (`token_invalid`); checked only when SANDBOX_ADMIN_TOKEN is set.')
    }
  }
}

/** A response given by `$id` with its own description. */
export const ref = (id: string, description: string): Record<string, unknown> => ({ description, ...Type.Ref(id) })

export const noContent = (description: string): Record<string, unknown> => ({ description, type: 'null' })
