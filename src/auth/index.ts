// The auth area: the OAuth 2.0 token endpoint, and the clients of fixtures.
import { defineArea } from '../kit/area.js'
import authRoutes from './routes.js'
import { clientsFixture } from './fixtures.js'
import { ensureDemoClient } from './demo-client.js'

export default defineArea({
  name: 'auth',
  tags: [{ name: 'Authentication', description: 'OAuth 2.0 token issuance.' }],
  fixtures: [clientsFixture],
  // The client registry remembers clients; after a reset the demo client is made again.
  reset: async (app) => {
    app.clients.forget()
    await ensureDemoClient(app)
  },
  plugin: authRoutes
})
