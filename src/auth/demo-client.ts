// The demo client exists from the first start, and again after every reset: every scope,
// refresh tokens on, in the demo organization.
import type { FastifyInstance } from 'fastify'
import { allScopes } from './scopes.js'

/**
 * The default demo secret (DEFAULT_DEMO_CLIENT_SECRET, printed at every start and in the README)
 * derived once, with a salt chosen once, by the key derivation of src/auth/clients.ts; a test
 * derives it again. A new database, and each reset of the demo organization, store it as it is
 * instead of deriving it anew: a derivation is 16 MiB of fresh memory and 50 to 80 ms of a core,
 * which a new database's start waited for (BENCHMARKS.md). A salt shared by every sandbox protects
 * nothing here, since the secret is public; any other secret (SANDBOX_CLIENT_SECRET, a rotation, a
 * fixture's client) gets a salt of its own.
 */
export const DEFAULT_DEMO_SECRET_HASHED = { secretSalt: 'bFfdv2L9ktLcd5zunLkmSA==', secretHash: 'VU0JlosuhMw1yDS23zmxmbuj1PZ1YViWbY8uEC1GSeQ=' }

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
      refreshTokens: true,
      // Not from the environment, the secret is DEFAULT_DEMO_CLIENT_SECRET (src/config.ts).
      hashed: secretFromEnv ? undefined : DEFAULT_DEMO_SECRET_HASHED
    })
  } else if (secretFromEnv && await app.clients.authenticate(clientId, clientSecret) === undefined) {
    // The environment names the secret: it wins over what an earlier run stored.
    await app.clients.rotateSecret(clientId, clientSecret)
  }
}
