// Who reaches which metadata: every entity type, `me`, ownership, other organizations, scopes
// and subjects; and how the operations are described in the OpenAPI document.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { accessToken, bearer, build, makeClient, makeUser, onBehalfOf } from '../helpers.js'
import { etag } from './fixture.js'

const ENTITIES = [
  { segment: 'accounts', name: 'account' },
  { segment: 'files', name: 'file' },
  { segment: 'external-accounts', name: 'external-account' },
  { segment: 'transactions', name: 'transaction' }
] as const

// Through the sandbox's entities route: files are the files area's records, not generic entity rows.
async function seedEntity (app: FastifyInstance, organizationId: string, type: string, userId: string): Promise<string> {
  const id = randomUUID()
  const res = await app.inject({ method: 'POST', url: `/_sandbox/entities/${type}`, payload: { userId, id } })
  if (res.statusCode !== 201 || res.json().organizationId !== organizationId) throw new Error(`seeding ${type}: ${res.statusCode} ${res.body}`)
  return id
}

const notFound = (entity: string) => ({ code: 'entity_not_found', message: `The ${entity} cannot be found`, details: { entity } })

t.test('every entity type: the owner sets, reads, patches and deletes its metadata', async t => {
  const app = await build(t)
  const token = await accessToken(app)
  const owner = await makeUser(app)
  const headers = { ...bearer(token), ...onBehalfOf(owner.id), 'content-type': 'application/json' }
  for (const e of ENTITIES) {
    const id = await seedEntity(app, owner.organizationId, e.segment, owner.id)
    const url = `/core/${e.segment}/${id}/metadata`
    const put = await app.inject({ method: 'PUT', url, headers, payload: { kind: e.name } })
    t.equal(put.statusCode, 201, `${e.segment} PUT`)
    t.equal(put.headers.etag, etag({ kind: e.name }))
    const get = await app.inject({ method: 'GET', url, headers })
    t.same(get.json(), { metadata: { kind: e.name } }, `${e.segment} GET`)
    const patch = await app.inject({ method: 'PATCH', url, headers, payload: [{ op: 'add', path: '/n', value: 1 }] })
    t.same(patch.json(), { metadata: { kind: e.name, n: 1 } }, `${e.segment} PATCH`)
    t.same((await app.storage.metadata.get({ organizationId: owner.organizationId, entity: e.segment, entityId: id }))?.value, { kind: e.name, n: 1 })
    const del = await app.inject({ method: 'DELETE', url, headers })
    t.equal(del.statusCode, 204, `${e.segment} DELETE`)
    t.equal((await app.inject({ method: 'GET', url, headers })).statusCode, 404)
  }
})

t.test('an entity that does not exist, belongs to another user, or to another organization is 404 naming the entity', async t => {
  const app = await build(t)
  const token = await accessToken(app)
  const actor = await makeUser(app)
  const colleague = await makeUser(app)
  const foreign = await makeClient(app)
  const foreignUser = await makeUser(app, foreign.organizationId)
  const headers = { ...bearer(token), ...onBehalfOf(actor.id), 'content-type': 'application/json' }
  for (const e of ENTITIES) {
    const colleagues = await seedEntity(app, actor.organizationId, e.segment, colleague.id)
    const foreigns = await seedEntity(app, foreign.organizationId, e.segment, foreignUser.id)
    await app.storage.metadata.replaceIf({ organizationId: actor.organizationId, entity: e.segment, entityId: colleagues }, null, { value: { secret: 1 }, etag: etag({ secret: 1 }), updatedAt: app.clock.iso() })
    for (const id of [randomUUID(), 'me', colleagues, foreigns, 'not-a-uuid']) {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
        const payload = method === 'PUT' ? { a: 1 } : method === 'PATCH' ? [{ op: 'add', path: '/a', value: 1 }] : undefined
        const res = await app.inject({ method, url: `/core/${e.segment}/${id}/metadata`, headers, ...(payload === undefined ? {} : { payload }) })
        t.equal(res.statusCode, 404, `${method} ${e.segment} ${id}`)
        t.same(res.json(), notFound(e.name))
      }
    }
    t.same((await app.storage.metadata.get({ organizationId: actor.organizationId, entity: e.segment, entityId: colleagues }))?.value, { secret: 1 }, 'the colleague\'s metadata is untouched')
  }
  // An entity of one type is not reachable under another type's path.
  const account = await seedEntity(app, actor.organizationId, 'accounts', actor.id)
  const res = await app.inject({ method: 'GET', url: `/core/files/${account}/metadata`, headers })
  t.same(res.json(), notFound('file'))
})

t.test('users: `me` and the acting user\'s own id name the same metadata; any other user is 404', async t => {
  const app = await build(t)
  const token = await accessToken(app)
  const actor = await makeUser(app)
  const colleague = await makeUser(app)
  const foreign = await makeClient(app)
  const foreignUser = await makeUser(app, foreign.organizationId)
  const headers = { ...bearer(token), ...onBehalfOf(actor.id), 'content-type': 'application/json' }
  const put = await app.inject({ method: 'PUT', url: '/core/users/me/metadata', headers, payload: { a: 1 } })
  t.equal(put.statusCode, 201)
  const byId = await app.inject({ method: 'GET', url: `/core/users/${actor.id}/metadata`, headers })
  t.same(byId.json(), { metadata: { a: 1 } })
  t.equal(byId.headers.etag, put.headers.etag)
  for (const id of [colleague.id, foreignUser.id, randomUUID(), actor.id.toUpperCase(), 'ME']) {
    const res = await app.inject({ method: 'PUT', url: `/core/users/${id}/metadata`, headers, payload: { b: 1 } })
    t.equal(res.statusCode, 404, id)
    t.same(res.json(), notFound('user'))
  }
  t.equal(await app.storage.metadata.get({ organizationId: actor.organizationId, entity: 'users', entityId: colleague.id }), undefined)
})

t.test('another organization sees nothing: its client cannot act as our user, nor reach our metadata', async t => {
  const app = await build(t)
  const ours = await makeUser(app)
  await app.storage.metadata.replaceIf({ organizationId: ours.organizationId, entity: 'users', entityId: ours.id }, null, { value: { a: 1 }, etag: etag({ a: 1 }), updatedAt: app.clock.iso() })
  const foreign = await makeClient(app)
  const foreignUser = await makeUser(app, foreign.organizationId)
  const token = await accessToken(app, { clientId: foreign.clientId, secret: foreign.secret })

  const asOurs = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(token), ...onBehalfOf(ours.id) } })
  t.equal(asOurs.statusCode, 404)
  t.same(asOurs.json(), notFound('user'))
  const direct = await app.inject({ method: 'GET', url: `/core/users/${ours.id}/metadata`, headers: { ...bearer(token), ...onBehalfOf(foreignUser.id) } })
  t.equal(direct.statusCode, 404)
  t.same(direct.json(), notFound('user'))
  const own = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(token), ...onBehalfOf(foreignUser.id) } })
  t.same(own.json(), { code: 'entity_not_found', message: 'The entity metadata cannot be found', details: { entity: 'metadata' } }, 'their own user has none')
})

t.test('scopes: read for GET, write for PUT, PATCH and DELETE, per entity type', async t => {
  const app = await build(t)
  const user = await makeUser(app)
  const account = await seedEntity(app, user.organizationId, 'accounts', user.id)
  const read = await accessToken(app, { scope: 'core.users:act-on-behalf-of core.users.metadata:read core.accounts.metadata:write' })
  const h = { ...bearer(read), ...onBehalfOf(user.id), 'content-type': 'application/json' }

  t.equal((await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: h })).statusCode, 404, 'read scope reaches GET (no metadata yet)')
  for (const [method, payload] of [['PUT', { a: 1 }], ['PATCH', [{ op: 'add', path: '/a', value: 1 }]], ['DELETE', undefined]] as const) {
    const res = await app.inject({ method, url: '/core/users/me/metadata', headers: h, ...(payload === undefined ? {} : { payload }) })
    t.equal(res.statusCode, 403, method)
    t.equal(res.json().code, 'token_insufficient_scopes')
    t.same(res.json().details.security[0].schemeScopes, ['core.users.metadata:write'])
  }
  const accountRead = await app.inject({ method: 'GET', url: `/core/accounts/${account}/metadata`, headers: h })
  t.equal(accountRead.statusCode, 403, 'write does not imply read')
  t.same(accountRead.json().details.security[0].schemeScopes, ['core.accounts.metadata:read'])
  t.equal((await app.inject({ method: 'PUT', url: `/core/accounts/${account}/metadata`, headers: h, payload: { a: 1 } })).statusCode, 201)

  const noActing = await accessToken(app, { scope: 'core.users.metadata:read' })
  const refused = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(noActing), ...onBehalfOf(user.id) } })
  t.equal(refused.statusCode, 403, 'X-On-Behalf-Of needs core.users:act-on-behalf-of')
  t.same(refused.json().details.security[0].schemeScopes, ['core.users:act-on-behalf-of'])
})

t.test('a client subject without X-On-Behalf-Of is 403 token_subject_not_allowed; a user-bound client needs none', async t => {
  const app = await build(t)
  const token = await accessToken(app)
  for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
    const payload = method === 'PUT' ? { a: 1 } : method === 'PATCH' ? [{ op: 'add', path: '/a', value: 1 }] : undefined
    const res = await app.inject({ method, url: '/core/users/me/metadata', headers: bearer(token), ...(payload === undefined ? {} : { payload }) })
    t.equal(res.statusCode, 403, method)
    t.same(res.json(), {
      code: 'token_subject_not_allowed',
      message: 'The access token subject is not allowed for this operation: act for a user with the X-On-Behalf-Of header',
      details: { subjects: ['user'], tokenSubject: 'client' }
    })
  }
  const malformed = await app.inject({ method: 'GET', url: '/core/users/me/metadata', headers: { ...bearer(token), 'x-on-behalf-of': 'user nope' } })
  t.equal(malformed.statusCode, 400)

  const user = await makeUser(app)
  const bound = await makeClient(app, { organizationId: user.organizationId, userId: user.id, scopes: ['core.users.metadata:read', 'core.users.metadata:write'] })
  const boundToken = await accessToken(app, { clientId: bound.clientId, secret: bound.secret })
  const put = await app.inject({ method: 'PUT', url: '/core/users/me/metadata', headers: bearer(boundToken), payload: { bound: true } })
  t.equal(put.statusCode, 201)
  const get = await app.inject({ method: 'GET', url: `/core/users/${user.id}/metadata`, headers: bearer(boundToken) })
  t.same(get.json(), { metadata: { bound: true } })
})

t.test('the OpenAPI document describes every metadata operation with its scope, headers and statuses', async t => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const paths: Record<string, string> = {
    users: '/core/users/{userId}/metadata',
    accounts: '/core/accounts/{accountId}/metadata',
    files: '/core/files/{fileId}/metadata',
    'external-accounts': '/core/external-accounts/{externalAccountId}/metadata',
    transactions: '/core/transactions/{transactionId}/metadata'
  }
  const statuses: Record<string, string[]> = {
    get: ['200', '304', '400', '401', '403', '404', '412', '429'],
    put: ['200', '201', '400', '401', '403', '404', '412', '413', '415', '429'],
    patch: ['200', '400', '401', '403', '404', '412', '413', '415', '422', '429'],
    delete: ['204', '400', '401', '403', '404', '412', '429']
  }
  const operationIds = new Set<string>()
  for (const [segment, path] of Object.entries(paths)) {
    const item = doc.paths[path]
    t.ok(item, path)
    for (const method of ['get', 'put', 'patch', 'delete']) {
      const op = item[method]
      operationIds.add(op.operationId)
      t.same(op.tags, ['Metadata'])
      t.ok(op.summary && op.description, `${method} ${path} summary and description`)
      t.same(op.security, [{ OAuth2: [`core.${segment}.metadata:${method === 'get' ? 'read' : 'write'}`] }])
      t.same(Object.keys(op.responses).sort(), statuses[method], `${method} ${path} statuses`)
      const headers = op.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name.toLowerCase())
      t.same(headers.sort(), ['if-match', 'if-none-match', 'x-on-behalf-of'])
      if (method !== 'delete') t.ok(op.responses[method === 'put' ? '201' : '200'].headers.ETag, 'ETag documented')
    }
  }
  t.equal(operationIds.size, 20, 'operation ids are unique')
  t.same(Object.keys(doc.paths['/core/users/{userId}/metadata'].patch.requestBody.content), ['application/json-patch+json', 'application/json'])
})
