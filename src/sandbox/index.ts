// The sandbox control API under /_sandbox (not part of the real service). The entities it creates
// (`/_sandbox/entities`, the `entities` fixture key) are real records of the areas that hold them:
// files, accounts, external accounts and transactions.
import type { FastifyInstance } from 'fastify'
import { defineArea } from '../kit/area.js'
import { config } from './config.js'
import health from './health.js'
import state from './state.js'
import clients from './clients.js'
import clock from './clock.js'
import log from './log.js'
import faultRules from './fault-rules.js'
import dashboard from './dashboard.js'
import { sandboxPanels } from './dashboard-panels.js'
import { entitiesFixture, loadSeed, organizationsFixture } from './fixtures.js'
import { migrations } from './migrations.js'

async function sandboxRoutes (app: FastifyInstance): Promise<void> {
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

export default defineArea({
  config,
  name: 'sandbox',
  tags: [{ name: 'Sandbox', description: 'Sandbox control API: not part of the real service.' }],
  migrations,
  fixtures: [organizationsFixture, entitiesFixture],
  dashboardPanels: sandboxPanels,
  // A reset removed fault rules and organizations' clocks with their rows: the cached list goes,
  // the clocks are read again. A full reset also gives the global clock back its real time.
  reset: async (app, organizationId) => {
    app.faults.forget()
    if (organizationId !== undefined) {
      await app.sharedState.reloadOrganizationClocks()
      return
    }
    app.clock.clearOrganizations()
    app.clock.real()
  },
  plugin: sandboxRoutes
})
