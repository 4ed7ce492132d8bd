// The token route and the guard in the served OpenAPI document: the operation with its responses
// and form body, and the OAuth2 security scheme with every scope of the spec's table.
import t from 'tap'
import { build } from '../helpers.js'

// The spec's table, name: what it grants.
const SPEC_SCOPES: Record<string, string> = {
  'core.users:act-on-behalf-of': 'act on behalf of a user',
  'core.users:create': 'create users',
  'core.users:read': 'view users',
  'core.users:delete': 'delete users',
  'core.users.metadata:read': 'view user metadata',
  'core.users.metadata:write': 'modify user metadata',
  'core.kyc:read': 'view KYC processes',
  'core.kyc.profile:update': 'update profile KYC process',
  'core.kyc.address:update': 'update address KYC process',
  'core.kyc.email:update': 'update email KYC process',
  'core.kyc.phone:update': 'update phone KYC process',
  'core.kyc.identity:update': 'update identity KYC process',
  'core.kyc.proof-of-address:update': 'update proof-of-address KYC process',
  'core.kyc.customer-due-diligence:update': 'update customer due diligence KYC process',
  'core.kyc.enhanced-due-diligence:update': 'update enhanced due diligence KYC process',
  'core.kyc.crypto-risk-assessment:update': 'update crypto risk assessment KYC process',
  'core.kyc.self-categorization-statement:update': 'update self-categorization statement KYC process',
  'core.kyc.tax-details:update': 'update tax details KYC process',
  'core.capabilities:read': 'view user capabilities',
  'core.terms-of-service:read': 'view terms of service',
  'core.terms-of-service:accept': 'accept terms of service',
  'core.files:create': 'create files',
  'core.files:read': 'view files',
  'core.files.metadata:read': 'view files metadata',
  'core.files.metadata:write': 'modify files metadata',
  'core.accounts:create': 'create accounts',
  'core.accounts:read': 'view accounts',
  'core.accounts:update': 'update accounts',
  'core.accounts:archive': 'archive accounts',
  'core.accounts:deposit-method': 'deposit method needed for depositing into accounts',
  'core.accounts:use-test-helpers': 'test helpers of accounts',
  'core.accounts.metadata:read': 'view accounts metadata',
  'core.accounts.metadata:write': 'modify accounts metadata',
  'core.assets:use-test-helpers': 'test helpers of assets',
  'core.external-accounts:create': 'create external accounts',
  'core.external-accounts:read': 'view external accounts',
  'core.external-accounts:update': 'update external accounts',
  'core.external-accounts:delete': 'delete external accounts',
  'core.external-accounts.metadata:read': 'view external accounts metadata',
  'core.external-accounts.metadata:write': 'modify external accounts metadata',
  'core.transactions:create': 'commit quotes',
  'core.transactions:read': 'view transactions',
  'core.transactions.metadata:read': 'view transactions metadata',
  'core.transactions.metadata:write': 'modify transactions metadata',
  'core.transactions.requests-for-information:read': 'view transactions requests for information',
  'core.transactions.requests-for-information:update': 'update transactions requests for information',
  'core.portfolio:read': 'view portfolio overview, performance and historical balance',
  'core.statements:read': 'read statements',
  'core.webhooks:management-link': 'create webhook management links'
}

t.test('POST /core/oauth2/token is described: form body, no bearer, 200/400/401 with headers', async t => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const op = doc.paths['/core/oauth2/token'].post
  t.equal(op.operationId, 'createOAuth2Token')
  t.strictSame(op.tags, ['Authentication'])
  t.strictSame(op.security, [], 'no bearer token needed')
  t.strictSame(Object.keys(op.requestBody.content), ['application/x-www-form-urlencoded'])
  const form = op.requestBody.content['application/x-www-form-urlencoded'].schema
  t.strictSame(form.required, ['grant_type'])
  t.equal(form.properties.scope.maxLength, 4096)
  t.equal(form.properties.refresh_token.maxLength, 8192)
  t.ok(op.parameters.some((p: { in: string, name: string }) => p.in === 'header' && p.name === 'authorization'), 'the Basic header')

  t.strictSame(Object.keys(op.responses).sort(), ['200', '400', '401', '429'])
  const ok = op.responses['200']
  t.strictSame(ok.content['application/json'].schema.required, ['access_token', 'token_type', 'expires_in'])
  t.strictSame(Object.keys(ok.content['application/json'].schema.properties).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type'])
  t.ok(ok.headers['x-service-request-id'])
  t.ok(ok.headers['x-service-organization-id'])
  for (const status of ['400', '401']) {
    t.equal(op.responses[status].content['application/json'].schema.$ref, '#/components/schemas/OAuthErrorBody')
    t.ok(op.responses[status].headers['x-service-request-id'])
  }
  t.strictSame(doc.components.schemas.OAuthErrorBody.required, ['error'])
})

t.test('the OAuth2 security scheme offers every scope of the spec and the partner scope', async t => {
  for (const partnerArea of ['partner', 'topper']) {
    const app = await build(t, { partnerArea })
    const scheme = (await app.inject({ method: 'GET', url: '/openapi.json' })).json().components.securitySchemes.OAuth2
    t.equal(scheme.type, 'oauth2')
    t.equal(scheme.flows.clientCredentials.tokenUrl, '/core/oauth2/token')
    t.strictSame(Object.keys(scheme.flows.clientCredentials.scopes).sort(), [...Object.keys(SPEC_SCOPES), `${partnerArea}.kyc-sharing:identify-user`, `${partnerArea}.kyc-sharing:create-session`, 'sandbox:control'].sort())
    for (const [scope, grants] of Object.entries(SPEC_SCOPES)) t.equal(scheme.flows.clientCredentials.scopes[scope], grants, scope)
  }
})

t.test('every registered route is in the document with the scopes and subjects it declares', async t => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const routes = app.registeredRoutes.filter(r => r.method !== 'HEAD' && r.schema?.hide !== true)
  t.ok(routes.length >= 40, `${routes.length} routes`)
  let guarded = 0
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}')
    const op = doc.paths[path]?.[route.method.toLowerCase()]
    t.ok(op, `${route.method} ${path} is documented`)
    if (op === undefined) continue
    const auth = route.config?.auth
    if (auth !== undefined) {
      guarded++
      t.strictSame(op.security, [{ OAuth2: auth.scopes }], `${route.method} ${path}: security names the scopes its guard checks`)
      t.strictSame(op['x-subjects'], auth.subjects, `${route.method} ${path}: x-subjects names the subjects its guard allows`)
      for (const status of ['401', '403', '429']) t.ok(op.responses[status], `${route.method} ${path} documents ${status}`)
    } else if (route.config?.control !== undefined) {
      const expected = route.config.control === 'global' ? [{ SandboxAdmin: [] }] : [{ SandboxAdmin: [] }, { OAuth2: ['sandbox:control'] }]
      t.strictSame(op.security, expected, `${route.method} ${path}: the control guard`)
      t.equal(op['x-sandbox-acts'], route.config.control, `${route.method} ${path}: declares whom it acts for`)
      t.ok(op.responses['401'], `${route.method} ${path} documents 401`)
      t.ok(op.responses['403'], `${route.method} ${path} documents 403`)
    } else {
      t.strictSame(op.security ?? [], [], `${route.method} ${path}: open`)
      t.equal(op['x-subjects'], undefined)
    }
  }
  // Every operation of the API (under /core or the partner area) has the Bearer guard, but the
  // token endpoint; nothing else has it. Counted from the routes, so a new area adds no edit here.
  const api = routes.filter(r => (r.url.startsWith('/core/') || r.url.startsWith(`/${app.config.partnerArea}/`)) && r.url !== '/core/oauth2/token')
  t.ok(api.length >= 92, `${api.length} API operations`)
  t.same(api.filter(r => r.config?.auth === undefined).map(r => `${r.method} ${r.url}`), [], 'every API operation is guarded')
  t.equal(guarded, api.length, 'and nothing else is')
})

t.test('the description names the answers any route can get before routing: 400, 408 and 431, with their codes and limits', async t => {
  const app = await build(t, { requestTimeoutMs: 1500 })
  const { description } = (await app.inject({ method: 'GET', url: '/openapi.json' })).json().info
  t.match(description, /400 `request_invalid` for malformed HTTP/)
  t.match(description, /408 `request_timeout` when the request line, headers and body take over 1500 ms/)
  t.match(description, new RegExp(`431 \`headers_too_large\` when the request line and headers are over ${(await import('node:http')).maxHeaderSize} bytes`))
  t.match(description, /OAuth 2\.0 `invalid_request`/)
})
