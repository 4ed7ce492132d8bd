// A full scenario with every kind of secret the sandbox handles (client secrets, access and refresh
// tokens, the management link's token, webhook signing secrets, the admin token), logged at trace
// level: none of them reaches the log, the request log or, where it is not needed, the database.
import t from 'tap'
import { Writable } from 'node:stream'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { backend, basic, build, DEMO_ID, DEMO_SECRET, fileDatabasePath, openTestStorage } from '../helpers.js'
import { hashRefreshToken } from '../../src/auth/tokens.js'
import { listen, receiver, until } from './support.js'

const ADMIN = 'secrets-admin-token-0123456789'

t.test('no secret reaches the logs, the request log or the database in the clear', async t => {
  const databasePath = fileDatabasePath(t)
  const lines: string[] = []
  const logStream = new Writable({ write (chunk: Buffer, _encoding, done) { lines.push(chunk.toString('utf8')); done() } })
  const app: FastifyInstance = await build(t, { databasePath, logLevel: 'trace', adminToken: ADMIN }, {
    logStream,
    plugins: [async probe => {
      probe.post('/probe/fail', async () => { throw new Error('the probe fails on purpose') })
    }]
  })
  const base = await listen(app)
  const hooks = await receiver(t)

  // Every secret value seen in this scenario.
  const secrets = new Map<string, string>([['admin token', ADMIN], ['demo client secret', DEMO_SECRET]])
  const keep = (what: string, value: unknown): string => {
    if (typeof value !== 'string' || value.length < 8) throw new Error(`${what}: ${String(value)}`)
    secrets.set(what, value)
    return value
  }
  const call = async (method: string, path: string, init: { headers?: Record<string, string>, body?: unknown, form?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...init.headers }
    let body: string | undefined
    if (init.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(init.form).toString()
    } else if (init.body !== undefined) {
      headers['content-type'] ??= 'application/json'
      body = JSON.stringify(init.body)
    }
    const res = await fetch(`${base}${path}`, { method, headers, body })
    const text = await res.text()
    return { status: res.status, text, json: () => JSON.parse(text) }
  }
  const admin = { authorization: `Bearer ${ADMIN}` }

  // A client with refresh tokens, made through the control API; its secret is shown once.
  const client = await call('POST', '/_sandbox/clients', { headers: admin, body: { clientId: 'secretive', scopes: ['core.*', 'partner.*'], refreshTokens: true } })
  t.equal(client.status, 201)
  const secret = keep('client secret', client.json().clientSecret)

  // Tokens: Basic, body credentials, refresh; and a secret sent where it does not belong (the query).
  const viaBasic = await call('POST', '/core/oauth2/token', { headers: { authorization: basic('secretive', secret) }, form: { grant_type: 'client_credentials' } })
  t.equal(viaBasic.status, 200)
  const access = keep('access token (Basic)', viaBasic.json().access_token)
  const refresh = keep('refresh token', viaBasic.json().refresh_token)
  keep('Basic credentials', basic('secretive', secret).slice(6))
  keep('access token signature', access.split('.')[2])
  const viaBody = await call('POST', `/core/oauth2/token?client_secret=${encodeURIComponent(secret)}`, { form: { grant_type: 'client_credentials', client_id: 'secretive', client_secret: secret } })
  t.equal(viaBody.status, 200)
  keep('access token (body)', viaBody.json().access_token)
  const refreshed = await call('POST', '/core/oauth2/token', { headers: { authorization: basic('secretive', secret) }, form: { grant_type: 'refresh_token', refresh_token: refresh } })
  t.equal(refreshed.status, 200)
  const access2 = keep('refreshed access token', refreshed.json().access_token)
  const refresh2 = keep('second refresh token', refreshed.json().refresh_token)
  const demo = await call('POST', '/core/oauth2/token', { headers: { authorization: basic(DEMO_ID, DEMO_SECRET) }, form: { grant_type: 'client_credentials' } })
  keep('demo access token', demo.json().access_token)
  keep('demo refresh token', demo.json().refresh_token)

  // Refusals: a wrong secret, by Basic and in the body, and a reused refresh token.
  const wrongSecret = `${secret}-wrong`
  t.equal((await call('POST', '/core/oauth2/token', { headers: { authorization: basic('secretive', wrongSecret) }, form: { grant_type: 'client_credentials' } })).status, 401)
  t.equal((await call('POST', '/core/oauth2/token', { form: { grant_type: 'client_credentials', client_id: 'secretive', client_secret: wrongSecret } })).status, 401)
  t.equal((await call('POST', '/core/oauth2/token', { form: { grant_type: 'refresh_token', refresh_token: refresh } })).status, 400)
  secrets.set('wrong secret', wrongSecret)

  // Users and metadata.
  const bearer = { authorization: `Bearer ${access2}` }
  const user = await call('POST', '/core/users', { headers: { ...bearer, 'x-service-user-ip': '47.174.97.164' }, body: { email: 'quiet@example.com', termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' }, metadata: { note: 'hello' } } })
  t.equal(user.status, 201)
  const asUser = { ...bearer, 'x-on-behalf-of': `user ${user.json().user.id}` }
  t.equal((await call('PUT', '/core/users/me/metadata', { headers: asUser, body: { tier: 'gold' } })).status, 200)
  t.equal((await call('PATCH', '/core/users/me/metadata', { headers: { ...asUser, 'content-type': 'application/json-patch+json' }, body: [{ op: 'add', path: '/x', value: 1 }] })).status, 200)

  // The management link, its portal page and API, an endpoint and a signed delivery.
  const link = await call('POST', '/core/webhooks/management-link', { headers: bearer })
  t.equal(link.status, 201)
  const portal = new URL(link.json().managementLink.url).pathname
  keep('management link token', portal.split('/').pop())
  t.equal((await call('GET', portal)).status, 200)
  const endpoint = await call('POST', `${portal}/api/endpoints`, { body: { url: hooks.url } })
  t.equal(endpoint.status, 201)
  keep('webhook signing secret', endpoint.json().endpoint.secret)
  t.equal((await call('GET', `${portal}/api/endpoints`)).status, 200)
  t.equal((await call('POST', '/partner/kyc-sharing/identify-user', { headers: bearer, body: { email: 'hooked@example.com', country: 'GB' } })).status, 201)
  await until(() => hooks.deliveries.length >= 1 ? true : undefined, 'a delivery')
  t.match(hooks.deliveries[0].headers['webhook-signature'], /^v1,/, 'the delivery is signed')
  const sandboxEndpoint = await call('POST', '/_sandbox/webhooks/endpoints', { headers: admin, body: { url: hooks.url } })
  keep('second webhook signing secret', sandboxEndpoint.json().endpoint.secret)

  // A rotated secret, and a request the server fails on with credentials in it.
  const rotated = await call('POST', '/_sandbox/clients/secretive/rotate-secret', { headers: admin })
  t.equal(rotated.status, 200)
  keep('rotated client secret', rotated.json().clientSecret)
  const failed = await call('POST', '/probe/fail', { headers: bearer, body: { client_secret: secret, refresh_token: refresh2 } })
  t.equal(failed.status, 500)
  t.notMatch(failed.text, 'probe fails', 'a 500 tells the client nothing of its cause')

  await app.close()
  const log = lines.join('')
  t.match(log, /"msg":"request failed"/, 'the failure was logged')
  t.match(log, /the probe fails on purpose/, 'with its cause')
  t.match(log, /"msg":"token issued"/, 'trace and debug lines were written')
  for (const [what, value] of secrets) t.notOk(log.includes(value), `the log holds no ${what}`)

  // The database holds only hashes of client secrets, refresh tokens and link tokens; webhook
  // signing secrets are kept, since deliveries are signed with them.
  const kept = (what: string): boolean => what.includes('webhook signing secret')
  // SQLite's files too (its write-ahead log, pages freed but not yet overwritten): a PostgreSQL
  // server's files are its own, out of the sandbox's reach.
  if (backend === 'sqlite') {
    await t.test('the SQLite files hold no secret in the clear', async t => {
      const dir = dirname(databasePath)
      const files = readdirSync(dir).map(f => readFileSync(join(dir, f)).toString('latin1')).join('\n')
      for (const [what, value] of secrets) {
        if (!kept(what)) t.notOk(files.includes(value), `the database files hold no ${what}`)
      }
      t.ok(files.includes(secrets.get('webhook signing secret')!), 'the signing secret is kept, to sign with')
    })
  }
  const storage = await openTestStorage(t, databasePath)
  t.teardown(() => storage.close())
  const { db } = storage
  const tables = await db.prepare<[], string>({
    sqlite: "SELECT name FROM sqlite_master WHERE type = 'table'",
    postgres: "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
  }).pluck().all()
  const cells: string[] = []
  for (const table of tables) {
    for (const row of await db.prepare<[], Record<string, unknown>>(`SELECT * FROM "${table}"`).all()) {
      for (const value of Object.values(row)) cells.push(Buffer.isBuffer(value) ? value.toString('latin1') : String(value))
    }
  }
  const stored = cells.join('\n')
  for (const [what, value] of secrets) {
    if (!kept(what)) t.notOk(stored.includes(value), `the database's tables hold no ${what}`)
  }
  t.ok(stored.includes(secrets.get('webhook signing secret')!), 'the signing secret is kept, to sign with')
  // The rotation dropped the client's refresh tokens; the demo client's stays.
  const hashes = await db.prepare<[], string>('SELECT hash FROM refresh_tokens').pluck().all()
  t.ok(hashes.length > 0 && hashes.every(h => /^[0-9a-f]{64}$/.test(h)), 'refresh tokens are stored as hashes')
  t.ok(hashes.includes(hashRefreshToken(secrets.get('demo refresh token')!)), 'the SHA-256 of the token')
  const clientRow = await db.prepare('SELECT * FROM clients WHERE id = ?').get('secretive')
  t.ok(clientRow, 'the client is stored')
  t.notOk(JSON.stringify(clientRow).includes(secret), 'the client row holds no secret')
})

t.test('the request log masks every secret it shows', async t => {
  const app = await build(t, { adminToken: ADMIN })
  const base = await listen(app)
  const admin = { authorization: `Bearer ${ADMIN}` }
  const post = (path: string, body: string, headers: Record<string, string>) => fetch(`${base}${path}`, { method: 'POST', headers, body })
  const form = { 'content-type': 'application/x-www-form-urlencoded' }

  const created = await (await post('/_sandbox/clients', JSON.stringify({ clientId: 'logged', scopes: ['core.*'], refreshTokens: true }), { ...admin, 'content-type': 'application/json' })).json()
  const secret = created.clientSecret as string
  const issued = await (await post('/core/oauth2/token', 'grant_type=client_credentials', { ...form, authorization: basic('logged', secret) })).json()
  await post(`/core/oauth2/token?client_secret=${secret}`, `grant_type=client_credentials&client_id=logged&client_secret=${encodeURIComponent(secret)}`, form)
  const refreshed = await (await post('/core/oauth2/token', `grant_type=refresh_token&refresh_token=${issued.refresh_token as string}`, form)).json()
  const link = await (await post('/core/webhooks/management-link', '', { authorization: `Bearer ${refreshed.access_token as string}` })).json()
  const portal = new URL(link.managementLink.url).pathname
  await fetch(`${base}${portal}`)
  const endpoint = await (await post(`${portal}/api/endpoints`, JSON.stringify({ url: 'http://127.0.0.1:9/hooks' }), { 'content-type': 'application/json' })).json()
  await fetch(`${base}${portal}/api/endpoints`)
  const rotated = await (await post('/_sandbox/clients/logged/rotate-secret', '', admin)).json()

  const logged = await (await fetch(`${base}/_sandbox/requests?limit=1000`, { headers: admin })).text()
  t.ok(logged.includes('/core/oauth2/token'), 'the token requests are in the log')
  const values: Record<string, string> = {
    'client secret': secret,
    'access token': issued.access_token,
    'refresh token': issued.refresh_token,
    'refreshed access token': refreshed.access_token,
    'second refresh token': refreshed.refresh_token,
    'management link token': portal.split('/').pop()!,
    'webhook signing secret': endpoint.endpoint.secret,
    'rotated client secret': rotated.clientSecret,
    'admin token': ADMIN,
    'Basic credentials': basic('logged', secret).slice(6)
  }
  for (const [what, value] of Object.entries(values)) t.notOk(logged.includes(value), `the request log holds no ${what}`)
})
