// Delivers events to webhook endpoints. The outbox (events table) is fanned out into one message
// per matching endpoint; each message is POSTed, signed, until a 2xx or until the retry schedule
// is spent, and every attempt is saved. All state lives in the database and every schedule reads
// the sandbox clock, so a restart resumes where it stopped and moving the clock moves deliveries.
// A message's times (made, next attempt, settled) are on its organization's clock: an organization
// that moves or freezes its own clock moves or stops its own deliveries only. So each pass claims
// by clock, as due work does (src/kit/due-work.ts): one claim for each organization with a clock
// of its own, on that clock, then one for every other organization, on the global clock.
//
// Exactly once across replicas (PostgreSQL): an event is fanned out by the write that marks it
// dispatched first (a conditional mark), and each attempt is made by the replica that holds the
// message's lease, taken in a write before the POST and ended by the write that saves the attempt.
// A replica that dies holding leases leaves them to lapse (30 s), and the others carry on; one
// that stops gives back those of the attempts it abandons. On SQLite one process delivers, and its
// attempts in flight are all there is to skip.
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { request as httpRequest } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { EventBus } from '../events.js'
import { scopesDue, type DueAt } from '../kit/due-work.js'
import type { Storage } from '../storage/index.js'
import type { AttemptOutcome, DueDelivery, WebhooksStore } from './store.js'
import { newMessageId, sign } from './signing.js'

export interface DispatcherOptions {
  storage: Storage
  store: WebhooksStore
  clock: Clock
  events: EventBus
  log: FastifyBaseLogger
  /** Seconds to wait before each retry; once spent, the message has failed. */
  retrySchedule: number[]
  timeoutMs: number
  userAgent: string
  /** How long a claim on a message lasts (real milliseconds); by default `leaseMsFor(timeoutMs)`. */
  leaseMs?: number
}

const LEASE_MS = 30_000
// What a lease covers beyond the request itself: the claim's commit before it, the save after it.
const LEASE_MARGIN_MS = 15_000
/** A lease outlives the attempt it covers: 30 s, or the timeout and a margin when that is longer. */
export const leaseMsFor = (timeoutMs: number): number => Math.max(LEASE_MS, timeoutMs + LEASE_MARGIN_MS)

/**
 * The lease of dispatchers made without `leaseMs` (the app's), when set: tests shorten it, to see
 * a lease lapse without waiting 30 s.
 */
export const leaseOverride: { ms: number | undefined } = { ms: undefined }

const BATCH = 100
// The outbox is also polled, so an event recorded without a wake-up still goes out.
const POLL_MS = 1000
const MAX_TIMER_MS = 60_000
const SNIPPET_CHARS = 1024

export class Dispatcher {
  readonly #o: DispatcherOptions
  #stopped = true
  #running: Promise<void> | null = null
  #again = false
  readonly #inFlight = new Map<string, Promise<void>>()
  #shutdown = new AbortController()
  #poll: NodeJS.Timeout | undefined
  #timer: NodeJS.Timeout | undefined
  readonly #wake = (): void => { this.kick() }

  constructor (options: DispatcherOptions) {
    this.#o = options
  }

  start (): void {
    if (!this.#stopped) return
    this.#stopped = false
    this.#shutdown = new AbortController()
    this.#o.events.on('recorded', this.#wake)
    this.#o.clock.on('change', this.#wake)
    this.#poll = setInterval(this.#wake, POLL_MS).unref()
    this.kick()
  }

  /**
   * Stops scheduling and waits for the running pass; requests still in flight are abandoned unsaved
   * and their leases given back, so they go out again: from another replica at once, or from this
   * database's next start.
   */
  async stop (): Promise<void> {
    this.#stopped = true
    this.#o.events.off('recorded', this.#wake)
    this.#o.clock.off('change', this.#wake)
    clearInterval(this.#poll)
    clearTimeout(this.#timer)
    this.#shutdown.abort()
    await this.#running
    await Promise.allSettled([...this.#inFlight.values()])
  }

  /** Runs a pass now, or right after the one running. */
  kick (): void {
    if (this.#stopped) return
    if (this.#running !== null) {
      this.#again = true
      return
    }
    this.#running = this.#pass()
      .catch((err: unknown) => { this.#o.log.error({ err }, 'webhook dispatch failed') })
      .finally(() => {
        this.#running = null
        if (this.#again) {
          this.#again = false
          this.kick()
        }
      })
  }

  async #pass (): Promise<void> {
    const { storage, clock } = this.#o
    for (;;) {
      const events = await storage.events.pending(BATCH)
      // One write for the batch, in event order: each event's mark decides whether this replica
      // fans it out (another may have read it as pending too), with its messages.
      if (events.length > 0) await this.#o.store.fanOut(events, id => clock.nowFor(id), newMessageId, async e => await storage.events.markDispatched(e.seq))
      if (events.length < BATCH || this.#stopped) break
    }
    if (this.#stopped) return
    const leaseMs = this.#o.leaseMs ?? leaseOverride.ms ?? leaseMsFor(this.#o.timeoutMs)
    // Each organization's earliest next attempt, in one query: claims only on the clocks that have
    // one due, and the timer from the same read (see src/kit/due-work.ts).
    const earliest = await this.#o.store.earliestDue()
    const claimed: DueDelivery[] = []
    for (const scope of scopesDue(clock, earliest)) claimed.push(...await this.#o.store.claimDue(clock.nowFor(scope), BATCH, scope, leaseMs, id => this.#inFlight.has(id)))
    for (const delivery of claimed) {
      const id = delivery.message.id
      // Claimed: started even when stopping meanwhile, to give its lease back at once.
      const attempt = this.#attempt(delivery)
        .catch((err: unknown) => { this.#o.log.error({ err, messageId: id }, 'webhook attempt failed to save') })
        .finally(() => {
          this.#inFlight.delete(id)
          this.kick()
        })
      this.#inFlight.set(id, attempt)
    }
    this.#arm(earliest)
  }

  /**
   * A timer for the next due attempt on the clocks that run (the soonest of each clock's next), from
   * each organization's earliest next attempt as the pass read it; a frozen clock only moves by
   * 'change'.
   */
  #arm (earliest: readonly DueAt[]): void {
    const { clock } = this.#o
    let delay = Infinity
    for (const { organizationId, at } of earliest) {
      // An organization without a clock of its own answers for the global clock.
      if (clock.frozenFor(organizationId)) continue
      // Due already: in flight here, and its end runs the next pass; or leased to another replica,
      // whose save ends it (this replica's poll finds the message again if that lease lapses).
      const now = clock.nowFor(organizationId)
      if (at > now) delay = Math.min(delay, at - now)
    }
    clearTimeout(this.#timer)
    if (this.#stopped || delay === Infinity) return
    this.#timer = setTimeout(this.#wake, Math.min(delay, MAX_TIMER_MS)).unref()
  }

  async #attempt ({ message, url, secret, previousSecret, previousSecretExpiresAt, lease }: DueDelivery): Promise<void> {
    const { clock, timeoutMs, userAgent } = this.#o
    // Abandoned unsaved at shutdown: the message goes out again, here after a restart or at once
    // from another replica.
    const abandon = async (): Promise<void> => { if (lease !== null) await this.#o.store.releaseLease(message.id, lease) }
    if (this.#shutdown.signal.aborted) return await abandon()
    // Everything of the attempt is on the message's organization's clock: what the receiver sees
    // (the timestamp), the attempt's time, the secret's grace period and the next attempt.
    const own = clock.of(message.organizationId)
    const timestamp = own.nowSeconds()
    // During a rotation's grace period the replaced secret signs too (Standard Webhooks: one
    // `v1,<signature>` per secret, space-separated), so receivers that still hold it, and those
    // that already hold the new one, both verify.
    const secrets = previousSecret !== null && previousSecretExpiresAt !== null && own.now() < previousSecretExpiresAt
      ? [secret, previousSecret]
      : [secret]
    // The attempt's own timer and controller, not AbortSignal.any([AbortSignal.timeout(...), ...]):
    // on Node 20 a timeout signal held only by the composite can be garbage collected before it
    // fires (nodejs/node#57736), and the attempt then waits for as long as the receiver likes.
    const timedOut = `Timed out after ${timeoutMs} ms`
    const attempt = new AbortController()
    const signal = attempt.signal
    const timer = setTimeout(() => { attempt.abort(new DOMException(timedOut, 'TimeoutError')) }, timeoutMs)
    const onShutdown = (): void => { attempt.abort(this.#shutdown.signal.reason) }
    if (this.#shutdown.signal.aborted) onShutdown()
    else this.#shutdown.signal.addEventListener('abort', onShutdown, { once: true })
    const started = performance.now()
    let statusCode: number | null = null
    let error: string | null = null
    let responseBody = ''
    try {
      const answer = await post(url, {
        'content-type': 'application/json',
        'user-agent': userAgent,
        'webhook-id': message.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': secrets.map(s => sign(s, message.id, timestamp, message.body)).join(' ')
      }, message.body, signal)
      statusCode = answer.statusCode
      responseBody = answer.body
    } catch (err) {
      if (this.#shutdown.signal.aborted) return await abandon()
      error = signal.aborted ? timedOut : describe(err)
    } finally {
      clearTimeout(timer)
      this.#shutdown.signal.removeEventListener('abort', onShutdown)
    }
    const durationMs = Math.round(performance.now() - started)
    const now = own.now()
    const saved = await this.#o.store.recordAttempt({
      id: randomUUID(),
      organizationId: message.organizationId,
      messageId: message.id,
      url,
      attemptedAt: own.iso(),
      statusCode,
      error,
      durationMs,
      responseBody
    }, this.#outcome(message.attemptCount + 1, statusCode, now), lease)
    // The message was deleted meanwhile, or the lease lapsed during the attempt and another replica
    // took the message: that replica's attempt is the one saved.
    if (!saved) this.#o.log.info({ messageId: message.id, statusCode, error }, 'webhook attempt not saved: the message is gone or no longer leased to this replica')
  }

  #outcome (attemptCount: number, statusCode: number | null, now: number): AttemptOutcome {
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { status: 'delivered', attemptCount, nextAttemptAt: null, settledAt: now }
    const wait = this.#o.retrySchedule[attemptCount - 1]
    if (wait === undefined) return { status: 'failed', attemptCount, nextAttemptAt: null, settledAt: now }
    return { status: 'pending', attemptCount, nextAttemptAt: now + wait * 1000, settledAt: null }
  }
}

/**
 * POSTs with node:http(s) rather than fetch, which refuses the Fetch standard's "bad ports" (6000,
 * 6666, ...) that a receiver may well use. Resolves with the status and the start of the body;
 * redirects are answers like any other (not followed).
 */
async function post (target: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<{ statusCode: number, body: string }> {
  const url = new URL(target)
  // node:https (and with it TLS) is loaded by the first https delivery, not by every start.
  const send = url.protocol === 'https:' ? (await import('node:https')).request : httpRequest
  return await new Promise((resolve, reject) => {
    const request = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      signal
    })
    request.on('error', reject)
    request.on('response', response => {
      const statusCode = response.statusCode ?? 0
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        text += chunk
        // Enough for the snippet: stop reading a large body.
        if (text.length >= SNIPPET_CHARS) response.destroy()
      })
      const done = (): void => { resolve({ statusCode, body: text.slice(0, SNIPPET_CHARS) }) }
      response.on('end', done)
      response.on('close', done)
      // A body cut off after the status line still counts by its status.
      response.on('error', done)
    })
    request.end(body)
  })
}

function describe (err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code
    return code !== undefined && !err.message.includes(code) ? `${code}: ${err.message}` : err.message
  }
  return String(err)
}
