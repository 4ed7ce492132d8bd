import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../helpers.js'

const ADMIN = 'an-admin-token-long-enough'

/**
 * Every guarded control operation, as the areas registered them: a URL with each path parameter
 * filled in (an id nothing holds: the guard answers first), and the path as the document names it.
 */
const controlOperations = (app: FastifyInstance): Array<{ method: string, url: string, path: string }> =>
  app.registeredRoutes.filter(r => r.config?.control !== undefined && r.method !== 'HEAD').map(r => ({
    method: r.method,
    url: r.url.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000'),
    path: r.url.replace(/:([A-Za-z]+)/g, '{$1}')
  }))

const call = (app: FastifyInstance, { method, url }: { method: string, url: string }, authorization?: string) =>
  app.inject({ method: method as 'GET', url, headers: authorization === undefined ? {} : { authorization } })

t.test('with an admin token set, every control operation refuses a request without it (401) and accepts it with it', async t => {
  const app = await build(t, { adminToken: ADMIN })
  const operations = controlOperations(app)
  t.ok(operations.length >= 25, `${operations.length} control operations`)
  for (const op of operations) {
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${ADMIN}`]) {
      const res = await call(app, op, authorization)
      t.equal(res.statusCode, 401, `${op.method} ${op.url} with ${authorization ?? 'nothing'}`)
      t.equal(res.json().code, 'token_invalid')
      t.match(res.headers['www-authenticate'], /^Bearer/)
    }
    const ok = await call(app, op, `Bearer ${ADMIN}`)
    t.not(ok.statusCode, 401, `${op.method} ${op.url} with the token`)
    t.ok(ok.statusCode < 500)
  }
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/clock', headers: { authorization: `Bearer ${ADMIN}` } })).statusCode, 200)
})

t.test('health and the dashboard page stay open; the page says a token is needed', async t => {
  const app = await build(t, { adminToken: ADMIN })
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/health' })).statusCode, 200)
  const page = await app.inject({ method: 'GET', url: '/_sandbox/' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.body, /data-token-required="true"/)
  t.match(page.body, /<label for="admin-token">Admin token<\/label>/)
  t.notOk(page.body.includes(ADMIN), 'the page does not carry the token')
  t.match(page.headers['content-security-policy'], /default-src 'none'/)
  t.notMatch(page.body, /(src|href)="https?:/, 'nothing is loaded from elsewhere')
  const redirect = await app.inject({ method: 'GET', url: '/_sandbox' })
  t.equal(redirect.statusCode, 302)
  t.equal(redirect.headers.location, '/_sandbox/')
})

t.test('without an admin token (loopback) the control API is open and the page does not ask', async t => {
  const app = await build(t)
  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/clock' })).statusCode, 200)
  t.match((await app.inject({ method: 'GET', url: '/_sandbox/' })).body, /data-token-required="false"/)
})

t.test('the OpenAPI document describes every control operation under the Sandbox tag with admin security', async t => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  for (const { method, path } of controlOperations(app)) {
    const op = doc.paths[path]?.[method.toLowerCase()]
    t.ok(op, `${method} ${path} is described`)
    t.same(op?.tags, ['Sandbox'])
    // Per organization: the admin token or an organization's control token; global: the admin token only.
    t.same(op?.security, op?.['x-sandbox-acts'] === 'global' ? [{ SandboxAdmin: [] }] : [{ SandboxAdmin: [] }, { OAuth2: ['sandbox:control'] }])
    t.ok(['global', 'organization'].includes(op?.['x-sandbox-acts']), `${method} ${path} declares whom it acts for`)
    t.ok(op?.responses?.['401'], 'documents the 401')
    t.ok(op?.responses?.['403'], 'documents the 403')
    t.ok(op?.description?.length > 10)
  }
  t.ok(doc.paths['/_sandbox/'].get.responses['200'])
})
