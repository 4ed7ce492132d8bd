// The one sandbox clock. Token and refresh expiry, link expiry, timestamps and webhook schedules
// all read it, so a test can freeze, set or advance time and see every time-bound rule follow.
import { EventEmitter } from 'node:events'

export interface ClockState {
  now: string
  frozen: boolean
  offsetMs: number
}

export class Clock extends EventEmitter {
  #offsetMs = 0
  #frozenAt: number | null = null
  readonly #source: () => number
  readonly #followers = new Set<() => Promise<void>>()

  constructor (source: () => number = Date.now) {
    super()
    this.#source = source
  }

  /** Milliseconds since the epoch, in sandbox time. */
  now (): number {
    return this.#frozenAt ?? this.#source() + this.#offsetMs
  }

  nowSeconds (): number {
    return Math.floor(this.now() / 1000)
  }

  date (): Date {
    return new Date(this.now())
  }

  iso (): string {
    return new Date(this.now()).toISOString()
  }

  get frozen (): boolean {
    return this.#frozenAt !== null
  }

  state (): ClockState {
    return { now: this.iso(), frozen: this.frozen, offsetMs: this.#frozenAt === null ? this.#offsetMs : this.#frozenAt - this.#source() }
  }

  /** Jumps to an instant; a frozen clock stays frozen there, a running one runs on from it. */
  set (ms: number): void {
    if (this.#frozenAt !== null) this.#frozenAt = ms
    else this.#offsetMs = ms - this.#source()
    this.emit('change')
  }

  advance (seconds: number): void {
    this.set(this.now() + seconds * 1000)
  }

  freeze (frozen: boolean): void {
    if (frozen && this.#frozenAt === null) this.#frozenAt = this.now()
    if (!frozen && this.#frozenAt !== null) {
      this.#offsetMs = this.#frozenAt - this.#source()
      this.#frozenAt = null
    }
    this.emit('change')
  }

  /**
   * Work that follows a move of the clock (reviews falling due): `settle` runs it and waits.
   * Returns the function that stops following.
   */
  follow (work: () => Promise<void>): () => void {
    this.#followers.add(work)
    return () => { this.#followers.delete(work) }
  }

  /** Runs every follower and waits for all: the clock route answers once time's consequences are written. */
  async settle (): Promise<void> {
    await Promise.all([...this.#followers].map(work => work()))
  }

  /** How the clock stands: its offset from the machine's time, or the instant it stands still at. */
  get position (): { offsetMs: number, frozenAt: number | null } {
    return { offsetMs: this.#offsetMs, frozenAt: this.#frozenAt }
  }

  /**
   * Takes a position another replica gave the clock (see src/plugins/shared-state.ts): the change
   * event says `remote`, so it is not stored again.
   */
  adopt (offsetMs: number, frozenAt: number | null): void {
    this.#offsetMs = offsetMs
    this.#frozenAt = frozenAt
    this.emit('change', { remote: true })
  }

  /** Back to the machine's real time. */
  real (): void {
    this.#frozenAt = null
    this.#offsetMs = 0
    this.emit('change')
  }
}
