// The interactive API docs in a real browser: they render the sandbox's own OpenAPI document and
// fetch nothing from another host (machines here and in CI have no internet).
import t from 'tap'
import { build } from '../helpers.js'
import { launchBrowser, withoutChromium } from '../browser.js'

t.test('/docs renders every area from local files only', { skip: withoutChromium }, async t => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

  const browser = await launchBrowser(t)
  const page = await browser.newPage()
  const foreign: string[] = []
  page.on('request', r => { if (!r.url().startsWith(base) && !r.url().startsWith('data:')) foreign.push(r.url()) })

  const res = await page.goto(`${base}/docs`)
  t.equal(res?.status(), 200)
  await page.getByText('Core API sandbox', { exact: false }).first().waitFor()
  for (const tag of ['Authentication', 'Users', 'Metadata', 'KYC sharing', 'Webhooks', 'Sandbox']) {
    t.ok(await page.locator('.opblock-tag', { hasText: tag }).first().isVisible(), `tag ${tag} is shown`)
  }
  // Tags start collapsed (docExpansion none): opening one lists its operations.
  await page.locator('.opblock-tag', { hasText: 'Authentication' }).first().click()
  await page.getByText('/core/oauth2/token').first().waitFor()
  t.ok(await page.getByText('/core/oauth2/token').first().isVisible(), 'the token operation is listed')
  await page.locator('.opblock-tag', { hasText: 'Portfolio' }).first().click()
  await page.getByText('/core/portfolio/accounts/_mget/performance').first().waitFor()
  t.ok(await page.getByText('/core/portfolio/accounts/_mget/performance').first().isVisible(), 'a tag near the end lists its operations too')
  t.same(foreign, [], 'nothing is fetched from another host')
})
