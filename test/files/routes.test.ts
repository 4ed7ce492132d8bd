// core.create-file and core.get-file as an integrator sees them, under the reference's names
// (SERVICE_NAME=uphold, PARTNER_AREA=topper): each success and each documented error, every
// answer checked against the app's own OpenAPI document.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { makeClient, makeUser, accessToken, bearer, onBehalfOf, UUID_RE } from '../helpers.js'
import { setup } from './support.js'

t.test('create a file: pending, with an upload target of the category\'s lifetime', async t => {
  const { app, call } = await setup(t)
  const res = await call('POST', '/core/files', { payload: { category: 'image', contentType: 'image/png' } })
  t.equal(res.statusCode, 201)
  const { file } = res.json()
  t.match(file.id, UUID_RE)
  t.match(file, { status: 'pending', category: 'image', contentType: 'image/png' })
  t.equal(file.upload.url, `http://localhost:80/file-storage/uploads/${file.id as string}`)
  t.same(Object.keys(file.upload.formData), ['key', 'Content-Type', 'policy', 'signature'])
  t.match(file.upload.formData, { key: file.id, 'Content-Type': 'image/png' })
  t.equal(file.upload.expiresAt, new Date(app.clock.now() + 900_000).toISOString())
  t.notOk('errors' in res.json())

  const read = await call('GET', `/core/files/${file.id as string}`)
  t.equal(read.statusCode, 200)
  t.same(read.json(), { file: { id: file.id, status: 'pending', category: 'image', contentType: 'image/png' } })
})

t.test('metadata at creation: stored, or reported in errors.metadata when too large', async t => {
  const { call } = await setup(t)
  const res = await call('POST', '/core/files', { payload: { category: 'document', contentType: 'application/pdf', metadata: { externalId: 123 } } })
  t.equal(res.statusCode, 201)
  const id = res.json().file.id as string
  const metadata = await call('GET', `/core/files/${id}/metadata`)
  t.equal(metadata.statusCode, 200)
  t.same(metadata.json(), { metadata: { externalId: 123 } })

  const big = await call('POST', '/core/files', { payload: { category: 'document', contentType: 'application/pdf', metadata: { big: 'x'.repeat(1100) } } })
  t.equal(big.statusCode, 201)
  t.same(big.json().errors, {
    metadata: { code: 'content_too_large', message: 'The entity metadata size is greater than maximum size limit', details: { threshold: { unit: 'characters', limit: 1024 } } }
  })
  t.equal((await call('GET', `/core/files/${big.json().file.id as string}/metadata`)).statusCode, 404, 'created without metadata')
})

t.test('409 file_content_type_not_allowed; 400 for a bad body', async t => {
  const { call } = await setup(t)
  for (const payload of [{ category: 'image', contentType: 'application/pdf' }, { category: 'video', contentType: 'image/png' }, { category: 'document', contentType: 'text/plain' }]) {
    const res = await call('POST', '/core/files', { payload })
    t.equal(res.statusCode, 409, JSON.stringify(payload))
    t.same(res.json(), { code: 'file_content_type_not_allowed', message: 'The file content type is not allowed for the specified category' })
  }
  const badCategory = await call('POST', '/core/files', { payload: { category: 'audio', contentType: 'audio/mpeg' } })
  t.equal(badCategory.statusCode, 400)
  t.match(badCategory.json(), { code: 'request_invalid', message: 'The request has missing or invalid parameters', details: { context: 'body', violations: [{ property: 'category' }] } })
  const missing = await call('POST', '/core/files', { payload: { category: 'image' } })
  t.equal(missing.statusCode, 400)
  t.match(missing.json(), { code: 'request_invalid', details: { context: 'body', violations: [{ property: 'contentType', rule: 'required' }] } })
  const long = await call('POST', '/core/files', { payload: { category: 'image', contentType: 'x'.repeat(101) } })
  t.equal(long.statusCode, 400)
})

t.test('409 max_files_limit_exceeded at the 101st file of a user', async t => {
  const { call, app, token, userId } = await setup(t)
  // Concurrently: the limit holds inside the write, whatever the interleaving.
  const created = await Promise.all(Array.from({ length: 100 }, async () => await app.inject({
    method: 'POST', url: '/core/files', payload: { category: 'image', contentType: 'image/jpeg' }, headers: { ...bearer(token), ...onBehalfOf(userId) }
  })))
  t.same([...new Set(created.map(r => r.statusCode))], [201])
  const over = await call('POST', '/core/files', { payload: { category: 'image', contentType: 'image/jpeg' } })
  t.equal(over.statusCode, 409)
  t.same(over.json(), { code: 'max_files_limit_exceeded', message: 'The maximum number of allowed files has been exceeded' })
})

t.test('a file is its user\'s: another user\'s or another organization\'s is 404', async t => {
  const { app, call } = await setup(t)
  const id = (await call('POST', '/core/files', { payload: { category: 'image', contentType: 'image/png' } })).json().file.id as string
  const other = await makeUser(app)
  const notYours = await call('GET', `/core/files/${id}`, { user: other.id })
  t.equal(notYours.statusCode, 404)
  t.same(notYours.json(), { code: 'entity_not_found', message: 'The file cannot be found', details: { entity: 'file' } })
  t.equal((await call('GET', `/core/files/${id}/metadata`, { user: other.id })).statusCode, 404, 'nor its metadata')

  const elsewhere = await makeClient(app)
  const stranger = await makeUser(app, elsewhere.organizationId)
  const token = await accessToken(app, { clientId: elsewhere.clientId, secret: elsewhere.secret })
  const res = await app.inject({ method: 'GET', url: `/core/files/${id}`, headers: { ...bearer(token), ...onBehalfOf(stranger.id) } })
  t.equal(res.statusCode, 404)
  t.same(res.json(), { code: 'entity_not_found', message: 'The file cannot be found', details: { entity: 'file' } })

  const unknown = await call('GET', `/core/files/${randomUUID()}`)
  t.equal(unknown.statusCode, 404)
  const malformed = await call('GET', '/core/files/not-a-uuid')
  t.equal(malformed.statusCode, 400)
  t.match(malformed.json(), { code: 'request_invalid', details: { context: 'params', violations: [{ property: 'fileId', rule: 'format' }] } })
})

t.test('subjects and scopes: users only, with core.files:create and core.files:read', async t => {
  const { app, call, userId } = await setup(t)
  const asClient = await call('POST', '/core/files', { payload: { category: 'image', contentType: 'image/png' }, user: null })
  t.equal(asClient.statusCode, 403)
  t.same(asClient.json(), {
    code: 'token_subject_not_allowed',
    message: 'The access token subject is not allowed for this operation: act for a user with the X-On-Behalf-Of header',
    details: { subjects: ['user:business', 'user:individual'], tokenSubject: 'client' }
  })
  const narrow = await accessToken(app, { scope: 'core.users:act-on-behalf-of core.files:read' })
  const res = await app.inject({ method: 'POST', url: '/core/files', headers: { ...bearer(narrow), ...onBehalfOf(userId) }, payload: { category: 'image', contentType: 'image/png' } })
  t.equal(res.statusCode, 403)
  t.match(res.json(), { code: 'token_insufficient_scopes', details: { security: [{ scheme: 'OAuth', schemeScopes: ['core.files:create'] }] } })
  for (const [method, payload] of [['GET', undefined], ['POST', { category: 'image', contentType: 'image/png' }]] as const) {
    const gone = await call(method, method === 'GET' ? `/core/files/${randomUUID()}` : '/core/files', { user: randomUUID(), payload })
    t.equal(gone.statusCode, 404, `${method}: an unknown acting user`)
    t.same(gone.json(), { code: 'entity_not_found', message: 'The user cannot be found', details: { entity: 'user' } })
  }
})

t.test('sandbox-made files are real files of their user', async t => {
  const { app, call, userId } = await setup(t)
  const made = await app.inject({ method: 'POST', url: '/_sandbox/entities/files', payload: { userId } })
  t.equal(made.statusCode, 201)
  const id = made.json().id as string
  t.same((await call('GET', `/core/files/${id}`)).json(), { file: { id, status: 'pending', category: 'document', contentType: 'application/pdf' } })
  const again = await app.inject({ method: 'POST', url: '/_sandbox/entities/accounts', payload: { userId, id } })
  t.equal(again.statusCode, 409, 'file ids are taken for every entity type')

  const fixtureId = randomUUID()
  const loaded = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { entities: [{ id: fixtureId, type: 'files', userId }], metadata: [{ entity: 'files', entityId: fixtureId, metadata: { from: 'fixture' } }] } })
  t.equal(loaded.statusCode, 201)
  t.equal((await call('GET', `/core/files/${fixtureId}`)).json().file.status, 'pending')
  t.same((await call('GET', `/core/files/${fixtureId}/metadata`)).json(), { metadata: { from: 'fixture' } })
  const duplicate = await app.inject({ method: 'POST', url: '/_sandbox/fixtures', payload: { entities: [{ id: fixtureId, type: 'accounts', userId }] } })
  t.equal(duplicate.statusCode, 400)
  t.match(duplicate.json().details.violations, [{ property: 'entities.0.id', rule: 'unique' }])
})
