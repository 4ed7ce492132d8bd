// Refresh tokens are stored under keys ordered by issue time (so storing them appends to the
// index), and tokens stored under their whole SHA-256 before that still refresh.
import t from 'tap'
import { createHash, randomBytes } from 'node:crypto'
import { basic, build, DEMO_ID, DEMO_SECRET, tokenRequest } from '../helpers.js'
import { hashRefreshToken } from '../../src/auth/tokens.js'
import type { Db } from '../../src/storage/db.js'

const demo = basic(DEMO_ID, DEMO_SECRET)
const keys = async (db: Db): Promise<string[]> =>
  (await db.prepare<[], { hash: string }>('SELECT hash FROM refresh_tokens ORDER BY rowid').all()).map(r => r.hash)

t.test('a refresh token is 43 opaque characters, stored under its issue time and a hash of it', async t => {
  const app = await build(t)
  const issued: string[] = []
  for (let i = 0; i < 3; i++) {
    const res = await tokenRequest(app, { grant_type: 'client_credentials' }, demo)
    issued.push(res.json().refresh_token)
  }
  const stored = await keys(app.storage.db)
  for (const [i, token] of issued.entries()) {
    t.match(token, /^[A-Za-z0-9_-]{43}$/)
    t.equal(stored[i], hashRefreshToken(token))
    t.match(stored[i], /^[0-9a-f]{64}$/)
    t.equal(stored[i].slice(0, 12), Buffer.from(token, 'base64url').subarray(0, 6).toString('hex'), 'the key starts with the token\'s issue time')
    t.equal(stored[i].slice(12), createHash('sha256').update(token).digest('hex').slice(0, 52), 'then the SHA-256 of the token')
    t.notOk(stored[i].includes(Buffer.from(token, 'base64url').subarray(6).toString('hex')), 'no random part of the token')
  }
  t.ok(Math.abs(parseInt(stored[2].slice(0, 12), 16) - Date.now()) < 60_000, 'which is the time of the machine')
})

t.test('a token stored under its whole SHA-256 (before ordered keys) still refreshes, once', async t => {
  const app = await build(t)
  const current = (await tokenRequest(app, { grant_type: 'client_credentials' }, demo)).json().refresh_token
  const family = (await app.storage.db.prepare<[], { family: string }>('SELECT family FROM refresh_tokens').get())!.family
  const legacy = randomBytes(32).toString('base64url')
  const now = app.clock.now()
  await app.storage.refreshTokens.save({
    hash: createHash('sha256').update(legacy).digest('hex'),
    clientId: DEMO_ID,
    organizationId: (await app.clients.get(DEMO_ID))!.organizationId,
    userId: null,
    scopes: ['core.users:read'],
    expiresAt: now + 60_000,
    createdAt: now,
    usedAt: null,
    family
  })
  const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: legacy })
  t.equal(refreshed.statusCode, 200)
  t.equal(refreshed.json().scope, 'core.users:read')
  const again = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: legacy })
  t.equal(again.statusCode, 400)
  t.equal(again.json().error_description, 'Token has been revoked')
  t.ok(current, 'the family came from a real grant')
})
