// Work the service owes on the sandbox clock (cooldowns ending, card checks, settlements): the
// areas store when each item falls due, and one follower per area runs what has come.
import type { FastifyInstance } from 'fastify'

/**
 * Runs `work` (everything due at this instant), one run at a time: now, every second and whenever
 * the clock moves; the clock's `settle()` (the clock route answering) waits for it. Due times are
 * stored, so a restart picks them up. A failed run is logged as `what` failed; the next goes on.
 * Returns the function that stops following and waits for the run in progress.
 */
export function followDueWork (app: FastifyInstance, what: string, work: () => Promise<void>): () => Promise<void> {
  let queue: Promise<void> = Promise.resolve()
  const run = (): Promise<void> => (queue = queue.then(work).catch(err => { app.log.error({ err }, `${what} failed`) }))
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
