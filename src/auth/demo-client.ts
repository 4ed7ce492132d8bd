// The demo client exists from the first start, and again after every reset: every scope,
// refresh tokens on, in the demo organization.
import type { FastifyInstance } from 'fastify'
import { allScopes } from './scopes.js'

export async function ensureDemoClient (app: FastifyInstance): Promise<void> {
  const { clientId, clientSecret, secretFromEnv, organizationId } = app.config.demoClient
  await app.storage.organizations.ensure(organizationId, 'Sandbox demo organization', app.clock.iso())
  const existing = await app.storage.clients.get(clientId)
  if (existing === undefined) {
    await app.clients.create({
      clientId,
      clientSecret,
      organizationId,
      name: 'Demo client',
      scopes: Object.keys(allScopes(app.config.partnerArea)),
      refreshTokens: true
    })
  } else if (secretFromEnv && await app.clients.authenticate(clientId, clientSecret) === undefined) {
    // The environment names the secret: it wins over what an earlier run stored.
    await app.clients.rotateSecret(clientId, clientSecret)
  }
}
