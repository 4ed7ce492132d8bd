import t from 'tap'
import { build } from '../helpers.js'
import { PORTAL_JS } from '../../src/webhooks/portal/script.js'
import { managementLink } from './support.js'

t.test('the portal script is valid JavaScript', async t => {
  t.doesNotThrow(() => new Function(PORTAL_JS), 'it parses') // eslint-disable-line no-new-func
})

t.test('the page\'s stylesheet and script are served by the app, from nowhere else', async t => {
  const app = await build(t)
  const link = await managementLink(app)
  const page = await app.inject({ method: 'GET', url: link.path })
  const assets = [...page.body.matchAll(/(?:href|src)="([^"]+)"/g)].map(m => m[1])
  t.same(assets, ['data:,', 'assets/portal.css', 'assets/portal.js'], 'an empty icon, and assets relative to the page')

  const css = await app.inject({ method: 'GET', url: new URL('assets/portal.css', `http://x${link.path}`).pathname })
  t.equal(css.statusCode, 200)
  t.match(css.headers['content-type'], /^text\/css/)
  t.match(css.body, /\.card\s*\{/)
  const js = await app.inject({ method: 'GET', url: '/webhooks/portal/assets/portal.js' })
  t.equal(js.statusCode, 200)
  t.match(js.headers['content-type'], /^text\/javascript/)
  t.equal(js.body, PORTAL_JS)
  for (const body of [css.body, js.body]) {
    t.notMatch(body, /https?:\/\/\w/, 'no absolute URL: nothing is fetched from elsewhere')
    t.notMatch(body, /@import|url\(/, 'no further resources')
  }
})
