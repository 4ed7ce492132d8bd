// The request log: the last N requests. On SQLite, a ring buffer in memory; on PostgreSQL, a table
// every replica writes to and reads (RequestLogging, at the end of this file, says why each).
// The ring: recording does little: the request's headers are written with their credentials
// masked and the client they name is read (no credential stays in memory), and the entry is kept
// as text (entry-text.ts), packed in off-heap pages (packed-texts.ts). Masking bodies, cutting long
// ones and formatting happen when someone reads the log.
// Why text off the heap: entries kept as objects outlive a couple of young-generation collections
// under load, so the garbage collector promoted each one to the old generation, which then grew
// by megabytes a second and cost more CPU than the rest of the request's logging.
// Entries are written at the end of the event loop's turn that answered their requests, all of
// that turn's together (turn-batch.ts says why). Until then a request is held by reference; the
// time and the duration are taken when it is recorded, and every read of the log writes what is
// pending first.
import { bindContext } from '../async-context.js'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../clock.js'
import { redactUrl } from '../plugins/requests.js'
import { EntryReader, EntryWriter } from './entry-text.js'
import { PackedTexts } from './packed-texts.js'
import { TurnBatch } from '../turn-batch.js'
import { isCardLike, isCardPath, maskCardNumberField, maskCardText, maskLoneRuns, maskLuhnRuns } from '../plugins/card-numbers.js'
import { refusedTokenClient, tokenEndpointClient } from '../auth/named-client.js'
import { isUnavailable, type Db } from '../storage/db.js'
import { requestLogStore, type RequestLogRow, type RequestLogStore } from './store.js'

const BODY_LIMIT = 4096
// A longer answer is cut when recorded, so the log never holds large documents (/openapi.json).
const KEEP_LIMIT = BODY_LIMIT * 4
/** The most text one entry can hold, about: a kept answer, a kept request body and the headers. */
export const LARGEST_ENTRY_CHARS = 3 * KEEP_LIMIT
const MASK = '[redacted]'
const SECRET_FIELDS = new Set([
  'client_secret', 'clientSecret', 'secret', 'signingSecret', 'access_token', 'accessToken',
  'refresh_token', 'refreshToken', 'password', 'token', 'adminToken', 'securityCode'
])
const SECRET_TEXT = new RegExp(`("(?:${[...SECRET_FIELDS].join('|')})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g')
const TOKEN_ENDPOINT = '/core/oauth2/token'

interface Recorded {
  at: number
  method: string
  url: string
  status: number
  durationMs: number
  requestId: string
  clientId: string | null
  headers: Record<string, unknown>
  body: unknown
  responseHeaders: Record<string, unknown>
  payload: string | null
}

export interface Message { headers: Record<string, unknown>, body?: unknown, truncated?: boolean }

export interface RequestLogEntry {
  requestId: string
  timestamp: string
  method: string
  path: string
  status: number
  durationMs: number
  clientId: string | null
  request: Message
  response: Message
}

export interface RequestLogFilter {
  method?: string
  path?: string
  status?: string
  clientId?: string
  /** Only the requests made by these clients (an organization's). */
  clientIds?: readonly string[]
  limit?: number
  /** Matching entries to skip, newest first, before the `limit` kept (paging). */
  offset?: number
}

/** `*` matches any run of characters; everything else is literal. */
export function globMatcher (pattern: string): (value: string) => boolean {
  if (!pattern.includes('*')) return value => value === pattern
  const re = new RegExp('^' + pattern.split('*').map(s => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$')
  return value => re.test(value)
}

// A number of 12 to 19 digits in a card's context, as a JSON number rather than text.
const isLongNumber = (value: unknown): boolean =>
  (typeof value === 'number' && Number.isFinite(value) && Math.abs(value) >= 1e11) || typeof value === 'bigint'

/**
 * A value as the log keeps it: secrets masked, and card numbers (card-numbers.ts): in a card's
 * context (`card`, or an object that is a card) its `number` and any card-number-like run, Luhn or
 * not; elsewhere runs that pass Luhn. Deeper than 32 levels, nothing is kept.
 */
function maskValues (value: unknown, card: boolean, depth = 0): unknown {
  if (depth > 32) return MASK
  if (value === null || typeof value !== 'object') {
    if (card && isLongNumber(value)) return maskCardNumberField(value)
    if (typeof value !== 'string') return value
    // The management link's URL carries its credential in the path.
    const text = value.includes('/webhooks/portal/') ? redactUrl(value) : value
    return card ? maskCardText(text) : maskLuhnRuns(text)
  }
  if (Array.isArray(value)) return value.map(v => maskValues(v, card, depth + 1))
  const inCard = card || isCardLike(value as Record<string, unknown>)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_FIELDS.has(k) && v !== null && v !== undefined) out[k] = MASK
    else if (inCard && k === 'number') out[k] = maskCardNumberField(v)
    else out[k] = maskValues(v, inCard, depth + 1)
  }
  return out
}

// Text that names a card's fields is a card's context, even when it is no JSON.
const CARD_WORDS = /card|securityCode|expiryDate/i

function maskText (text: string, card: boolean): string {
  const masked = text.replace(SECRET_TEXT, `$1"${MASK}"`).replace(/(\/webhooks\/portal\/)[^/?#"\s]+/g, `$1${MASK}`)
  return card || CARD_WORDS.test(masked) ? maskCardText(masked) : maskLuhnRuns(masked)
}

/** A body as the log shows it: masked (`card`: in a card's context), and cut (as text) beyond 4096 characters. */
function showBody (body: unknown, isText: boolean, card: boolean): { body?: unknown, truncated?: boolean } {
  if (body === undefined || body === null || body === '') return {}
  if (body instanceof LargeBody) return { body: `[${body.bytes} bytes, not kept]`, truncated: true }
  if (typeof body === 'string') {
    if (isText && body.length <= BODY_LIMIT) {
      try { return { body: maskValues(JSON.parse(body), card) } } catch {}
    }
    const masked = maskText(body, card)
    return masked.length > BODY_LIMIT ? { body: masked.slice(0, BODY_LIMIT), truncated: true } : { body: masked }
  }
  const masked = maskValues(body, card)
  const text = JSON.stringify(masked)
  // A body no JSON can show (the token endpoint marks one it refused unread with a symbol) is left out.
  if (text === undefined) return {}
  if (text.length > BODY_LIMIT) return { body: text.slice(0, BODY_LIMIT), truncated: true }
  return { body: masked }
}

/** An authorization header's value as the log shows it: its scheme, if it has one, and the mask. */
function maskCredentials (value: unknown): string {
  if (typeof value !== 'string') return MASK
  const space = value.indexOf(' ')
  const scheme = space < 0 ? value : value.slice(0, space)
  return /^[A-Za-z]+$/.test(scheme) ? `${scheme} ${MASK}` : MASK
}

const isCredential = (name: string): boolean => name === 'authorization' || name === 'proxy-authorization'
const isCookie = (name: string): boolean => name === 'cookie' || name === 'set-cookie'

function showHeaders (headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (isCookie(name)) continue
    out[name] = isCredential(name) ? maskCredentials(value) : value
  }
  return out
}

/** A header's value in a card's context: any card-number-like run masked. */
const maskCardHeader = (value: unknown): unknown =>
  typeof value === 'string' ? maskCardText(value) : Array.isArray(value) ? value.map(maskCardHeader) : value

/**
 * Writes headers as a count then name and value pairs; request headers are shown as they will be
 * read (credentials masked, cookies left out, and in a card's context card numbers), so no
 * credential is kept.
 */
function writeHeaders (entry: EntryWriter, headers: Record<string, unknown>, show: boolean, card = false): void {
  const pairs = new EntryWriter()
  let count = 0
  // for-in over own members: it allocates no [name, value] pair per header (this runs per request).
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue
    if (show && isCookie(name)) continue
    pairs.string(name).headerValue(keptHeader(name, headers[name], show, card))
    count++
  }
  entry.number(count).text += pairs.text
}

/** A header's value as the log keeps it (cookies aside): see writeHeaders. */
const keptHeader = (name: string, value: unknown, show: boolean, card: boolean): unknown => {
  const shown = show && isCredential(name) ? maskCredentials(value) : value
  return card ? maskCardHeader(shown) : shown
}

/**
 * The headers writeHeaders keeps, as readHeaders gives them back: a string or a finite number (the
 * content length of every answer) as it is, anything else through JSON as the text keeps it.
 */
function keptHeaders (headers: Record<string, unknown>, show: boolean, card = false): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue
    if (show && isCookie(name)) continue
    const value = keptHeader(name, headers[name], show, card)
    out[name] = typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0))
      ? value
      : JSON.parse(JSON.stringify(value) ?? 'null')
  }
  return out
}

function readHeaders (entry: EntryReader): Record<string, unknown> {
  const headers: Record<string, unknown> = {}
  for (let i = entry.number(); i > 0; i--) headers[entry.string()] = entry.headerValue()
  return headers
}

// The guard refuses these only after checking the token's signature, so its client id is genuine.
const VERIFIED_BUT_REFUSED = /"code":"token_(expired|revoked)"/

/** The client a request spoke for: the guard's, else the one its credentials name. */
function clientOf (request: FastifyRequest, status: number, answer: string | null): string | null {
  const guarded = request.auth?.clientId ?? request.faultedClient ?? undefined
  if (guarded !== undefined) return guarded
  const header = request.headers.authorization
  if (request.url.startsWith(TOKEN_ENDPOINT)) return tokenEndpointClient(request.body, header, request.basicCredentials)
  return status === 401 && answer !== null && VERIFIED_BUT_REFUSED.test(answer) ? refusedTokenClient(header) : null
}

const pathOf = (r: Recorded): string => redactUrl(r.url)

/** What is kept of an answer's payload: JSON and text as a string, cut when long; streams not at all. */
export function keepPayload (payload: unknown): string | null {
  let text: string
  if (typeof payload === 'string') text = payload
  else if (Buffer.isBuffer(payload)) text = payload.length > KEEP_LIMIT ? payload.subarray(0, KEEP_LIMIT).toString('utf8') : payload.toString('utf8')
  else return null
  // A copy, so a cut string does not keep the whole document alive.
  return text.length > KEEP_LIMIT ? Buffer.from(text.slice(0, KEEP_LIMIT)).toString('utf8') : text
}

/** A request body is kept by reference, unless its length says it is large (then only its size). */
function keepBody (request: FastifyRequest): unknown {
  const length = Number(request.headers['content-length'])
  return length > KEEP_LIMIT ? new LargeBody(length) : request.body
}

class LargeBody {
  constructor (readonly bytes: number) {}
}

/** A kept request body as JSON can hold it: text, a parsed value, or only the size of a large one. */
type StoredBody = { text: string } | { value: unknown } | { bytes: number } | null

/**
 * Masked before it is kept, so no card number or secret is ever held in the log, even unread. `card`:
 * the request is about external accounts, where any card-number-like run is a card's.
 */
function storeBody (body: unknown, card: boolean): StoredBody {
  if (body === undefined || body === null || body === '') return null
  if (body instanceof LargeBody) return { bytes: body.bytes }
  if (Buffer.isBuffer(body)) return { text: maskText(body.toString('utf8'), card) }
  return typeof body === 'string' ? { text: maskText(body, card) } : { value: maskValues(body, card) }
}

function restoreBody (body: StoredBody): unknown {
  if (body === null) return undefined
  if ('bytes' in body) return new LargeBody(body.bytes)
  return 'text' in body ? body.text : body.value
}

/** A body's JSON; null when it has none or JSON cannot hold it (a cycle, a BigInt): the request is kept without it. */
function bodyJson (body: StoredBody): string | null {
  if (body === null) return null
  try {
    return JSON.stringify(body)
  } catch {
    return null
  }
}

/** A request answered in this turn of the event loop, not yet written. */
export interface Pending {
  request: FastifyRequest
  reply: FastifyReply
  payload: unknown
  status: number
  at: number
  durationMs: number
}

/** A request's URL as the log keeps it: card numbers masked (every run on a card's path). */
const keptUrl = (url: string, card: boolean): string => card ? maskCardText(url) : maskLoneRuns(url)

/** A request's body as the log keeps it, as JSON (null: none, or none JSON can hold). */
const keptBody = (request: FastifyRequest, card: boolean): string | null => bodyJson(storeBody(keepBody(request), card))

/** An answered request as the entry text the ring keeps (entry-text.ts); credentials in request headers masked, bodies masked. */
function entryText ({ request, reply, payload, status, at, durationMs }: Pending): string {
  const kept = keepPayload(payload)
  const card = isCardPath(request.url)
  const entry = new EntryWriter()
    // The duration in whole microseconds: an integer is cheaper to write than a fraction.
    .number(at).string(request.method).string(keptUrl(request.url, card)).number(status).number(Math.round(durationMs * 1000))
    .string(request.id).nullable(clientOf(request, status, kept))
  writeHeaders(entry, request.headers, true, card)
  entry.nullable(keptBody(request, card))
  writeHeaders(entry, reply.getHeaders(), false)
  entry.nullable(kept)
  return entry.text
}

/**
 * An answered request as `readEntry(entryText(p))` gives it back, without the text between: the
 * table's entries are formatted at once (TableRequestLog), so writing the text only to read it
 * again cost a twentieth of a read's CPU on PostgreSQL. The same masking, field by field (a test
 * compares the two on generated requests).
 */
function recordedOf ({ request, reply, payload, status, at, durationMs }: Pending): Recorded {
  const kept = keepPayload(payload)
  const card = isCardPath(request.url)
  const body = keptBody(request, card)
  return {
    at,
    method: request.method,
    url: keptUrl(request.url, card),
    status,
    durationMs: Math.round(durationMs * 1000) / 1000,
    requestId: request.id,
    clientId: clientOf(request, status, kept),
    headers: keptHeaders(request.headers, true, card),
    body: restoreBody(body === null ? null : JSON.parse(body) as StoredBody),
    responseHeaders: keptHeaders(reply.getHeaders(), false),
    payload: kept
  }
}

/** An answered request as the table keeps it (TableRequestLog); exported for the test that compares it with the ring's. */
export const tableEntry = (p: Pending): RequestLogEntry => formatEntry(recordedOf(p))

function readEntry (text: string): Recorded {
  const entry = new EntryReader(text)
  const at = entry.number()
  const method = entry.string()
  const url = entry.string()
  const status = entry.number()
  const durationMs = entry.number() / 1000
  const requestId = entry.string()
  const clientId = entry.nullable()
  const headers = readHeaders(entry)
  const body = entry.nullable()
  const responseHeaders = readHeaders(entry)
  const payload = entry.nullable()
  return { at, method, url, status, durationMs, requestId, clientId, headers, body: restoreBody(body === null ? null : JSON.parse(body) as StoredBody), responseHeaders, payload }
}

/** An entry as the log shows it: every credential, secret field and card number masked, bodies cut. */
function formatEntry (r: Recorded): RequestLogEntry {
  const type = String(r.responseHeaders['content-type'] ?? '')
  const card = isCardPath(r.url)
  return {
    requestId: r.requestId,
    timestamp: new Date(r.at).toISOString(),
    method: r.method,
    path: pathOf(r),
    status: r.status,
    durationMs: Math.round(r.durationMs * 100) / 100,
    clientId: r.clientId,
    request: { headers: r.headers, ...showBody(r.body, false, card) },
    response: {
      headers: showHeaders(r.responseHeaders),
      // An answer never carries a card number: masked all the same, as a request body is.
      ...showBody(r.payload, type.includes('json') || type.startsWith('text/'), card)
    }
  }
}

/** The in-memory ring buffer (SQLite's request log; see `openRequestLog`). */
export class RequestLog {
  readonly capacity: number
  readonly #clock: Clock
  readonly #pending: TurnBatch<Pending>
  readonly #texts: PackedTexts
  /** The write number of the entry in each slot, and, by client, the last write a clear forgot. */
  readonly #seqs: Float64Array
  readonly #clearedThrough = new Map<string, number>()
  #written = 0
  #next = 0
  #size = 0

  /** `onError` hears of an entry that could not be written (it is left out; the others are kept). */
  constructor (capacity: number, clock: Clock, onError: (error: unknown) => void = () => {}) {
    this.capacity = capacity
    this.#clock = clock
    this.#pending = new TurnBatch(p => { this.#write(p) }, onError)
    this.#texts = new PackedTexts(capacity)
    this.#seqs = new Float64Array(capacity)
  }

  get size (): number {
    this.#pending.flush()
    return this.#size
  }

  /** Records an answered request; it is written at the end of this turn of the event loop. */
  record (request: FastifyRequest, reply: FastifyReply, payload: unknown, status = reply.statusCode): void {
    // On the clock of the organization the request ran for: an answer is recorded once it is sent,
    // in the socket's callback, outside the request's context (src/async-context.ts).
    this.#pending.add({ request, reply, payload, status, at: this.#clock.nowFor(request.clockScope), durationMs: reply.elapsedTime })
  }

  #write (pending: Pending): void {
    this.#texts.set(this.#next, entryText(pending))
    this.#seqs[this.#next] = ++this.#written
    this.#next = (this.#next + 1) % this.capacity
    if (this.#size < this.capacity) this.#size++
  }

  /** Forgets every request answered so far, written or not. */
  clear (): void {
    this.#pending.drop()
    this.#texts.clear()
    this.#next = 0
    this.#size = 0
    this.#clearedThrough.clear()
  }

  /** Forgets the requests of these clients answered so far (an organization clears its own). */
  clearClients (clientIds: readonly string[]): void {
    this.#pending.flush()
    for (const id of clientIds) this.#clearedThrough.set(id, this.#written)
  }

  #entry (index: number): Recorded {
    return readEntry(this.#texts.get(index))
  }

  /** Newest first, filtered, formatted for reading. */
  list (filter: RequestLogFilter = {}): RequestLogEntry[] {
    this.#pending.flush()
    const limit = filter.limit ?? 100
    const method = filter.method?.toUpperCase()
    const path = filter.path === undefined ? undefined : globMatcher(filter.path)
    const status = filter.status
    let skip = filter.offset ?? 0
    const out: RequestLogEntry[] = []
    const clients = filter.clientIds === undefined ? undefined : new Set(filter.clientIds)
    for (let i = 1; i <= this.#size && out.length < limit; i++) {
      const slot = (this.#next - i + this.capacity) % this.capacity
      const r = this.#entry(slot)
      if (clients !== undefined && (r.clientId === null || !clients.has(r.clientId) || this.#seqs[slot] <= (this.#clearedThrough.get(r.clientId) ?? 0))) continue
      if (method !== undefined && r.method !== method) continue
      if (status !== undefined && !(status.endsWith('xx') ? String(r.status)[0] === status[0] : String(r.status) === status)) continue
      if (path !== undefined && !path(pathOf(r))) continue
      if (filter.clientId !== undefined && r.clientId !== filter.clientId) continue
      if (skip > 0) { skip--; continue }
      out.push(formatEntry(r))
    }
    return out
  }
}

/**
 * The request log as the routes and hooks use it, on either backend (`openRequestLog` chooses):
 * - SQLite: the in-memory ring above. One process owns an SQLite database, so its log is the
 *   whole sandbox's; recording costs a few microseconds and no database work (the benchmark
 *   measures this path). A restart empties it.
 * - PostgreSQL: the `sandbox_request_log` table, so the log read on one replica holds the calls
 *   every replica served. Each entry is formatted (masked: no credential, secret field or card
 *   number reaches the table, exactly as the ring shows it) at the end of the event loop's turn
 *   that answered it, and the turn's entries are inserted together, on the pool, outside the group
 *   commit (a log insert never waits for the global write lock); the same statement deletes the
 *   oldest beyond REQUEST_LOG_SIZE. An entry reaches the table a round trip after its answer.
 * Both answer reads the same: newest first, the same filters, at most `capacity` entries; a read
 * on a replica first writes what that replica has pending.
 */
export interface RequestLogging {
  readonly capacity: number
  /** Records an answered request (written at the end of this turn of the event loop). */
  record (request: FastifyRequest, reply: FastifyReply, payload: unknown, status?: number): void
  /** Newest first, filtered, formatted for reading. */
  list (filter?: RequestLogFilter): Promise<RequestLogEntry[]>
  /** How many entries the log holds. */
  size (): Promise<number>
  /** Forgets every request answered so far, written or not; or only those of these clients. */
  clear (clientIds?: readonly string[]): Promise<void>
  /** Writes what is pending (before the database closes). */
  settle (): Promise<void>
}

/** The backend's request log (see RequestLogging), or none at REQUEST_LOG_SIZE=0. `onError` hears of entries that could not be written. */
export function openRequestLog (db: Db, capacity: number, clock: Clock, onError: (error: unknown) => void): RequestLogging {
  if (capacity === 0) return new NoRequestLog()
  return db.dialect === 'postgres' ? new TableRequestLog(requestLogStore(db), capacity, clock, onError) : new MemoryRequestLog(new RequestLog(capacity, clock, onError))
}

/**
 * REQUEST_LOG_SIZE=0, on either backend: nothing is recorded (the hooks that record are not even
 * added: src/sandbox/infrastructure.ts), and the log reads empty with its capacity of 0, so a
 * reader sees why. For an operator who wants no request kept, or the CPU it costs: a GET's entry
 * is about a tenth of its time (BENCHMARKS.md).
 */
class NoRequestLog implements RequestLogging {
  readonly capacity = 0
  record (): void {}
  async list (): Promise<RequestLogEntry[]> { return [] }
  async size (): Promise<number> { return 0 }
  async clear (): Promise<void> {}
  async settle (): Promise<void> {}
}

class MemoryRequestLog implements RequestLogging {
  readonly #ring: RequestLog
  constructor (ring: RequestLog) { this.#ring = ring }
  get capacity (): number { return this.#ring.capacity }
  record (request: FastifyRequest, reply: FastifyReply, payload: unknown, status?: number): void { this.#ring.record(request, reply, payload, status) }
  async list (filter?: RequestLogFilter): Promise<RequestLogEntry[]> { return this.#ring.list(filter) }
  async size (): Promise<number> { return this.#ring.size }
  async clear (clientIds?: readonly string[]): Promise<void> {
    if (clientIds === undefined) this.#ring.clear()
    else this.#ring.clearClients(clientIds)
  }

  async settle (): Promise<void> {}
}

/** The status filter (`404`, `4xx`) as a range. */
const statusRange = (status: string): [number, number] => {
  const n = Number(status.slice(0, 1))
  return status.endsWith('xx') ? [n * 100, n * 100 + 99] : [Number(status), Number(status)]
}

class TableRequestLog implements RequestLogging {
  readonly capacity: number
  readonly #store: RequestLogStore
  readonly #clock: Clock
  readonly #onError: (error: unknown) => void
  /** Answered in this turn, not formatted yet. */
  #pending: Pending[] = []
  /** Formatted, waiting for the insert in flight to finish (at most `capacity`: more would be deleted at once). */
  #queue: RequestLogRow[] = []
  #writing: Promise<void> | undefined
  /** The last insert failed because the database is away. */
  #away = false

  constructor (store: RequestLogStore, capacity: number, clock: Clock, onError: (error: unknown) => void) {
    this.capacity = capacity
    this.#store = store
    this.#clock = clock
    this.#onError = onError
  }

  record (request: FastifyRequest, reply: FastifyReply, payload: unknown, status = reply.statusCode): void {
    if (this.#pending.length === 0) setImmediate(this.#flush)
    this.#pending.push({ request, reply, payload, status, at: this.#clock.nowFor(request.clockScope), durationMs: reply.elapsedTime })
  }

  // Bound to the context the log was made in, so an insert never runs on a write's transaction
  // (src/async-context.ts carries that), whatever code answered the request.
  readonly #flush = bindContext((): void => {
    if (this.#pending.length === 0) return
    const pending = this.#pending
    this.#pending = []
    for (const p of pending) {
      try {
        const entry = tableEntry(p)
        this.#queue.push({ method: entry.method, path: entry.path, status: entry.status, clientId: entry.clientId, entry: JSON.stringify(entry) })
      } catch (error) {
        this.#onError(error)
      }
    }
    if (this.#queue.length > this.capacity) this.#queue.splice(0, this.#queue.length - this.capacity)
    this.#writing ??= this.#pump()
  })

  /** Inserts what is queued, one statement at a time (so entries keep their order), until nothing is left. */
  async #pump (): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const rows = this.#queue
        this.#queue = []
        try {
          await this.#store.append(rows, this.capacity)
          this.#away = false
        } catch (error) {
          // While the database is away, once: not once per turn of traffic.
          if (!this.#away) this.#onError(error)
          this.#away = isUnavailable(error)
        }
      }
    } finally {
      this.#writing = undefined
    }
  }

  async settle (): Promise<void> {
    this.#flush()
    while (this.#writing !== undefined) await this.#writing
  }

  async list (filter: RequestLogFilter = {}): Promise<RequestLogEntry[]> {
    await this.settle()
    const rows = await this.#store.search({
      method: filter.method?.toUpperCase(),
      path: filter.path,
      status: filter.status === undefined ? undefined : statusRange(filter.status),
      clientId: filter.clientId,
      clientIds: filter.clientIds,
      limit: filter.limit ?? 100,
      offset: filter.offset ?? 0
    }, this.capacity)
    return rows.map(entry => JSON.parse(entry) as RequestLogEntry)
  }

  async size (): Promise<number> {
    await this.settle()
    return await this.#store.count(this.capacity)
  }

  async clear (clientIds?: readonly string[]): Promise<void> {
    if (clientIds !== undefined) {
      await this.settle()
      await this.#store.clear(clientIds)
      return
    }
    this.#pending = []
    this.#queue = []
    // An insert in flight lands before the deletion.
    while (this.#writing !== undefined) await this.#writing
    await this.#store.clear()
  }
}
