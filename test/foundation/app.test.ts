import t from 'tap'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from 'typebox'
import { backend, build, fileDatabasePath, REQUEST_ID, UUID_RE } from '../helpers.js'
import { buildApp } from '../../src/app.js'
import { testConfig } from '../../src/config.js'

t.test('health answers ok with a request id', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/_sandbox/health' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok' })
  t.match(res.headers[REQUEST_ID], UUID_RE)
})

t.test('every answer carries a fresh request id: success, error, unknown route', async t => {
  const app = await build(t)
  const ok = await app.inject({ method: 'GET', url: '/_sandbox/health' })
  const error = await app.inject({ method: 'POST', url: '/core/oauth2/token', payload: 'grant_type=nope', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  const unknown = await app.inject({ method: 'GET', url: '/core/nothing-here' })
  const ids = [ok, error, unknown].map(r => r.headers[REQUEST_ID])
  for (const id of ids) t.match(id, UUID_RE)
  t.equal(new Set(ids).size, 3, 'ids differ')
  t.equal(error.statusCode, 400)
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { code: 'route_not_found', message: 'The route cannot be found' })
})

t.test('the request-id header follows SERVICE_NAME', async t => {
  const app = await build(t, { serviceName: 'uphold' })
  const res = await app.inject({ method: 'GET', url: '/nowhere' })
  t.match(res.headers['x-uphold-request-id'], UUID_RE)
  t.notOk(res.headers[REQUEST_ID])
})

t.test('data survives a close and reopen of the database', async t => {
  const overrides = { databasePath: fileDatabasePath(t) }
  const first = await build(t, overrides)
  await first.storage.organizations.ensure('11111111-1111-4111-8111-111111111111', 'Kept', first.clock.iso())
  const key = await first.storage.settings.get('jwt.hs256.key')
  await first.close()

  const second = await build(t, overrides)
  const org = await second.storage.organizations.get('11111111-1111-4111-8111-111111111111')
  t.equal(org?.name, 'Kept')
  t.equal(await second.storage.settings.get('jwt.hs256.key'), key, 'the signing key is kept, so tokens survive a restart')
})

// The SQLite file itself: its folder made when missing, and the write-ahead log it is kept in. A
// PostgreSQL server keeps its own files, so there is nothing of the kind to check there.
if (backend === 'sqlite') {
  t.test('the SQLite file is made with its folder, written ahead (WAL), and reopened', async t => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const config = testConfig({ databasePath: join(dir, 'db', 'sandbox.db') })
    const first = await buildApp({ config })
    await first.storage.organizations.ensure('11111111-1111-4111-8111-111111111111', 'Kept', first.clock.iso())
    await first.close()
    t.ok(existsSync(join(dir, 'db', 'sandbox.db')), 'the file is in the folder made for it')

    const second = await buildApp({ config })
    t.teardown(() => second.close())
    t.equal((await second.storage.organizations.get('11111111-1111-4111-8111-111111111111'))?.name, 'Kept')
    t.equal(await second.storage.db.prepare('PRAGMA journal_mode').pluck().get(), 'wal')
  })
}

t.test('a schema violation answers 400 request_invalid with context and violations', async t => {
  const app = await build(t, {}, {
    plugins: [async probe => {
      probe.post('/probe', {
        schema: {
          body: Type.Object({ email: Type.String({ format: 'email' }), address: Type.Object({ country: Type.String({ format: 'country-code' }) }) }),
          querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })) })
        }
      }, async () => ({ ok: true }))
    }]
  })
  const body = await app.inject({ method: 'POST', url: '/probe', payload: { email: 'not-an-email', address: { country: 'ZZ' }, extra: 1 } })
  t.equal(body.statusCode, 400)
  t.match(body.headers[REQUEST_ID], UUID_RE)
  t.same(body.json(), {
    code: 'request_invalid',
    message: 'The request has missing or invalid parameters',
    details: {
      context: 'body',
      violations: [
        { property: 'email', rule: 'format', ruleParams: { format: 'email' } },
        { property: 'address.country', rule: 'format', ruleParams: { format: 'country-code' } }
      ]
    }
  })
  const missing = await app.inject({ method: 'POST', url: '/probe', payload: {} })
  t.same(missing.json().details, { context: 'body', violations: [{ property: 'email', rule: 'required' }, { property: 'address', rule: 'required' }] })
  const query = await app.inject({ method: 'POST', url: '/probe?limit=0', payload: { email: 'a@b.co', address: { country: 'GB' } } })
  t.same(query.json().details, { context: 'query', violations: [{ property: 'limit', rule: 'minimum', ruleParams: { limit: 1 } }] })
  const badJson = await app.inject({ method: 'POST', url: '/probe', payload: '{"email":', headers: { 'content-type': 'application/json' } })
  t.equal(badJson.statusCode, 400)
  t.equal(badJson.json().code, 'request_invalid')
  t.equal(badJson.json().details.context, 'body')
  const ok = await app.inject({ method: 'POST', url: '/probe', payload: { email: 'a@b.co', address: { country: 'GB' } } })
  t.equal(ok.statusCode, 200)
})

t.test('an unexpected failure is a bare 500 without stack or internal message', async t => {
  const app = await build(t, {}, {
    plugins: [async probe => {
      probe.get('/boom', async () => { throw new Error('secret internal detail at /some/path.ts:42') })
    }]
  })
  const res = await app.inject({ method: 'GET', url: '/boom' })
  t.equal(res.statusCode, 500)
  t.same(res.json(), { code: 'internal_server_error', message: 'The server encountered an unexpected condition' })
  t.notMatch(res.body, /secret internal detail|\.ts:/)
  t.match(res.headers[REQUEST_ID], UUID_RE)
})
