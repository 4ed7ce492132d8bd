// A refresh token granted every scope of its client stores one word in place of the list; one
// granted fewer stores its list. Either way a refresh grants what the first token was granted,
// no more, and tokens stored with the whole list before the word still refresh.
import t from 'tap'
import { createHash, randomBytes } from 'node:crypto'
import { basic, build, makeClient, tokenRequest } from '../helpers.js'
import { hashRefreshToken } from '../../src/auth/tokens.js'

const WIDER = 'Requested scopes must be equal or narrower'
const SCOPES = ['core.users:read', 'core.users.metadata:read', 'core.users.metadata:write', 'core.accounts:read']

t.test('refresh tokens and their scopes', async t => {
  const app = await build(t)
  const client = await makeClient(app, { scopes: SCOPES, refreshTokens: true })
  const auth = basic(client.clientId, client.secret)
  const stored = async (token: string): Promise<string | undefined> =>
    (await app.storage.db.prepare<[string], { scopes: string }>('SELECT scopes FROM refresh_tokens WHERE hash = ?').get(hashRefreshToken(token)))?.scopes
  const refresh = (token: string, scope?: string) =>
    tokenRequest(app, { grant_type: 'refresh_token', refresh_token: token, ...(scope === undefined ? {} : { scope }) }, auth)

  t.test('no scope asked: the whole list, stored as the word "client"', async t => {
    const first = await tokenRequest(app, { grant_type: 'client_credentials' }, auth)
    t.equal(first.statusCode, 200)
    t.equal(first.json().scope, SCOPES.join(' '))
    t.equal(await stored(first.json().refresh_token), 'client')

    const second = await refresh(first.json().refresh_token)
    t.equal(second.statusCode, 200)
    t.equal(second.json().scope, SCOPES.join(' '), 'the refresh grants the client\'s every scope again')
    t.equal(await stored(second.json().refresh_token), 'client', 'and its successor stores the word too')

    const narrower = await refresh(second.json().refresh_token, 'core.users:read')
    t.equal(narrower.statusCode, 200)
    t.equal(narrower.json().scope, 'core.users:read')
    t.equal(await stored(narrower.json().refresh_token), 'client', 'a narrower refresh keeps the grant of its family')

    const wider = await refresh(narrower.json().refresh_token, 'core.users:read core.users:delete')
    t.equal(wider.statusCode, 400)
    t.same(wider.json(), { error: 'invalid_scope', error_description: WIDER })
  })

  t.test('the whole list asked for, in the client\'s order: the word too', async t => {
    const res = await tokenRequest(app, { grant_type: 'client_credentials', scope: SCOPES.join(' ') }, auth)
    t.equal(res.statusCode, 200)
    t.equal(await stored(res.json().refresh_token), 'client')
  })

  t.test('fewer scopes asked: their list is stored, and a refresh grants no more', async t => {
    const res = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'core.users:read core.accounts:read' }, auth)
    t.equal(res.statusCode, 200)
    t.same(JSON.parse((await stored(res.json().refresh_token))!), ['core.users:read', 'core.accounts:read'])
    const wider = await refresh(res.json().refresh_token, 'core.users.metadata:read')
    t.equal(wider.statusCode, 400, 'a scope of the client, outside the grant')
    t.same(wider.json(), { error: 'invalid_scope', error_description: WIDER })
    const same = await refresh(res.json().refresh_token)
    t.equal(same.statusCode, 200)
    t.equal(same.json().scope, 'core.users:read core.accounts:read')
  })

  t.test('a token stored with the whole list (before the word) still refreshes to that list', async t => {
    const issued = (await tokenRequest(app, { grant_type: 'client_credentials' }, auth)).json().refresh_token
    const family = (await app.storage.db.prepare<[string], { family: string }>('SELECT family FROM refresh_tokens WHERE hash = ?').get(hashRefreshToken(issued)))!.family
    const legacy = randomBytes(32).toString('base64url')
    const now = app.clock.now()
    await app.storage.refreshTokens.save({
      hash: createHash('sha256').update(legacy).digest('hex'),
      clientId: client.clientId,
      organizationId: client.organizationId,
      userId: null,
      scopes: SCOPES,
      expiresAt: now + 60_000,
      createdAt: now,
      usedAt: null,
      family
    })
    t.same(JSON.parse((await app.storage.db.prepare<[string], { scopes: string }>('SELECT scopes FROM refresh_tokens WHERE hash = ?').get(createHash('sha256').update(legacy).digest('hex')))!.scopes), SCOPES)
    const res = await refresh(legacy)
    t.equal(res.statusCode, 200)
    t.equal(res.json().scope, SCOPES.join(' '))
  })

  t.test('a token with the word from another generation of its client is refused, not granted today\'s scopes', async t => {
    const token = randomBytes(32).toString('base64url')
    const now = app.clock.now()
    await app.storage.refreshTokens.save({
      hash: hashRefreshToken(token),
      clientId: client.clientId,
      organizationId: client.organizationId,
      userId: null,
      scopes: null,
      expiresAt: now + 60_000,
      createdAt: now,
      usedAt: null,
      family: `an-earlier-generation.${randomBytes(8).toString('hex')}`
    })
    t.equal(await stored(token), 'client')
    const res = await refresh(token)
    t.equal(res.statusCode, 400)
    t.same(res.json(), { error: 'invalid_grant', error_description: 'Token has been revoked' })
  })

  t.test('a new secret (a new generation) ends the tokens of the old one, the word\'s included', async t => {
    const issued = (await tokenRequest(app, { grant_type: 'client_credentials' }, auth)).json().refresh_token
    t.equal(await stored(issued), 'client')
    const secret = `secret-${randomBytes(8).toString('hex')}`
    await app.clients.rotateSecret(client.clientId, secret)
    t.equal(await stored(issued), undefined, 'the rotation deleted it')
    const res = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: issued }, basic(client.clientId, secret))
    t.equal(res.statusCode, 400)
    t.same(res.json(), { error: 'invalid_grant', error_description: 'Token is invalid' })
  })
})
