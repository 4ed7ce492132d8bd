// What the served OpenAPI document tells an integrator beyond the schemas: a request example for
// every body, the X-On-Behalf-Of header wherever a client can act for a user, the user-context
// headers under the configured SERVICE_NAME; and the errors about a missing header name it.
import t from 'tap'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { accessToken, bearer, build, userIp } from '../helpers.js'

interface Parameter { in: string, name: string, required?: boolean, description?: string }
interface MediaType { schema?: Record<string, unknown>, example?: unknown, examples?: Record<string, { value: unknown }> }
interface Operation {
  'x-subjects'?: string[]
  parameters?: Parameter[]
  requestBody?: { content: Record<string, MediaType> }
}
interface Document { paths: Record<string, Record<string, Operation>>, components: Record<string, unknown> }

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch'])
const operations = (doc: Document): Array<{ name: string, op: Operation }> =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([m]) => METHODS.has(m)).map(([m, op]) => ({ name: `${m.toUpperCase()} ${path}`, op })))

/** A media type's examples, however the document gives them. */
const examplesOf = (media: MediaType): unknown[] => [
  ...(media.example === undefined ? [] : [media.example]),
  ...Object.values(media.examples ?? {}).map(e => e.value),
  ...((media.schema?.examples as unknown[] | undefined) ?? [])
]

t.test('every request body has an example, valid against its schema', async t => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  // Binary parts (a file upload) are any string; component references resolve in the document.
  ajv.addFormat('binary', true)
  ajv.addSchema({ $id: 'doc', components: doc.components })
  let bodies = 0
  for (const { name, op } of operations(doc)) {
    for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
      bodies++
      const examples = examplesOf(media)
      t.ok(examples.length > 0, `${name} (${type}) has a request example`)
      const schema = JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"doc#/components/'))
      const validate = ajv.compile(schema)
      for (const example of examples) t.ok(validate(example), `${name} (${type}): the example ${JSON.stringify(example).slice(0, 80)} is valid ${JSON.stringify(validate.errors ?? [])}`)
    }
  }
  t.ok(bodies >= 50, `${bodies} request bodies were checked`)
})

t.test('every operation that allows a user subject documents X-On-Behalf-Of; no other does', async t => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document
  let forUsers = 0
  for (const { name, op } of operations(doc)) {
    const header = (op.parameters ?? []).find(p => p.in === 'header' && p.name.toLowerCase() === 'x-on-behalf-of')
    if ((op['x-subjects'] ?? []).some(s => s.startsWith('user'))) {
      forUsers++
      t.ok(header, `${name} documents X-On-Behalf-Of`)
      t.match(header?.description, /core\.users:act-on-behalf-of/, `${name}: it names the scope it needs`)
      t.not(header?.required, true, `${name}: it is optional (a user-bound token needs none)`)
    } else {
      t.notOk(header, `${name} allows no user subject and does not document X-On-Behalf-Of`)
    }
  }
  t.ok(forUsers >= 60, `${forUsers} operations allow user subjects`)
})

t.test('the user-context headers are documented under the configured SERVICE_NAME', async t => {
  const app = await build(t, { serviceName: 'acme' })
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document
  const headers = (path: string, method: string): string[] => (doc.paths[path][method].parameters ?? []).filter(p => p.in === 'header').map(p => p.name)
  for (const [path, method] of [['/core/users', 'post'], ['/core/transactions', 'post'], ['/core/capabilities', 'get']]) {
    t.ok(headers(path, method).includes('x-acme-user-ip'), `${method.toUpperCase()} ${path} documents x-acme-user-ip`)
    t.ok(headers(path, method).includes('x-acme-user-agent'), `${method.toUpperCase()} ${path} documents x-acme-user-agent`)
    t.notOk(headers(path, method).some(h => h.startsWith('x-service-')), 'not the default service name')
  }
})

t.test('an error about a missing header names it', async t => {
  const app = await build(t)
  const token = await accessToken(app)
  const noActingUser = await app.inject({ method: 'GET', url: '/core/kyc', headers: bearer(token) })
  t.equal(noActingUser.statusCode, 403)
  t.match(noActingUser.json(), { code: 'token_subject_not_allowed', message: /X-On-Behalf-Of/ })
  const user = { email: 'header@example.com', termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB', subdivision: 'GB-MAN', city: 'Manchester', line1: '1 High Street', postalCode: 'M4 1AA' } }
  const noIp = await app.inject({ method: 'POST', url: '/core/users', headers: bearer(token), payload: user })
  t.equal(noIp.statusCode, 409)
  t.match(noIp.json(), { code: 'operation_not_allowed', message: /X-Service-User-Ip/ })
  const withIp = await app.inject({ method: 'POST', url: '/core/users', headers: { ...bearer(token), ...userIp() }, payload: user })
  t.equal(withIp.statusCode, 201, 'with the header the user is created')
})
