// Routes without a request body still get POSTed `Content-Type: application/json` with nothing
// after it by many HTTP clients: within a plugin, an empty JSON body reads as no body; any other
// body goes to Fastify's own parser (and its errors, rendered as 400 request_invalid).
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** Fastify's default JSON parser is the callback kind: it answers through `done`, and returns nothing. */
type CallbackParser = (request: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void) => void

export function acceptEmptyJson (app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error') as CallbackParser
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString()
    if (text.trim() === '') return done(null, undefined)
    parse(request, text, done)
  })
}
