// The dashboard's KYC section in a real browser: each user's summary and process statuses, and a
// form that forces a process's outcome through the control API.
import t from 'tap'
import { waitFor } from '../helpers.js'
import { buildKyc, kycEvents, kycUser, PROFILE } from './support.js'
import { launchBrowser, withoutChromium } from '../browser.js'

t.test('the dashboard shows each user\'s KYC and forces an outcome', { skip: withoutChromium }, async t => {
  const app = await buildKyc(t)
  const u = await kycUser(t, app, { email: 'dash.board@example.com' })
  await u.patch('profile', PROFILE)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

  const browser = await launchBrowser(t)
  const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } })
  const problems: string[] = []
  page.on('console', m => { if (m.type() === 'error') problems.push(m.text()) })
  page.on('pageerror', e => problems.push(e.message))
  await page.goto(`${base}/_sandbox/`)
  await page.getByRole('link', { name: 'Users and KYC' }).click()

  const row = page.locator(`#kyc tr[data-user-id="${u.userId}"]`)
  await row.waitFor()
  t.match(await row.textContent(), /dash\.board@example\.com/)
  t.match(await row.textContent(), /pending.*profile ok.*screening running/s, 'the summary and each process')

  await row.getByLabel('Process').selectOption('screening')
  await row.getByLabel('Outcome').selectOption('failed')
  await row.getByRole('button', { name: 'Force' }).click()
  await waitFor(async () => (await kycEvents(app, u.userId)).includes('screening:failed'), { what: 'the forced outcome' })
  await page.locator(`#kyc tr[data-user-id="${u.userId}"] .kyc-blocked`).waitFor()
  t.pass('the summary shows the user blocked')
  t.same(problems, [], 'no script errors')
})
