// Which scopes a sandbox client may be given: the API's own, or a prefix ending in `*` that
// covers at least one of them.
import type { FastifyInstance } from 'fastify'
import { allScopes, scopeCovers } from '../auth/scopes.js'
import type { Violation } from '../errors.js'

export function scopeViolation (app: FastifyInstance, scope: string): Omit<Violation, 'property'> | undefined {
  const known = Object.keys(allScopes(app.config.partnerArea))
  if (scope.endsWith('*') ? known.some(k => scopeCovers(scope, k)) : known.includes(scope)) return undefined
  return { rule: 'scope', ruleParams: { scope } }
}
