// Per-request plumbing: the request-id header on every answer, and one JSON log line per request
// that names no secret (the URL's secret-bearing segments are masked, headers are not logged).
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import pino from 'pino'
import type { DestinationStream, Logger } from 'pino'
import { TurnBatch } from '../turn-batch.js'
import { maskLoneRuns } from './card-numbers.js'

// Segments of paths that carry a credential (the management link's token).
const SECRET_SEGMENT = /(\/webhooks\/portal\/)[^/?#]+/g

/**
 * A URL's path as logs show it: no query, no credential (the management link's token), no card
 * number (a run of 12 to 19 digits standing alone, masked to its last four, Luhn or not).
 */
export function redactUrl (url: string): string {
  const q = url.indexOf('?')
  const path = q < 0 ? url : url.slice(0, q)
  return maskLoneRuns(path.includes('/webhooks/portal/') ? path.replace(SECRET_SEGMENT, '$1[redacted]') : path)
}

async function requests (app: FastifyInstance): Promise<void> {
  const header = `x-${app.config.serviceName}-request-id`
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(header, request.id)
    done()
  })
  // The request line is written by hand, straight to the logger's destination, as pino would write
  // it (level, time, fields, msg). Its fields are fixed and none is secret (the path is masked), so
  // pino's generic work (a child's bindings, serializing an object key by key) buys nothing here:
  // without it a line costs about half as much (some 0.5 µs less per request). Every other line
  // still goes through pino.
  // The lines of the requests answered in one turn of the event loop are written together at its
  // end (turn-batch.ts says why). Each line's time is the moment its request was answered, so a
  // line may follow another logged a moment later.
  const destination = (app.log as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]
  const lines = new TurnBatch<Answered>(
    a => { destination.write(requestLine(a.requestId, a.method, redactUrl(a.url), a.status, a.elapsedMs, a.clientId, a.time)) },
    err => { app.log.error({ err }, 'a request line could not be written') }
  )
  app.addHook('onResponse', (request: FastifyRequest, reply, done) => {
    // A route may quieten its requests (the docs log at warn).
    if (!(request.log as Logger).isLevelEnabled('info')) return done()
    lines.add({ requestId: request.id, method: request.method, url: request.url, status: reply.statusCode, elapsedMs: reply.elapsedTime, clientId: request.auth?.clientId, time: Date.now() })
    done()
  })
  app.addHook('onClose', (_app, done) => {
    lines.flush()
    done()
  })
}

/** A request whose line is still to be written. */
interface Answered {
  requestId: string
  method: string
  url: string
  status: number
  elapsedMs: number
  clientId: string | undefined
  time: number
}

/** One request's log line, as pino writes `info({ requestId, method, path, status, durationMs, clientId }, 'request')`. */
export function requestLine (requestId: string, method: string, path: string, status: number, elapsedMs: number, clientId: string | undefined, time: number): string {
  const client = clientId === undefined ? '' : `,"clientId":${jsonString(clientId)}`
  return `{"level":30,"time":${time},"requestId":${jsonString(requestId)},"method":${jsonString(method)},"path":${jsonString(path)},"status":${status},"durationMs":${Math.round(elapsedMs * 100) / 100}${client},"msg":"request"}\n`
}

// Printable ASCII other than a quote or a backslash: JSON's string is the text between quotes.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

/** `JSON.stringify` of a string, without its cost for the plain ones (ids, methods, most paths). */
const jsonString = (text: string): string => PLAIN.test(text) ? `"${text}"` : JSON.stringify(text)

export default fp(requests, { name: 'requests' })
