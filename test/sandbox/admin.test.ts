import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../helpers.js'

const ADMIN = 'an-admin-token-long-enough'

// One call of every control operation (ids that do not exist are fine: the guard answers first).
const OPERATIONS: Array<[string, string, unknown?]> = [
  ['POST', '/_sandbox/reset'],
  ['POST', '/_sandbox/fixtures', {}],
  ['GET', '/_sandbox/organizations'],
  ['GET', '/_sandbox/clients'],
  ['POST', '/_sandbox/clients', { scopes: [] }],
  ['GET', '/_sandbox/clients/x'],
  ['DELETE', '/_sandbox/clients/x'],
  ['POST', '/_sandbox/clients/x/rotate-secret'],
  ['POST', '/_sandbox/entities/accounts', {}],
  ['GET', '/_sandbox/clock'],
  ['POST', '/_sandbox/clock', { advanceSeconds: 1 }],
  ['GET', '/_sandbox/requests'],
  ['DELETE', '/_sandbox/requests'],
  ['GET', '/_sandbox/faults'],
  ['POST', '/_sandbox/faults', { path: '/core/x', status: 500 }],
  ['DELETE', '/_sandbox/faults'],
  ['DELETE', '/_sandbox/faults/00000000-0000-4000-8000-000000000000']
]

const call = (app: FastifyInstance, [method, url, payload]: [string, string, unknown?], authorization?: string) =>
  app.inject({ method: method as 'GET', url, ...(payload === undefined ? {} : { payload: payload as object }), headers: authorization === undefined ? {} : { authorization } })

t.test('with an admin token set, every control operation refuses a request without it (401) and accepts it with it', async t => {
  const app = await build(t, { adminToken: ADMIN })
  for (const op of OPERATIONS) {
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${ADMIN}`]) {
      const res = await call(app, op, authorization)
      t.equal(res.statusCode, 401, `${op[0]} ${op[1]} with ${authorization ?? 'nothing'}`)
      t.equal(res.json().code, 'token_invalid')
      t.match(res.headers['www-authenticate'], /^Bearer/)
    }
    const ok = await call(app, op, `Bearer ${ADMIN}`)
    t.not(ok.statusCode, 401, `${op[0]} ${op[1]} with the token`)
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
  for (const [method, url] of OPERATIONS) {
    const path = url.replace(/\/x(\/|$)/, '/{clientId}$1').replace(/accounts$/, '{entity}').replace(/faults\/0[0-9a-f-]+$/, 'faults/{id}')
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
