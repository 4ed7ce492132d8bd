// The sandbox control API under /_sandbox (not part of the real service).
import type { FastifyInstance } from 'fastify'
import health from './health.js'
import state from './state.js'
import clients from './clients.js'
import clock from './clock.js'
import log from './log.js'
import faultRules from './fault-rules.js'
import dashboard from './dashboard.js'
import { loadSeed } from './fixtures.js'

export default async function sandboxArea (app: FastifyInstance): Promise<void> {
  // A bad seed file stops the start-up here, with every bad path in the message.
  const seed = app.config.seedFile === undefined ? undefined : await loadSeed(app, app.config.seedFile)
  await app.register(health)
  await app.register(state, { seed })
  await app.register(clients)
  await app.register(clock)
  await app.register(log)
  await app.register(faultRules)
  await app.register(dashboard)
}
