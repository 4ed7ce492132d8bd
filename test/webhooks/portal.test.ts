import t from 'tap'
import { Script } from 'node:vm'
import { build } from '../helpers.js'
import { PORTAL_JS } from '../../src/webhooks/portal/script.js'
import { addEndpoint, managementLink } from './support.js'

/** The SyntaxError a browser would meet in the script, or null. */
function syntaxError (source: string): string | null {
  try {
    new Script(source, { filename: 'portal.js' }) // eslint-disable-line no-new
    return null
  } catch (error) {
    return String(error)
  }
}

t.test('the served portal script parses, and every API call it makes reaches a route of the portal', async t => {
  const app = await build(t)
  const link = await managementLink(app)
  const js = await app.inject({ method: 'GET', url: '/webhooks/portal/assets/portal.js' })
  t.equal(js.statusCode, 200)
  t.equal(syntaxError(js.body), null, 'no syntax error')
  t.match(syntaxError('(function () {'), /SyntaxError/, 'and a broken script would be caught')

  // call('METHOD', '/path' [+ thing.id [+ '/more']]), as the script writes its requests.
  const calls = [...js.body.matchAll(/call\('([A-Z]+)', '([^']+)'(?: \+ (\w+)\.id)?(?: \+ '([^']*)')?/g)]
    .map(([, method, path, idOf, rest]) => ({ method, path, idOf, rest: rest ?? '' }))
  t.strictSame(calls.map(c => `${c.method} ${c.path}${c.idOf === undefined ? '' : `{${c.idOf}}`}${c.rest}`).sort(), [
    'DELETE /endpoints/{endpoint}',
    'GET /endpoints',
    'GET /messages?limit=50',
    'PATCH /endpoints/{endpoint}',
    'POST /endpoints',
    'POST /endpoints/{endpoint}/test',
    'POST /messages/{message}/replay'
  ], 'the calls the script makes')
  const endpoint = await addEndpoint(app, link, { url: 'https://receiver.example.test/hooks' })
  let messageId = ''
  // The endpoint's test event gives a message to replay; the endpoint is deleted last.
  const order = (c: { method: string, rest: string }): number => c.rest === '/test' ? 0 : c.method === 'DELETE' ? 2 : 1
  for (const { method, path, idOf, rest } of [...calls].sort((a, b) => order(a) - order(b))) {
    const id = idOf === 'endpoint' ? endpoint.id : messageId
    const url = `${link.path}/api${path}${idOf === undefined ? '' : id}${rest}`
    const res = await app.inject({ method: method as 'GET', url, ...(method === 'POST' || method === 'PATCH' ? { payload: method === 'PATCH' ? { disabled: false } : path === '/endpoints' ? { url: 'https://other.example.test/hooks' } : {} } : {}) })
    const name = `${method} ${path}${idOf === undefined ? '' : `{${idOf}}`}${rest}`
    t.not(res.body === '' ? undefined : res.json().code, 'route_not_found', `${name} is routed`)
    t.ok(res.statusCode >= 200 && res.statusCode < 300, `${name} succeeds (${res.statusCode})`)
    if (rest === '/test') messageId = res.json().message.id
  }
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
