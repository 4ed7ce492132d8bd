// The webhooks portal in a real browser, against a listening sandbox: open the management link,
// add an endpoint through the form, read its signing secret from the page, trigger an event over
// HTTP, verify the delivery with a Standard Webhooks library, see the attempt on the page, rotate the
// secret, and see the page turn into the expired notice once the sandbox clock passes expiresAt.
import t from 'tap'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { basic, build, DEMO_ID, DEMO_SECRET } from '../helpers.js'
import { startReceiver } from '../webhooks/support.js'
import { launchBrowser, withoutChromium } from '../browser.js'

async function token (base: string, scope: string): Promise<string> {
  const res = await fetch(`${base}/core/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic(DEMO_ID, DEMO_SECRET), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope })
  })
  return (await res.json() as { access_token: string }).access_token
}

t.test('a person manages webhooks through the management link in a browser', { skip: withoutChromium }, async t => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const receiver = await startReceiver(t)

  const linkRes = await fetch(`${base}/core/webhooks/management-link`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await token(base, 'core.webhooks:management-link')}` }
  })
  t.equal(linkRes.status, 201)
  const { managementLink } = await linkRes.json() as { managementLink: { url: string, expiresAt: string } }
  t.ok(managementLink.url.startsWith(`${base}/webhooks/portal/`), 'the link points at this server')

  const browser = await launchBrowser(t)
  const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } })
  const problems: string[] = []
  // Failed loads are checked one by one below (the refused URL is a 400, the expired link a 410).
  page.on('console', m => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text()) })
  page.on('pageerror', e => problems.push(e.message))
  const failures: string[] = []
  page.on('response', r => { if (r.status() >= 400) failures.push(`${r.request().method()} ${r.status()} ${new URL(r.url()).pathname.replace(/portal\/[^/]+/, 'portal/<token>')}`) })
  const outside: string[] = []
  page.on('request', r => { if (!r.url().startsWith(base)) outside.push(r.url()) })

  const opened = await page.goto(managementLink.url)
  t.equal(opened?.status(), 200)
  await page.getByText('No endpoints yet').waitFor()

  // Add an endpoint for user creations only.
  await page.getByLabel('Endpoint URL').fill(receiver.url)
  await page.getByLabel('Description').fill('Local receiver')
  await page.getByText('Event types:').click()
  await page.getByLabel('core.user.created').check()
  t.equal(await page.locator('#event-filter-summary').textContent(), '1 selected')
  await page.getByRole('button', { name: 'Add endpoint' }).click()

  const secretField = page.getByLabel('Signing secret')
  await secretField.waitFor()
  const secret = await secretField.inputValue()
  t.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/)
  t.equal(await page.getByLabel('Endpoint URL').inputValue(), '', 'the form is cleared')
  const card = page.locator('li.endpoint')
  t.match(await card.textContent(), new RegExp(`${receiver.url}.*Enabled.*Local receiver.*core\\.user\\.created`))

  // A refused URL is explained on the form.
  await page.getByLabel('Endpoint URL').fill('ftp://example.com/hook')
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await page.getByRole('alert').filter({ hasText: 'absolute http:// or https:// URL' }).waitFor()
  t.equal(await page.locator('li.endpoint').count(), 1)

  // An event of the organization, triggered through the API.
  const identified = await fetch(`${base}/partner/kyc-sharing/identify-user`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await token(base, 'partner.kyc-sharing:identify-user')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'browser@example.com', country: 'GB' })
  })
  t.equal(identified.status, 201)
  const [delivery] = await receiver.waitFor(1)
  const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]))
  const event = new Webhook(secret).verify(delivery.body, headers) as { type: string, data: { user: { email: string } } }
  t.equal(event.type, 'core.user.created')
  t.equal(event.data.user.email, 'browser@example.com')

  // The page shows the message and its attempt.
  const message = page.locator('li.message', { hasText: 'core.user.created' })
  await message.locator('table.attempts td', { hasText: /^200$/ }).waitFor()
  t.match(await message.locator('.badge').textContent(), 'Delivered')
  t.match(await message.locator('table.attempts tbody tr').textContent(), /UTC.*200.*\d+ ms.*ok/)

  // A test event goes through the same path.
  await page.getByRole('button', { name: 'Send test event' }).click()
  await page.locator('li.message', { hasText: 'webhook.test' }).locator('table.attempts td', { hasText: /^200$/ }).waitFor()
  const [, test] = await receiver.waitFor(2)
  t.equal((new Webhook(secret).verify(test.body, Object.fromEntries(Object.entries(test.headers).map(([k, v]) => [k, String(v)]))) as { type: string }).type, 'webhook.test')

  // Rotating the secret: the page shows the new one and until when the old one still signs; a
  // delivery verifies with either.
  await page.getByRole('button', { name: 'Rotate secret' }).click()
  await page.getByText('The previous secret also signs deliveries until').waitFor()
  const rotated = await secretField.inputValue()
  t.match(rotated, /^whsec_[A-Za-z0-9+/]{32}$/)
  t.not(rotated, secret, 'a new secret on the page')
  await page.getByRole('button', { name: 'Send test event' }).click()
  const [, , afterRotation] = await receiver.waitFor(3)
  const rotationHeaders = Object.fromEntries(Object.entries(afterRotation.headers).map(([k, v]) => [k, String(v)]))
  t.doesNotThrow(() => new Webhook(secret).verify(afterRotation.body, rotationHeaders), 'the old secret verifies')
  t.doesNotThrow(() => new Webhook(rotated).verify(afterRotation.body, rotationHeaders), 'the new secret verifies')

  // For a person to look at; never committed.
  await page.screenshot({ path: join(tmpdir(), 'portal.png'), fullPage: true })

  // Past expiresAt by the sandbox clock, the open page turns into the expired notice, and so does a reload.
  app.clock.set(Date.parse(managementLink.expiresAt) + 1000)
  await page.getByRole('heading', { name: 'This link has expired' }).waitFor()
  t.equal(await page.getByLabel('Endpoint URL').count(), 0, 'the form is gone')
  const reloaded = await page.reload()
  t.equal(reloaded?.status(), 410)
  await page.getByRole('heading', { name: 'This link has expired' }).waitFor()
  await page.screenshot({ path: join(tmpdir(), 'portal-expired.png') })

  t.same(problems, [], 'no script errors and no content-security-policy violations')
  t.same(outside, [], 'nothing fetched from elsewhere')
  t.same(failures.filter(f => !f.includes(' 410 ')), ['POST 400 /webhooks/portal/<token>/api/endpoints'], 'the only failure before expiry: the refused URL')
  t.ok(failures.includes('GET 410 /webhooks/portal/<token>'), 'the reload')
})
