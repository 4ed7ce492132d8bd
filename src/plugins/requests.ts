// Per-request plumbing: the request-id header on every answer, the answers of one turn of the event
// loop written together at its end, and one JSON log line per request that names no secret (the
// URL's secret-bearing segments are masked, headers are not logged).
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
  writeAnswersAtTurnEnd(app)
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

/**
 * Holds every answer at its last step before the socket (the first of the onSend hooks, registered
 * before any other plugin's) until the end of the turn of the event loop that made it, then writes
 * the turn's answers one after another (TurnBatch, setImmediate).
 *
 * Why: a client waiting for its answer sleeps in the kernel, and the write that answers it must wake
 * it. Answered one by one between the turn's other requests, each answer woke its client again (the
 * client had gone back to sleep while the server handled the next request), and that wakeup is paid
 * inside the server's write: on a virtual machine an interrupt to the other processor, an exit to
 * the hypervisor. Measured under load (50 connections, one process answering metadata GETs, the
 * client on the same two cores): 1.3 to 1.8 context switches a request on the machine, and 140 to
 * 170 µs of the server's CPU a request, of which 40 in the socket's writev. Written together at the
 * turn's end, the first answer wakes the client and the rest reach it awake: 0.15 context switches
 * a request and about 100 µs (BENCHMARKS.md, eighteenth stop).
 *
 * What it costs: an answer waits for the rest of its turn (the requests that arrived with it) to be
 * handled, at most one turn; a lone request waits for nothing but the immediate. The answer's bytes,
 * headers and status are unchanged, and so is the order of the answers on one connection.
 */
function writeAnswersAtTurnEnd (app: FastifyInstance): void {
  const held = new TurnBatch<() => void>(
    write => { write() },
  err => { app.log.error({ err }, 'an answer could not be written') }
  )
  app.addHook('onSend', (_request, _reply, payload, done) => {
    held.add(() => { done(null, payload) })
  })
  app.addHook('onClose', (_app, done) => {
    held.flush()
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
