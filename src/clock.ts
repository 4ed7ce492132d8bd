// The sandbox clock: one global clock, and on top of it one clock per organization (its own offset
// from the global clock, or an instant it stands still at). Token and refresh expiry, link expiry,
// timestamps, due work and prices read it, so a test can freeze, set or advance time and see every
// time-bound rule follow, for one organization or for all.
//
// Which organization's time `now()` answers is carried by an AsyncContext: the guard runs a
// request's handler within its organization (`within`), and background work that serves one
// organization (due work, a webhook's timestamp) enters it explicitly. Outside any organization,
// `now()` is the global clock. Code that knows the organization can also ask `of(organizationId)`.
import { EventEmitter } from 'node:events'
import { AsyncContext } from './async-context.js'

export interface ClockState {
  now: string
  frozen: boolean
  offsetMs: number
}

/** An organization's own clock: an offset from the global clock, or the instant it stands still at. */
export interface OrganizationPosition {
  offsetMs: number
  frozenAt: number | null
}

/** One clock read: what every time-based rule needs of it. */
export interface TimeSource {
  now (): number
  nowSeconds (): number
  date (): Date
  iso (): string
  readonly frozen: boolean
}

/**
 * One organization's clock, as `Clock.of` gives it: two fields and the prototype's methods, where an
 * object of five closures cost 2 µs of every token request (the issue reads its organization's time).
 */
class OrganizationTime implements TimeSource {
  constructor (readonly clock: Clock, readonly organizationId: string | null | undefined) {}
  now (): number { return this.clock.nowFor(this.organizationId) }
  nowSeconds (): number { return Math.floor(this.clock.nowFor(this.organizationId) / 1000) }
  date (): Date { return new Date(this.clock.nowFor(this.organizationId)) }
  iso (): string { return new Date(this.clock.nowFor(this.organizationId)).toISOString() }
  get frozen (): boolean { return this.clock.frozenFor(this.organizationId) }
}

/** What a `change` event says: which clock moved (none: the global one), and whether another replica moved it. */
export interface ClockChange {
  organizationId?: string
  remote?: boolean
  /** A move of the global clock by this much moved the frozen organizations' clocks with it. */
  shiftMs?: number
}

// `null`: explicitly the global clock (background work started from a request leaves its organization).
type Scope = string | null

export class Clock extends EventEmitter implements TimeSource {
  #offsetMs = 0
  #frozenAt: number | null = null
  #isoAt = Number.NaN
  #isoText = ''
  readonly #source: () => number
  readonly #followers = new Set<() => Promise<void>>()
  /**
   * Organizations with a clock of their own. A cache of the `sandbox_clocks` rows: on PostgreSQL
   * replaced whenever the shared row's clock version moves (src/plugins/shared-state.ts).
   */
  readonly #organizations = new Map<string, OrganizationPosition>()
  readonly #scope = new AsyncContext<Scope>()

  constructor (source: () => number = Date.now) {
    super()
    this.#source = source
  }

  /** The global clock's milliseconds since the epoch. */
  globalNow (): number {
    return this.#frozenAt ?? this.#source() + this.#offsetMs
  }

  /** An organization's time: its frozen instant, else the global clock plus its offset. */
  nowFor (organizationId: string | null | undefined): number {
    if (organizationId === null || organizationId === undefined) return this.globalNow()
    const own = this.#organizations.get(organizationId)
    if (own === undefined) return this.globalNow()
    return own.frozenAt ?? this.globalNow() + own.offsetMs
  }

  /** Milliseconds since the epoch, in sandbox time: the current organization's, else global. */
  now (): number {
    return this.nowFor(this.#scope.get())
  }

  nowSeconds (): number {
    return Math.floor(this.now() / 1000)
  }

  date (): Date {
    return new Date(this.now())
  }

  iso (): string {
    const now = this.now()
    // Under load many answers in a row are stamped within one millisecond: the last text is kept
    // (a toISOString costs about 0.35 µs, a few hundredths of a write). A pure function of the
    // number, so nothing to invalidate.
    if (now !== this.#isoAt) {
      this.#isoAt = now
      this.#isoText = new Date(now).toISOString()
    }
    return this.#isoText
  }

  /** Whether the current organization's clock (else the global one) stands still. */
  get frozen (): boolean {
    return this.frozenFor(this.#scope.get())
  }

  frozenFor (organizationId: string | null | undefined): boolean {
    if (this.#frozenAt !== null) return true
    if (organizationId === null || organizationId === undefined) return false
    return (this.#organizations.get(organizationId)?.frozenAt ?? null) !== null
  }

  /** The organization `now()` answers for, if any. */
  get organization (): string | undefined {
    return this.#scope.get() ?? undefined
  }

  /** One organization's clock (undefined or null: the global one), whatever the current scope. */
  of (organizationId: string | null | undefined): TimeSource {
    return new OrganizationTime(this, organizationId)
  }

  /** Runs `work` on an organization's clock (null: on the global clock, leaving any organization). */
  within<T> (organizationId: string | null, work: () => T): T {
    return this.#scope.run(organizationId, work)
  }

  state (): ClockState {
    return { now: this.iso(), frozen: this.frozen, offsetMs: this.#frozenAt === null ? this.#offsetMs : this.#frozenAt - this.#source() }
  }

  // ---- The global clock ----

  /** Jumps the global clock to an instant; a frozen clock stays frozen there, a running one runs on from it. */
  set (ms: number): void {
    const delta = ms - this.globalNow()
    if (this.#frozenAt !== null) this.#frozenAt = ms
    else this.#offsetMs = ms - this.#source()
    this.#shiftFrozen(delta)
    this.emit('change', { shiftMs: delta })
  }

  /**
   * Moves the global clock by exactly this much, and the frozen organizations' with it. Not a `set`
   * of now plus the amount: a running clock read twice (for the target, then for the move) is a
   * millisecond on at times, and the frozen organizations moved by a millisecond less.
   */
  advance (seconds: number): void {
    const delta = seconds * 1000
    if (this.#frozenAt !== null) this.#frozenAt += delta
    else this.#offsetMs += delta
    this.#shiftFrozen(delta)
    this.emit('change', { shiftMs: delta })
  }

  freeze (frozen: boolean): void {
    if (frozen && this.#frozenAt === null) this.#frozenAt = this.globalNow()
    if (!frozen && this.#frozenAt !== null) {
      this.#offsetMs = this.#frozenAt - this.#source()
      this.#frozenAt = null
    }
    this.emit('change', {})
  }

  /** Back to the machine's real time (organizations' own clocks keep their offsets). */
  real (): void {
    // The machine's time read once: read again for the global clock, it may be a millisecond on.
    const machine = this.#source()
    const delta = machine - (this.#frozenAt ?? machine + this.#offsetMs)
    this.#frozenAt = null
    this.#offsetMs = 0
    this.#shiftFrozen(delta)
    this.emit('change', { shiftMs: delta })
  }

  // A move of the global clock moves every organization's: a running one follows by its offset, a
  // frozen one is moved by the same amount.
  #shiftFrozen (delta: number): void {
    if (delta === 0) return
    for (const own of this.#organizations.values()) if (own.frozenAt !== null) own.frozenAt += delta
  }

  /** How the global clock stands: its offset from the machine's time, or the instant it stands still at. */
  get position (): { offsetMs: number, frozenAt: number | null } {
    return { offsetMs: this.#offsetMs, frozenAt: this.#frozenAt }
  }

  /**
   * Takes a position another replica gave the global clock (see src/plugins/shared-state.ts): the
   * change event says `remote`, so it is not stored again.
   */
  adopt (offsetMs: number, frozenAt: number | null): void {
    this.#offsetMs = offsetMs
    this.#frozenAt = frozenAt
    this.emit('change', { remote: true })
  }

  // ---- Organizations' clocks ----

  /** An organization's own position; undefined when it runs on the global clock. */
  positionOf (organizationId: string): OrganizationPosition | undefined {
    const own = this.#organizations.get(organizationId)
    return own === undefined ? undefined : { ...own }
  }

  /** Organizations with a clock of their own. */
  organizations (): string[] {
    return [...this.#organizations.keys()]
  }

  /**
   * The position an organization's clock takes after a change (computed here, stored by the
   * caller): undefined when the change is `real` (back to the global clock).
   */
  positionAfter (organizationId: string, change: { advanceSeconds?: number, now?: number, frozen?: boolean, real?: boolean }): OrganizationPosition | undefined {
    const own = this.#organizations.get(organizationId) ?? { offsetMs: 0, frozenAt: null }
    const global = this.globalNow()
    const current = own.frozenAt ?? global + own.offsetMs
    if (change.real === true) return undefined
    if (change.frozen !== undefined) {
      if (change.frozen) return { offsetMs: current - global, frozenAt: current }
      return { offsetMs: current - global, frozenAt: null }
    }
    const target = change.now ?? current + (change.advanceSeconds ?? 0) * 1000
    return own.frozenAt !== null ? { offsetMs: target - global, frozenAt: target } : { offsetMs: target - global, frozenAt: null }
  }

  /** Gives an organization its own position (undefined: back on the global clock). */
  setOrganization (organizationId: string, position: OrganizationPosition | undefined, remote = false): void {
    if (position === undefined) this.#organizations.delete(organizationId)
    else this.#organizations.set(organizationId, { ...position })
    this.emit('change', { organizationId, remote })
  }

  /** Takes every organization's position as stored (another replica moved one, or at start). */
  adoptOrganizations (positions: Map<string, OrganizationPosition>): void {
    // The same positions (another replica changed something else): nothing moved, no event.
    if (positions.size === this.#organizations.size && [...positions].every(([id, p]) => {
      const own = this.#organizations.get(id)
      return own !== undefined && own.offsetMs === p.offsetMs && own.frozenAt === p.frozenAt
    })) return
    this.#organizations.clear()
    for (const [id, p] of positions) this.#organizations.set(id, { ...p })
    this.emit('change', { remote: true })
  }

  /** Every organization back on the global clock (a full reset). */
  clearOrganizations (): void {
    this.#organizations.clear()
    this.emit('change', {})
  }

  // ---- Work that follows the clock ----

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
}
