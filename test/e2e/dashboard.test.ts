// The dashboard in a real browser: it asks for the admin token, then shows the clock, the clients
// and the request log of a listening sandbox (each reached by its link), with a request the test made.
import t from 'tap'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { accessToken, bearer, build, waitFor } from '../helpers.js'
import { launchBrowser, withoutChromium } from '../browser.js'

const ADMIN = 'dashboard-admin-token-0123456789'

t.test('the dashboard shows the request log of a listening sandbox, behind the admin token', { skip: withoutChromium }, async t => {
  const app = await build(t, { adminToken: ADMIN })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

  const missing = await fetch(`${base}/core/nothing`)
  t.equal(missing.status, 404)
  const requestId = missing.headers.get('x-service-request-id')!

  const browser = await launchBrowser(t)
  const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } })
  const problems: string[] = []
  page.on('console', m => { if (m.type() === 'error') problems.push(m.text()) })
  page.on('pageerror', e => problems.push(e.message))

  const res = await page.goto(`${base}/_sandbox/`)
  t.equal(res?.status(), 200, 'the page loads without the token')
  const field = page.getByLabel('Admin token')
  await field.waitFor()
  t.match(await page.locator('#auth-message').textContent(), /admin token/i, 'the page asks for the token')

  await field.fill('wrong-token-wrong-token')
  await field.press('Enter')
  await page.locator('#auth-message', { hasText: 'refused' }).waitFor()

  await field.fill(ADMIN)
  await field.press('Enter')
  const show = async (panel: string): Promise<void> => { await page.getByRole('navigation').getByRole('link', { name: panel, exact: true }).click() }
  t.match(await page.locator('#auth-hint').textContent(), /organization's control token .* works too/, 'the hint names the other token')

  // The clock panel comes first.
  await page.locator('#clock .clock-now').waitFor()
  t.match(await page.locator('#clock .clock-now').textContent(), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC$/)
  t.equal(await page.locator('#clock .badge').textContent(), 'Frozen')
  t.equal(await page.locator('#clock-scope').textContent(), 'The sandbox clock.', 'the admin\'s clock is the sandbox\'s')
  t.equal(await page.evaluate(() => sessionStorage.getItem('sandbox.adminToken')), ADMIN, 'kept for the tab')

  await show('Request log')
  const row = page.locator('#requests tbody tr', { hasText: '/core/nothing' })
  await row.waitFor()
  t.match(await row.textContent(), /GET.*\/core\/nothing.*404/)
  t.equal(await row.getAttribute('data-request-id'), requestId, 'the very request the test made')

  // Details of a request open on a click, with credentials masked.
  await row.click()
  const details = page.locator('#requests tr.details pre').first()
  await details.waitFor()
  t.match(await details.textContent(), /"user-agent"/)

  await show('Clients')
  await page.locator('#clients tbody tr', { hasText: 'sandbox-demo-client' }).waitFor()
  await show('Webhooks')
  await page.locator('#deliveries').filter({ hasText: /No deliveries|Created/ }).waitFor()

  // The clock buttons act on the sandbox.
  await show('Clock')
  const before = Date.parse(app.clock.iso())
  await page.getByRole('button', { name: '+1 hour' }).click()
  await waitFor(() => Date.parse(app.clock.iso()) !== before, { what: 'the sandbox clock to move' })
  t.equal(Date.parse(app.clock.iso()) - before, 3_600_000, 'the sandbox clock moved one hour')
  await show('Request log')
  await page.locator('#requests tbody tr', { hasText: '/_sandbox/clock' }).waitFor()

  await page.screenshot({ path: join(tmpdir(), 'dashboard.png'), fullPage: true })
  t.same(problems.filter(p => !/401/.test(p)), [], 'no script errors')
})

t.test('signed in with an organization\'s control token, the dashboard shows that organization and moves its clock only', { skip: withoutChromium }, async t => {
  const app = await build(t, { adminToken: ADMIN })
  const admin = { authorization: `Bearer ${ADMIN}` }
  const organizationId = randomUUID()
  const client = await app.inject({ method: 'POST', url: '/_sandbox/clients', headers: admin, payload: { organizationId, scopes: ['core.*', 'sandbox:control'] } })
  t.equal(client.statusCode, 201)
  const token = await accessToken(app, { clientId: client.json().clientId, secret: client.json().clientSecret })
  const own = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', headers: bearer(token), payload: { users: [{ email: 'own@example.com' }] } })
  t.equal(own.statusCode, 201)
  const ownUser = own.json().users[0].id as string
  const other = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', headers: admin, payload: { users: [{ email: 'demo@example.com' }] } })
  const otherUser = other.json().users[0].id as string
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

  const browser = await launchBrowser(t)
  const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } })
  const problems: string[] = []
  page.on('pageerror', e => problems.push(e.message))
  await page.goto(`${base}/_sandbox/`)
  const field = page.getByLabel('Admin token')
  await field.fill(token)
  await field.press('Enter')

  await page.locator('#clock-scope', { hasText: `The clock of organization ${organizationId}` }).waitFor()
  t.notOk(await page.locator('#org-picker').isVisible(), 'no organization picker')
  t.notOk(await page.locator('#nav-clients').isVisible(), 'no clients panel')
  await page.getByRole('navigation').getByRole('link', { name: 'Users and KYC', exact: true }).click()
  await page.locator(`#kyc tr[data-user-id="${ownUser}"]`).waitFor()
  t.equal(await page.locator(`#kyc tr[data-user-id="${otherUser}"]`).count(), 0, 'another organization\'s user is not shown')

  await page.getByRole('navigation').getByRole('link', { name: 'Clock', exact: true }).click()
  const globalBefore = (await app.inject({ method: 'GET', url: '/_sandbox/clock', headers: admin })).json().now as string
  const ownBefore = Date.parse((await app.inject({ method: 'GET', url: '/_sandbox/clock', headers: bearer(token) })).json().now)
  await page.getByRole('button', { name: '+1 day' }).click()
  const ownNow = async (): Promise<number> => Date.parse((await app.inject({ method: 'GET', url: '/_sandbox/clock', headers: admin, query: { organizationId } })).json().now)
  await waitFor(async () => await ownNow() - ownBefore >= 86_400_000, { what: 'the organization\'s clock to move' })
  const ownAfter = (await app.inject({ method: 'GET', url: '/_sandbox/clock', headers: admin, query: { organizationId } })).json()
  t.equal(Date.parse(ownAfter.now) - ownBefore, 86_400_000, 'the organization\'s clock moved one day')
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/clock', headers: admin })).json().now, globalBefore, 'the global clock did not move')
  t.same(problems, [], 'no script errors')
})
