// GET /_sandbox/: the dashboard page. The page itself is open (it holds no data), so a browser can
// load it and ask for the admin token; every call it makes for data is guarded. Its panels are the
// areas' declarations (`dashboardPanels`), composed once when the app is built.
import type { FastifyInstance } from 'fastify'
import { dashboardPage } from './dashboard-page.js'
import { control } from '../kit/operation.js'

export default async function dashboard (app: FastifyInstance): Promise<void> {
  const panels = app.areas.dashboardPanels()
  const page = dashboardPage({ tokenRequired: app.config.adminToken !== undefined, panels })

  control(app, {
    id: 'sandboxDashboard',
    method: 'GET',
    url: '/_sandbox/',
    acts: 'open',
    summary: 'Dashboard',
    description: 'An HTML page of panels, one shown at a time, each behind a link of its navigation (`#<panel>`): ' +
        `${panels.map(p => p.title).join(', ')}. Each area contributes its panels; the request log comes last, 20 entries a page. ` +
        'The page loads without the admin token; when SANDBOX_ADMIN_TOKEN is set it asks for it in a field labelled "Admin token", ' +
        'keeps it for the browser tab only (sessionStorage) and sends it as Bearer on its calls to the control API. An organization\'s ' +
        'control token (client credentials with the `sandbox:control` scope) works too: when `GET /_sandbox/clock` names its organization, ' +
        'the page shows that organization only, leaves out the panels that list every organization, and its clock buttons move that organization\'s clock. ' +
        'A refused call (403) is shown in its panel.',
    produces: ['text/html'],
    responses: { 200: { description: 'The dashboard page.', content: { 'text/html': { schema: { type: 'string' } } } } }
  }, async (_request, reply) => reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', page.csp)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .send(page.html))

  control(app, {
    id: 'sandboxDashboardRedirect',
    method: 'GET',
    url: '/_sandbox',
    acts: 'open',
    summary: 'Dashboard (redirect)',
    description: 'Redirects to `/_sandbox/`.',
    responses: { 302: { description: 'To the dashboard.', type: 'null' } }
  }, async (_request, reply) => reply.redirect('/_sandbox/', 302))
}
