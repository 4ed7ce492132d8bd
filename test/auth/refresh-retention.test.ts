// Refresh tokens' retention: a token expired longer than REFRESH_TOKEN_RETENTION_SECONDS ago, on its
// organization's own clock, is deleted; until then it answers as expired, after as unknown. An
// organization whose clock stands in the past keeps its tokens as long as they live on that clock.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { basic, build, DEMO_ID, DEMO_SECRET, fileDatabasePath, tokenRequest } from '../helpers.js'
import { hashRefreshToken } from '../../src/auth/tokens.js'
import { refreshTokenRetention } from '../../src/auth/retention.js'
import { Clock } from '../../src/clock.js'

const HOUR = 3600
const demo = basic(DEMO_ID, DEMO_SECRET)

const issue = async (app: FastifyInstance, authorization = demo): Promise<string> =>
  (await tokenRequest(app, { grant_type: 'client_credentials' }, authorization)).json().refresh_token

const stored = async (app: FastifyInstance, token: string): Promise<boolean> =>
  await app.storage.refreshTokens.get(hashRefreshToken(token)) !== undefined

const refresh = async (app: FastifyInstance, token: string): Promise<{ status: number, description: string | undefined }> => {
  const res = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: token })
  return { status: res.statusCode, description: res.json().error_description }
}

t.test('a token expired longer than the retention goes and is then unknown; a more recent one stays, expired', async t => {
  const app = await build(t, { refreshTokenTtlSeconds: HOUR, refreshTokenRetentionSeconds: HOUR })
  const older = await issue(app)
  app.clock.advance(HOUR / 2)
  const newer = await issue(app)
  // Now t0 + 2 h 10 min: the older expired at t0 + 1 h (2 h 10 min > 1 h + 1 h of retention), the
  // newer at t0 + 1 h 30 min (kept until t0 + 2 h 30 min).
  app.clock.advance(HOUR + 40 * 60)
  t.same(await refreshTokenRetention(app).prune(), { refreshTokens: 1 })
  t.notOk(await stored(app, older), 'the older token is deleted')
  t.ok(await stored(app, newer), 'the newer one is kept')
  t.same(await refresh(app, older), { status: 400, description: 'Token is invalid' }, 'the deleted token is unknown')
  t.same(await refresh(app, newer), { status: 400, description: 'Token expired' }, 'the kept one answers as expired')
  t.same(await refreshTokenRetention(app).prune(), { refreshTokens: 0 }, 'nothing more to prune')
})

t.test('the walk goes through every batch of tokens', async t => {
  const app = await build(t, { refreshTokenTtlSeconds: HOUR, refreshTokenRetentionSeconds: HOUR })
  const tokens = []
  for (let i = 0; i < 1100; i++) tokens.push(await issue(app))
  app.clock.advance(3 * HOUR)
  const live = await issue(app)
  t.same(await refreshTokenRetention(app).prune(), { refreshTokens: 1100 })
  t.equal(await app.storage.db.prepare<[], number>('SELECT COUNT(*) FROM refresh_tokens').pluck().get(), 1, 'only the live token is left')
  t.ok(await stored(app, live))
})

t.test('an organization whose clock stands in the past keeps its tokens while they live on its clock', async t => {
  const app = await build(t, { refreshTokenTtlSeconds: HOUR, refreshTokenRetentionSeconds: HOUR })
  const organizationId = '7e0c2a2e-9d1b-4c55-8f0e-3b2d1c0a9f11'
  const loaded = await app.inject({
    method: 'POST',
    url: '/_sandbox/fixtures',
    payload: {
      organizations: [{ id: organizationId }],
      clients: [{ clientId: 'frozen-client', clientSecret: 'frozen-secret', organizationId, scopes: ['core.users:read'], refreshTokens: true }]
    }
  })
  t.equal(loaded.statusCode, 201)
  const issuedAt = app.clock.now()
  const frozen = await issue(app, basic('frozen-client', 'frozen-secret'))
  const global = await issue(app)
  app.clock.advance(3 * HOUR)
  // The organization's clock stands at the instant its token was issued.
  await app.sharedState.moveOrganizationClock(organizationId, { offsetMs: 0, frozenAt: issuedAt })
  t.same(await refreshTokenRetention(app).prune(), { refreshTokens: 1 }, 'the token on the global clock goes')
  t.notOk(await stored(app, global))
  t.ok(await stored(app, frozen), 'the token of the organization whose clock stands in the past stays')
  t.equal((await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: frozen })).statusCode, 200, 'and still refreshes')
})

t.test('with retention 0 nothing is deleted', async t => {
  const app = await build(t, { refreshTokenTtlSeconds: HOUR, refreshTokenRetentionSeconds: 0 })
  const token = await issue(app)
  app.clock.advance(100 * HOUR)
  t.same(await refreshTokenRetention(app).prune(), { refreshTokens: 0 })
  t.ok(await stored(app, token))
  t.same(await refresh(app, token), { status: 400, description: 'Token expired' })
})

t.test('the sandbox prunes at start', async t => {
  const path = fileDatabasePath(t)
  const clock = new Clock()
  clock.freeze(true)
  const first = await build(t, { databasePath: path, refreshTokenTtlSeconds: HOUR, refreshTokenRetentionSeconds: HOUR }, { clock })
  const token = await issue(first)
  await first.close()
  clock.advance(3 * HOUR)
  const second = await build(t, { databasePath: path, refreshTokenTtlSeconds: HOUR, refreshTokenRetentionSeconds: HOUR }, { clock })
  await second.ready()
  for (let i = 0; i < 200 && await stored(second, token); i++) await new Promise(resolve => setTimeout(resolve, 10))
  t.notOk(await stored(second, token), 'pruned at start')
  t.equal(refreshTokenRetention(second).intervalMs, 900_000, 'then every quarter of the retention (hourly when that is longer)')
})
