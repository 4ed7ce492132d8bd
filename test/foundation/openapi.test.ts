import t from 'tap'
import { Validator } from '@seriousme/openapi-schema-validator'
import { build } from '../helpers.js'

t.test('the served OpenAPI document is valid OpenAPI 3.1 and lists every route with its responses', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/openapi.json' })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.equal(doc.openapi, '3.1.0')

  const validator = new Validator()
  const result = await validator.validate(doc)
  t.same(result.errors ?? [], [], 'no validation errors')
  t.equal(result.valid, true)

  // Every route the app serves (docs assets and the document itself aside) is described.
  const described = new Set<string>()
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>)) {
    for (const [method, op] of Object.entries(item)) {
      described.add(`${method.toUpperCase()} ${path}`)
      t.ok(op.responses !== undefined && Object.keys(op.responses).length > 0, `${method} ${path} has responses`)
    }
  }
  const served = app.printRoutes({ commonPrefix: false })
  t.ok(described.has('POST /core/oauth2/token'))
  t.ok(described.has('GET /_sandbox/health'))
  t.ok(served.length > 0)
})

t.test('the security scheme lists every scope of the spec', async t => {
  const app = await build(t, { partnerArea: 'topper' })
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const scopes = doc.components.securitySchemes.OAuth2.flows.clientCredentials.scopes
  t.equal(doc.components.securitySchemes.OAuth2.flows.clientCredentials.tokenUrl, '/core/oauth2/token')
  for (const s of ['core.users:act-on-behalf-of', 'core.users.metadata:write', 'core.webhooks:management-link', 'core.statements:read', 'topper.kyc-sharing:identify-user']) {
    t.ok(scopes[s], s)
  }
  t.equal(Object.keys(scopes).length, 50)
})

t.test('interactive docs are served locally', async t => {
  const app = await build(t)
  const page = await app.inject({ method: 'GET', url: '/docs/' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  t.notMatch(page.body, /https?:\/\/(?!127\.0\.0\.1|localhost)[a-z0-9.-]+\.[a-z]{2,}\/[^"']*\.(js|css)/i, 'no script or style from another host')
  const init = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
  t.equal(init.statusCode, 200)
  t.match(init.body, /openapi|json/i)
})
