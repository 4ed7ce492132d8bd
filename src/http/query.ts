// Query arrays are comma-separated (`type=fiat,crypto`, OpenAPI `explode: false`); a repeated
// parameter is taken as well. This hook splits them before the schema checks each item.
import type { preValidationHookHandler } from 'fastify'

export const commaSeparated = (...names: string[]): preValidationHookHandler => (request, _reply, done) => {
  const query = request.query as Record<string, unknown>
  for (const name of names) {
    const value = query[name]
    if (typeof value === 'string') query[name] = value.split(',')
    else if (Array.isArray(value)) query[name] = value.flatMap(v => String(v).split(','))
  }
  done()
}
