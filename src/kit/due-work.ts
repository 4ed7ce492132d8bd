// Work the service owes on the sandbox clock (cooldowns ending, card checks, settlements, KYC
// reviews): the areas store when each item falls due, and one follower per area runs what has come.
// Each organization may have a clock of its own, so a run is a pass per clock: one for each
// organization with its own clock (on that clock), then one for every other organization (on the
// global clock). A pass's queries keep to its organizations (`onDueScope` in src/storage/shared.ts).
//
// A run first reads, in one query per area, each organization's earliest due item up to the latest
// of the clocks (`EarliestDue`), and passes only over the clocks that have something due. A pass
// for every clock cost each area one to three queries per organization clock, every second and
// after every committed event (the webhook dispatcher's claims): on a shared sandbox where 200
// organizations had moved their clocks, thousands of queries a second with nothing due.
import type { FastifyInstance } from 'fastify'
import type { Clock } from '../clock.js'
import type { DueAt, DueScope } from '../storage/shared.js'

export type { DueAt, DueScope } from '../storage/shared.js'

/** The clocks a run of due work goes by, in order: each organization's own, then (null) the global clock for every other. */
export const dueScopes = (clock: Clock): DueScope[] => [...clock.organizations(), null]

/**
 * Each organization's earliest item due at or before `through` (the latest of the clocks: see
 * `latestNow`), read in one query (or two) for every clock; an organization may come more than once.
 */
export type EarliestDue = (through: number) => Promise<Iterable<DueAt>>

/** The latest time any clock shows: nothing due on any clock falls after it. */
export function latestNow (clock: Clock): number {
  let latest = clock.globalNow()
  for (const id of clock.organizations()) latest = Math.max(latest, clock.nowFor(id))
  return latest
}

/**
 * The clocks with something due, in `dueScopes` order: each organization with a clock of its own
 * whose earliest item its clock has reached, then null when an organization on the global clock
 * (or the global clock's own work) has one due.
 */
export function scopesDue (clock: Clock, earliest: Iterable<DueAt>): DueScope[] {
  const own = new Set<string>()
  let global = false
  for (const { organizationId, at } of earliest) {
    if (organizationId !== null && clock.positionOf(organizationId) !== undefined) {
      if (at <= clock.nowFor(organizationId)) own.add(organizationId)
    } else if (at <= clock.globalNow()) global = true
  }
  const scopes: DueScope[] = clock.organizations().filter(id => own.has(id))
  if (global) scopes.push(null)
  return scopes
}

/**
 * Runs `work` (everything due at this instant, for the pass's organizations) for each clock that
 * `earliest` finds something due on, one run at a time:
 * now, every second and whenever a clock moves; the clock's `settle()` (the clock route answering)
 * waits for it. Due times are stored, so a restart picks them up. A failed pass is logged as `what`
 * failed; the next goes on. Returns the function that stops following and waits for the run in progress.
 */
export function followDueWork (app: FastifyInstance, what: string, earliest: EarliestDue, work: (scope: DueScope) => Promise<void>): () => Promise<void> {
  let queue: Promise<void> = Promise.resolve()
  const pass = async (scope: DueScope): Promise<void> => {
    try {
      await app.clock.within(scope, async () => { await work(scope) })
    } catch (err) {
      app.log.error({ err, organizationId: scope ?? undefined }, `${what} failed`)
    }
  }
  const all = async (): Promise<void> => {
    // Another replica may have moved an organization's clock: read the clocks first.
    await app.sharedState.refresh().catch(() => {})
    let scopes: DueScope[]
    try {
      scopes = scopesDue(app.clock, await earliest(latestNow(app.clock)))
    } catch (err) {
      app.log.error({ err }, `${what} failed`)
      return
    }
    for (const scope of scopes) await pass(scope)
  }
  // Kicks coalesce: while a run waits to start, every kick is answered by it (it will see all
  // that happened before it starts). Without this, each move of a clock queued a run of its own,
  // and on PostgreSQL, where every change another replica makes is a move to adopt, the queue
  // grew faster than it drained and `settle()` (the clock route's answer) waited on all of it.
  let waiting: Promise<void> | undefined
  const run = (): Promise<void> => {
    if (waiting !== undefined) return waiting
    const next: Promise<void> = queue.then(async () => {
      if (waiting === next) waiting = undefined
      await all()
    })
    waiting = next
    queue = next
    return next
  }
  const kick = (): void => { run().catch(() => {}) }
  const timer = setInterval(kick, 1000)
  timer.unref()
  app.clock.on('change', kick)
  const unfollow = app.clock.follow(run)
  kick()
  return async () => {
    clearInterval(timer)
    app.clock.off('change', kick)
    unfollow()
    await queue
  }
}

/**
 * Runs `write` for the items 25 at a time, so each 25 go into one group commit (one COMMIT and one
 * fsync) instead of one each; they run in the items' order, each atomic on its own. Waits for all
 * of them, then throws the first failure, if any (the others are done). Awaited one after another,
 * 100 due settlements made 100 commits: under load they fell behind by thousands, and the backlog
 * kept the server busy, a commit at a time, long after the load had stopped. All 100 in one commit
 * held the requests of that group until the last was written (the quote and transaction's p99 54 and
 * 55 ms in two runs, against 44 and 45 with 25 a commit).
 */
export async function allTogether<T> (items: readonly T[], write: (item: T) => Promise<unknown>, size = 25): Promise<void> {
  let failure: { reason: unknown } | undefined
  for (let i = 0; i < items.length; i += size) {
    const outcomes = await Promise.allSettled(items.slice(i, i + size).map(write))
    failure ??= outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
  }
  if (failure !== undefined) throw failure.reason
}
