// The dashboard in a real browser: a navigation reaches each panel the areas contribute, one at a
// time (the request log last, 20 entries a page); a trade reads as one. The page built from the
// areas' declarations; a token bound to an organization, and a refused call, as the page shows them.
import t, { type Test } from 'tap'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { createTransaction, deposit } from '../../src/transactions/service.js'
import { DEMO_ORG } from '../helpers.js'
import { quoteSetup, type QuoteSetup } from '../quotes/support.js'
import { launchBrowser, withoutChromium } from '../browser.js'

const CONTEXT = { ip: '47.174.97.164', agent: 'dashboard-test' }
const HOOK_URL = 'https://hooks.example.com/dashboard'

/** A user with 100 GBP who bought BTC with 10 of them, a webhook endpoint, a fault rule and 30 logged requests. */
async function seeded (s: QuoteSetup): Promise<{ tradeId: string, base: string }> {
  await deposit(s.app, { organizationId: DEMO_ORG, userId: s.userId, accountId: s.accounts.GBP, originNode: { type: 'bank-address', network: 'fps' }, asset: 'GBP', amount: '100' })
  const quote = (await s.quote({ origin: { type: 'account', id: s.accounts.GBP }, destination: { type: 'account', id: s.accounts.BTC }, denomination: { asset: 'GBP', amount: '10' } })).json().quote
  const tradeId = (await createTransaction(s.app, DEMO_ORG, s.userId, { quoteId: quote.id }, CONTEXT)).transaction.id as string
  const endpoint = await s.app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url: HOOK_URL, description: 'Dashboard test endpoint', eventTypes: ['core.user.created'] } })
  if (endpoint.statusCode !== 201) throw new Error(endpoint.body)
  const fault = await s.app.inject({ method: 'POST', url: '/_sandbox/faults', payload: { path: '/core/never/*', status: 503 } })
  if (fault.statusCode !== 201) throw new Error(fault.body)
  await s.app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(s.app.server.address() as { port: number }).port}`
  for (let i = 0; i < 30; i++) await fetch(`${base}/core/nothing/${i}`)
  return { tradeId, base }
}

async function openPage (t: Test, base: string, prepare?: (page: Page) => Promise<void>): Promise<{ page: Page, problems: string[] }> {
  const browser = await launchBrowser(t)
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } })
  const problems: string[] = []
  page.on('console', m => { if (m.type() === 'error') problems.push(m.text()) })
  page.on('pageerror', e => problems.push(e.message))
  await prepare?.(page)
  t.equal((await page.goto(`${base}/_sandbox/`))?.status(), 200)
  return { page, problems }
}

t.test('a navigation reaches each panel, one at a time; the request log comes last and pages', { skip: withoutChromium }, async t => {
  const s = await quoteSetup(t)
  const { tradeId, base } = await seeded(s)
  const { page, problems } = await openPage(t, base)
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-panels-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })

  const nav = page.getByRole('navigation', { name: 'Dashboard panels' })
  const links = nav.getByRole('link')
  t.same(await links.allTextContents(), ['Clock', 'Clients', 'Users and KYC', 'Accounts', 'Transactions', 'Webhooks', 'Fault rules', 'Request log'],
    'every panel in the navigation, the request log last')

  // What each panel shows of the seeded sandbox once reached.
  const expected: Record<string, { link: string, content: string }> = {
    clock: { link: 'Clock', content: '#clock .clock-now' },
    clients: { link: 'Clients', content: '#clients tbody tr:has-text("sandbox-demo-client")' },
    users: { link: 'Users and KYC', content: `#kyc tr[data-user-id="${s.userId}"]` },
    accounts: { link: 'Accounts', content: `#accounts [data-account-id="${s.accounts.GBP}"]:has-text("GBP 100 (90 available)")` },
    transactions: { link: 'Transactions', content: `#transactions tr[data-transaction-id="${tradeId}"]` },
    webhooks: { link: 'Webhooks', content: `#endpoints tr:has-text("${HOOK_URL}")` },
    faults: { link: 'Fault rules', content: '#faults li:has-text("/core/never/*")' },
    requests: { link: 'Request log', content: '#requests tbody tr[data-request-id]' }
  }
  const ids = Object.keys(expected)
  for (const id of ids) {
    await nav.getByRole('link', { name: expected[id].link, exact: true }).click()
    await page.locator(expected[id].content).first().waitFor()
    t.equal(new URL(page.url()).hash, `#${id}`, `${id}: the link's anchor`)
    t.ok(await page.locator(`#panel-${id}`).isVisible(), `${id}: its panel is shown`)
    t.equal(await page.locator(`#panel-${id} h2`).isVisible(), true)
    t.notMatch(await page.locator(`#panel-${id}`).innerText(), /Loading…/, `${id}: loaded`)
    t.equal(await nav.getByRole('link', { name: expected[id].link, exact: true }).getAttribute('aria-current'), 'page')
    for (const other of ids.filter(o => o !== id)) t.notOk(await page.locator(`#panel-${other}`).isVisible(), `${id}: ${other} is not shown`)
    const height = await page.evaluate(() => document.documentElement.scrollHeight)
    t.ok(height < 2000, `${id}: the page is ${height} px tall`)
    const file = join(dir, `${id}.png`)
    await page.screenshot({ path: file, fullPage: true })
    t.ok(statSync(file).size > 1000, `${id}: screenshot saved`)
    t.same([...readFileSync(file).subarray(1, 4)], [...Buffer.from('PNG')], `${id}: a PNG`)
  }

  // The trade reads as one.
  await nav.getByRole('link', { name: 'Transactions' }).click()
  const trade = page.locator(`#transactions tr[data-transaction-id="${tradeId}"]`)
  t.equal(await trade.locator('td.kind').textContent(), 'buy BTC', 'GBP to BTC is a purchase of BTC')
  t.match(await trade.textContent(), /buy BTC.*10\.00 GBP · account.*BTC · account.*processing/s)
  t.match(await page.locator('#panel-transactions').innerText(), /buy and the asset bought/, 'the page says the rule')

  // The request log: 20 a page, newest first; the next page holds older entries.
  await nav.getByRole('link', { name: 'Request log' }).click()
  const paths = async (): Promise<number[]> => (await page.locator('#requests tbody tr[data-request-id] td.path').allTextContents())
    .map(p => /^\/core\/nothing\/(\d+)$/.exec(p)).filter(m => m !== null).map(m => Number(m[1]))
  await page.locator('#requests tbody tr[data-request-id]').nth(19).waitFor()
  t.equal(await page.locator('#requests tbody tr[data-request-id]').count(), 20, 'a page holds 20 entries')
  const first = await paths()
  t.same(first.slice(0, 3), [29, 28, 27], 'the newest first')
  t.equal(await page.getByRole('button', { name: 'Previous page' }).isDisabled(), true)
  await page.getByRole('button', { name: 'Next page' }).click()
  await page.locator('#requests-page', { hasText: 'Page 2' }).waitFor()
  await page.locator('#requests tbody tr[data-request-id] td.path', { hasText: /^\/core\/nothing\/0$/ }).waitFor()
  const second = await paths()
  t.ok(second.length > 0, 'page 2 has entries')
  t.ok(Math.max(...second) < Math.min(...first), `page 2 (${second.join(',')}) is older than page 1 (${first.join(',')})`)
  await page.screenshot({ path: join(dir, 'requests-page-2.png'), fullPage: true })
  t.ok(statSync(join(dir, 'requests-page-2.png')).size > 1000)
  await page.getByRole('button', { name: 'Previous page' }).click()
  await page.locator('#requests-page', { hasText: 'Page 1' }).waitFor()
  t.same((await paths()).slice(0, 3), [29, 28, 27], 'back on page 1')

  // The organization picked is the one the panels ask for.
  await nav.getByRole('link', { name: 'Users and KYC' }).click()
  const asked = page.waitForRequest(r => r.url().endsWith(`/_sandbox/kyc?organizationId=${DEMO_ORG}`))
  await page.getByLabel('Organization').selectOption(DEMO_ORG)
  await asked
  await page.locator(`#kyc tr[data-user-id="${s.userId}"]`).waitFor()
  t.pass('the users of the organization picked')

  // A link opened directly shows its panel.

  await page.goto(`${base}/_sandbox/#webhooks`)
  await page.locator(`#endpoints tr:has-text("${HOOK_URL}")`).waitFor()
  t.notOk(await page.locator('#panel-clock').isVisible(), 'only the panel of the anchor')
  t.same(problems, [], 'no script errors')
})

t.test('a token bound to an organization: that organization only, no global calls, a refusal read out', { skip: withoutChromium }, async t => {
  const s = await quoteSetup(t)
  const { base } = await seeded(s)
  const calls: string[] = []
  const { page, problems } = await openPage(t, base, async page => {
    page.on('request', r => { if (r.url().includes('/_sandbox/')) calls.push(`${r.method()} ${new URL(r.url()).pathname}${new URL(r.url()).search}`) })
    // What GET /_sandbox/clock answers for an organization's control token; its own calls are the sandbox's.
    await page.route('**/_sandbox/clock', async route => {
      if (route.request().method() !== 'GET') return await route.continue()
      const real = await (await route.fetch()).json()
      await route.fulfill({ json: { ...real, organizationId: DEMO_ORG } })
    })
    await page.route('**/_sandbox/kyc?*', async route => await route.fulfill({ status: 403, json: { code: 'forbidden', message: 'The token may not list these users' } }))
  })

  await page.locator('#clock-scope', { hasText: `The clock of organization ${DEMO_ORG}` }).waitFor()
  t.notOk(await page.locator('#org-picker').isVisible(), 'no organization picker')
  t.match(await page.locator('#org-bound').textContent(), DEMO_ORG, 'the organization named instead')
  t.notOk(await page.locator('#nav-clients').isVisible(), 'the clients panel (every organization\'s) is left out')
  t.ok(await page.locator('#nav-transactions').isVisible())

  await page.getByRole('link', { name: 'Users and KYC' }).click()
  const refused = page.locator('#kyc [role=alert]')
  await refused.waitFor()
  t.equal(await refused.textContent(), 'Not allowed with this token: The token may not list these users (an organization\'s token reaches its own organization only).', 'a 403 read out')

  // The page goes on working.
  await page.getByRole('link', { name: 'Accounts' }).click()
  await page.locator(`#accounts [data-account-id="${s.accounts.GBP}"]`).waitFor()
  await page.getByRole('link', { name: 'Webhooks' }).click()
  await page.locator(`#endpoints tr:has-text("${HOOK_URL}")`).waitFor()
  // The clients link was left out: its anchor opens the first panel instead.
  await page.goto(`${base}/_sandbox/#clients`)
  await page.locator('#panel-clock #clock .clock-now').waitFor()
  t.notOk(await page.locator('#panel-clients').isVisible())

  t.same(calls.filter(c => /\/_sandbox\/(organizations|clients)/.test(c)), [], 'no call that lists every organization')
  t.ok(calls.some(c => c === `GET /_sandbox/ledger?organizationId=${DEMO_ORG}`), 'calls name the organization')
  t.ok(calls.some(c => c === `GET /_sandbox/webhooks/endpoints?organizationId=${DEMO_ORG}`))
  t.same(problems.filter(p => !/403/.test(p)), [], 'no script errors')
  // The page polls the clock: let a fetch in flight through the route finish before the browser
  // and the server close, or Playwright throws it into the test as an unhandled error.
  await page.unrouteAll({ behavior: 'wait' })
})

t.test('the page composes the areas\' panels; its policy allows exactly its inline script and style', async t => {
  const s = await quoteSetup(t)
  const res = await s.app.inject({ method: 'GET', url: '/_sandbox/' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/html/)
  const panels = s.app.areas.dashboardPanels()
  t.same(panels.map(p => p.id), ['clock', 'clients', 'users', 'accounts', 'transactions', 'webhooks', 'faults', 'requests'])
  for (const p of panels) t.match(res.body, `<section class="card" id="panel-${p.id}"`, `${p.id}: its section`)
  const { createHash } = await import('node:crypto')
  const digest = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`
  const script = /<script>([\s\S]*)<\/script>/.exec(res.body)![1]
  const style = /<style>([\s\S]*)<\/style>/.exec(res.body)![1]
  t.match(res.headers['content-security-policy'], `script-src ${digest(script)}`)
  t.match(res.headers['content-security-policy'], `style-src ${digest(style)}`)
  t.match(res.headers['content-security-policy'], "default-src 'none'")
})
