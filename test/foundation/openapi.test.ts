import t from 'tap'
import { Validator } from '@seriousme/openapi-schema-validator'
import { allScopes } from '../../src/auth/scopes.js'
import { accessToken, bearer, build } from '../helpers.js'

interface Operation {
  operationId?: string
  security?: Array<Record<string, string[]>>
  parameters?: Array<{ in: string, name: string, required?: boolean }>
  responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']
const ADMIN = 'openapi-test-admin-token-0123456789'

/** Every operation of the document, with its method and path. */
function operations (doc: { paths: Record<string, Record<string, Operation>> }): Array<{ method: string, path: string, op: Operation }> {
  const out: Array<{ method: string, path: string, op: Operation }> = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) if (METHODS.includes(method)) out.push({ method, path, op })
  }
  return out
}

/** The path with each `{param}` filled in with a well-formed id nothing holds. */
const concrete = (path: string): string => path.replace(/\{[^}]+\}/g, '6f1c1a52-3d5b-4c1e-9a0e-0d6d4c1b2a39')

const oauthScopes = (op: Operation): string[] | undefined => op.security?.find(s => 'OAuth2' in s)?.OAuth2

t.test('the served OpenAPI document is valid OpenAPI 3.1', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/openapi.json' })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.equal(doc.openapi, '3.1.0')

  const validator = new Validator()
  const result = await validator.validate(doc)
  t.same(result.errors ?? [], [], 'no validation errors')
  t.equal(result.valid, true)
  t.ok(operations(doc).length >= 40, 'the areas\' operations are in it')
})

t.test('every operation has a unique operationId, its path parameters, a success answer and the answers its security brings', async t => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const schemes = doc.components.securitySchemes as Record<string, { flows?: { clientCredentials: { scopes: Record<string, string> } } }>
  const offered = Object.keys(schemes.OAuth2.flows!.clientCredentials.scopes)
  const ids = new Map<string, string>()
  let bearerRoutes = 0
  let adminRoutes = 0
  for (const { method, path, op } of operations(doc)) {
    const name = `${method.toUpperCase()} ${path}`
    t.match(op.operationId, /^[a-z][A-Za-z0-9]+$/, `${name} has an operationId`)
    t.notOk(ids.has(op.operationId!), `${name}: operationId ${op.operationId} is not also ${ids.get(op.operationId!)}`)
    ids.set(op.operationId!, name)

    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map(m => m[1]).sort()
    const declared = (op.parameters ?? []).filter(p => p.in === 'path')
    t.strictSame(declared.map(p => p.name).sort(), templated, `${name}: its path parameters are declared`)
    t.ok(declared.every(p => p.required === true), `${name}: path parameters are required`)

    const statuses = Object.keys(op.responses ?? {})
    t.ok(statuses.some(s => /^[23]\d\d$/.test(s)), `${name} documents a success answer`)
    // The token endpoint answers OAuth's error body (test/auth/openapi.test.ts); the health check, its own.
    const secured = (op.security ?? []).length > 0 && path !== '/core/oauth2/token'
    for (const status of statuses.filter(s => secured && /^[45]/.test(s))) {
      const schema = op.responses![status].content?.['application/json']?.schema
      t.equal(schema?.$ref, '#/components/schemas/ErrorBody', `${name} ${status} answers the API's error body`)
    }

    for (const requirement of op.security ?? []) {
      for (const scheme of Object.keys(requirement)) t.ok(scheme in schemes, `${name}: scheme ${scheme} is defined`)
    }
    const scopes = oauthScopes(op)
    if (scopes !== undefined) {
      bearerRoutes++
      // An operation without a scope of its own (the catalogue's) takes any valid token.
      t.ok(scopes.length > 0 || path.startsWith('/core/'), `${name} names its scopes`)
      for (const scope of scopes) t.ok(offered.includes(scope), `${name}: scope ${scope} is offered by the OAuth2 scheme`)
      // A sandbox control an organization's token may call is not rate limited, and takes no X-On-Behalf-Of.
      const control = path.startsWith('/_sandbox')
      for (const status of control ? ['401', '403'] : ['401', '403', '429']) t.ok(statuses.includes(status), `${name} documents ${status}`)
      // Every Bearer route of the API answers 400 to a malformed X-On-Behalf-Of or body.
      if (!control) t.ok(statuses.includes('400'), `${name} documents 400`)
    }
    if (op.security?.some(s => 'SandboxAdmin' in s) === true) {
      adminRoutes++
      t.ok(statuses.includes('401'), `${name} documents 401`)
    }
  }
  t.ok(bearerRoutes >= 20, `${bearerRoutes} Bearer operations were checked`)
  t.ok(adminRoutes >= 20, `${adminRoutes} sandbox-admin operations were checked`)
})

t.test('every path in the document is routed, and its answers without credentials are documented', async t => {
  const app = await build(t, { adminToken: ADMIN })
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  for (const { method, path, op } of operations(doc)) {
    const name = `${method.toUpperCase()} ${path}`
    const res = await app.inject({ method: method.toUpperCase() as 'GET', url: concrete(path) })
    const code = String(res.headers['content-type']).startsWith('application/json') ? res.json().code : undefined
    t.not(code, 'route_not_found', `${name} is routed`)
    t.ok(String(res.statusCode) in op.responses!, `${name} answers ${res.statusCode}, which it documents`)
    if (oauthScopes(op) !== undefined) t.match({ status: res.statusCode, body: res.json() }, { status: 401, body: { code: 'token_invalid' } }, `${name} wants a Bearer token`)
    if (op.security?.some(s => 'SandboxAdmin' in s) === true) t.match({ status: res.statusCode, body: res.json() }, { status: 401, body: { code: 'token_invalid' } }, `${name} wants the admin token`)
  }
})

t.test('the scopes a Bearer operation names are the ones it asks for', async t => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const every = Object.keys(allScopes(app.config.partnerArea))
  const tokens = new Map<string, string>()
  const token = async (scopes: string[]): Promise<string> => {
    const scope = scopes.join(' ')
    if (!tokens.has(scope)) tokens.set(scope, await accessToken(app, { scope }))
    return tokens.get(scope)!
  }
  let checked = 0
  for (const { method, path, op } of operations(doc)) {
    const scopes = oauthScopes(op)
    // The sandbox controls' `sandbox:control` is checked in test/sandbox/organizations.test.ts.
    if (scopes === undefined || path.startsWith('/_sandbox')) continue
    checked++
    const name = `${method.toUpperCase()} ${path}`
    const inject = async (headers: Record<string, string>) => await app.inject({ method: method.toUpperCase() as 'GET', url: concrete(path), headers })

    if (scopes.length === 0) {
      const any = await inject(bearer(await token(['core.users:read'])))
      t.not(any.json().code, 'token_insufficient_scopes', `${name}: any valid token will do`)
      t.ok(String(any.statusCode) in op.responses!, `${name} answers ${any.statusCode} to any token, which it documents`)
      continue
    }
    const without = await inject(bearer(await token(every.filter(s => !scopes.includes(s)))))
    t.equal(without.statusCode, 403, `${name}: every other scope is not enough`)
    t.match(without.json(), { code: 'token_insufficient_scopes', details: { security: [{ scheme: 'OAuth', schemeScopes: scopes }] } }, `${name}: the 403 names the documented scopes`)

    const withThem = await inject(bearer(await token(scopes)))
    t.not(withThem.json().code, 'token_insufficient_scopes', `${name}: the documented scopes are enough`)
    t.ok(String(withThem.statusCode) in op.responses!, `${name} answers ${withThem.statusCode} with its scopes, which it documents`)
  }
  t.ok(checked >= 20, `${checked} Bearer operations were checked`)
})

t.test('the security scheme lists every scope of the spec', async t => {
  const app = await build(t, { partnerArea: 'topper' })
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const scopes = doc.components.securitySchemes.OAuth2.flows.clientCredentials.scopes
  t.equal(doc.components.securitySchemes.OAuth2.flows.clientCredentials.tokenUrl, '/core/oauth2/token')
  for (const s of ['core.users:act-on-behalf-of', 'core.users.metadata:write', 'core.webhooks:management-link', 'core.statements:read', 'topper.kyc-sharing:identify-user']) {
    t.ok(scopes[s], s)
  }
  // The spec's 50 and the sandbox's own `sandbox:control`.
  t.equal(Object.keys(scopes).length, 52)
  t.ok(scopes['sandbox:control'], 'sandbox:control')
  t.ok(doc.paths['/topper/kyc-sharing/identify-user'].post, 'the partner area names the identify-user path')
  t.notOk(doc.paths['/partner/kyc-sharing/identify-user'], 'and no other partner\'s')
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
