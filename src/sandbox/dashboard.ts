// GET /_sandbox/: the dashboard page. The page itself is open (it holds no data), so a browser can
// load it and ask for the admin token; every call it makes for data is guarded.
import type { FastifyInstance } from 'fastify'
import { DASHBOARD_CSP, dashboardPage } from './dashboard-page.js'
import { control } from '../kit/operation.js'

export default async function dashboard (app: FastifyInstance): Promise<void> {
  const page = dashboardPage({ tokenRequired: app.config.adminToken !== undefined })

  control(app, {
    id: 'sandboxDashboard',
    method: 'GET',
    url: '/_sandbox/',
    acts: 'open',
    summary: 'Dashboard',
    description: 'An HTML page showing the clock (with buttons to advance, freeze and restore it), the clients, the users with their KYC summary and process statuses (with a form to force a process\'s outcome) and their accounts with balances, the transactions with their status (with buttons that complete, fail or hold a pending one), the request log ' +
        '(filters, auto-refresh, headers and bodies per request), webhook deliveries and fault rules. ' +
        'The page loads without the admin token; when SANDBOX_ADMIN_TOKEN is set it asks for it in a field labelled "Admin token", ' +
        'keeps it for the browser tab only (sessionStorage) and sends it as Bearer on its calls to the control API.',
    produces: ['text/html'],
    responses: { 200: { description: 'The dashboard page.', content: { 'text/html': { schema: { type: 'string' } } } } }
  }, async (_request, reply) => reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', DASHBOARD_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .send(page))

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
