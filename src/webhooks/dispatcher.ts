// Delivers events to webhook endpoints. The outbox (events table) is fanned out into one message
// per matching endpoint; each message is POSTed, signed, until a 2xx or until the retry schedule
// is spent, and every attempt is saved. All state lives in the database and every schedule reads
// the sandbox clock, so a restart resumes where it stopped and moving the clock moves deliveries.
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { EventBus } from '../events.js'
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
}

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

  /** Stops scheduling and waits for the running pass; requests still in flight are abandoned unsaved, so they go out again after a restart. */
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
      for (const event of events) {
        // Idempotent per (event, endpoint): a crash before the mark only repeats a no-op.
        await this.#o.store.fanOut(event, clock.now(), newMessageId)
        await storage.events.markDispatched(event.seq)
      }
      if (events.length < BATCH || this.#stopped) break
    }
    for (const delivery of await this.#o.store.due(clock.now(), BATCH)) {
      if (this.#stopped) break
      const id = delivery.message.id
      if (this.#inFlight.has(id)) continue
      const attempt = this.#attempt(delivery)
        .catch((err: unknown) => { this.#o.log.error({ err, messageId: id }, 'webhook attempt failed to save') })
        .finally(() => {
          this.#inFlight.delete(id)
          this.kick()
        })
      this.#inFlight.set(id, attempt)
    }
    await this.#arm()
  }

  /** A timer for the next due attempt while the clock runs; a frozen clock only moves by 'change'. */
  async #arm (): Promise<void> {
    clearTimeout(this.#timer)
    if (this.#stopped || this.#o.clock.frozen) return
    const at = await this.#o.store.nextDueAt()
    if (at === undefined) return
    const delay = at - this.#o.clock.now()
    // Due already: it is in flight, and its end runs the next pass.
    if (delay <= 0) return
    this.#timer = setTimeout(this.#wake, Math.min(delay, MAX_TIMER_MS)).unref()
  }

  async #attempt ({ message, url, secret }: DueDelivery): Promise<void> {
    const { clock, timeoutMs, userAgent } = this.#o
    const timestamp = clock.nowSeconds()
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#shutdown.signal])
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
        'webhook-signature': sign(secret, message.id, timestamp, message.body)
      }, message.body, signal)
      statusCode = answer.statusCode
      responseBody = answer.body
    } catch (err) {
      if (this.#shutdown.signal.aborted) return
      error = signal.aborted ? `Timed out after ${timeoutMs} ms` : describe(err)
    }
    const durationMs = Math.round(performance.now() - started)
    const now = clock.now()
    await this.#o.store.recordAttempt({
      id: randomUUID(),
      organizationId: message.organizationId,
      messageId: message.id,
      url,
      attemptedAt: new Date(now).toISOString(),
      statusCode,
      error,
      durationMs,
      responseBody
    }, this.#outcome(message.attemptCount + 1, statusCode, now))
  }

  #outcome (attemptCount: number, statusCode: number | null, now: number): AttemptOutcome {
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { status: 'delivered', attemptCount, nextAttemptAt: null }
    const wait = this.#o.retrySchedule[attemptCount - 1]
    if (wait === undefined) return { status: 'failed', attemptCount, nextAttemptAt: null }
    return { status: 'pending', attemptCount, nextAttemptAt: now + wait * 1000 }
  }
}

/**
 * POSTs with node:http(s) rather than fetch, which refuses the Fetch standard's "bad ports" (6000,
 * 6666, ...) that a receiver may well use. Resolves with the status and the start of the body;
 * redirects are answers like any other (not followed).
 */
function post (target: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<{ statusCode: number, body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(target)
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
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
