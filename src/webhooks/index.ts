// The webhooks area: the management link, the portal it opens, the sandbox control routes, the
// dispatcher that delivers the outbox and the retention that prunes what is old, both started when
// the app is ready and stopped on close.
import type { FastifyInstance } from 'fastify'
import { WEBHOOK_SCHEMAS } from '../../schemas/webhooks.js'
import { defineArea } from '../kit/area.js'
import { config } from './config.js'
import { Dispatcher } from './dispatcher.js'
import { migrations } from './migrations.js'
import { webhooksStore } from './store.js'
import { WebhooksService } from './service.js'
import { Retention } from './retention.js'
import managementLinkRoutes from './management-link.js'
import portalRoutes from './portal/routes.js'
import sandboxWebhookRoutes from './sandbox-routes.js'
import { webhooksPanel } from './dashboard-panel.js'

async function webhooksRoutes (app: FastifyInstance): Promise<void> {
  const store = app.storage.store(webhooksStore)
  const dispatcher = new Dispatcher({
    storage: app.storage,
    store,
    clock: app.clock,
    events: app.events,
    log: app.log.child({ area: 'webhooks' }),
    retrySchedule: app.config.webhookRetrySchedule,
    timeoutMs: app.config.webhookTimeoutMs,
    userAgent: `${app.config.serviceName}-webhooks/0.1`
  })
  const retention = new Retention({
    store,
    events: app.storage.events,
    clock: app.clock,
    log: app.log.child({ area: 'webhooks' }),
    retentionSeconds: app.config.webhookRetentionSeconds
  })
  app.addHook('onReady', async () => {
    dispatcher.start()
    retention.start()
  })
  app.addHook('onClose', async () => {
    await retention.stop()
    await dispatcher.stop()
  })

  for (const schema of WEBHOOK_SCHEMAS) app.addSchema(schema)
  const service = new WebhooksService(app, dispatcher, store)
  await app.register(managementLinkRoutes, { service })
  await app.register(portalRoutes, { service })
  await app.register(sandboxWebhookRoutes, { service })
}

export default defineArea({
  config,
  name: 'webhooks',
  tags: [{ name: 'Webhooks', description: 'Webhook management links.' }],
  migrations,
  dashboardPanels: [webhooksPanel],
  plugin: webhooksRoutes
})
