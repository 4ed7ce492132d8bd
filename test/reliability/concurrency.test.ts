// Parallel clients on a listening server racing for the same thing: one refresh token, one e-mail
// address. Exactly one wins; the others get the answer a client can act on, and the store holds
// one of each. (Conditional metadata writes race in test/e2e/metadata-concurrency.test.ts.)
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { basic, build, DEMO_ID, DEMO_ORG, DEMO_SECRET } from '../helpers.js'
import { listen } from './support.js'

/**
 * Holds the next `n` calls of an async storage read until all `n` have been made, so every racer
 * has looked before any of them writes: without an atomic write, all of them would win.
 */
function holdCalls<T extends object, K extends keyof T> (store: T, method: K, n: number): void {
  const original = (store[method] as (...args: unknown[]) => Promise<unknown>).bind(store)
  const waiting: Array<() => void> = []
  ;(store as Record<K, unknown>)[method] = async (...args: unknown[]) => {
    const value = await original(...args)
    if (waiting.length < n) {
      await new Promise<void>(resolve => {
        waiting.push(resolve)
        if (waiting.length === n) for (const release of waiting) release()
      })
    }
    return value
  }
}

async function serve (t: Parameters<typeof build>[0]): Promise<{ app: FastifyInstance, base: string }> {
  const app = await build(t)
  return { app, base: await listen(app) }
}

const form = (body: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { authorization: basic(DEMO_ID, DEMO_SECRET), 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body).toString()
})

async function tokenPair (base: string): Promise<{ access_token: string, refresh_token: string }> {
  const res = await fetch(`${base}/core/oauth2/token`, form({ grant_type: 'client_credentials' }))
  if (res.status !== 200) throw new Error(`token: ${res.status}`)
  return await res.json() as { access_token: string, refresh_token: string }
}

for (const racers of [2, 10]) {
  t.test(`${racers} parallel refreshes of one refresh token: one new pair, the others invalid_grant`, async t => {
    const { app, base } = await serve(t)
    const { refresh_token: refreshToken } = await tokenPair(base)

    holdCalls(app.storage.refreshTokens, 'get', racers)
    const answers = await Promise.all(Array.from({ length: racers }, async () => {
      const res = await fetch(`${base}/core/oauth2/token`, form({ grant_type: 'refresh_token', refresh_token: refreshToken }))
      return { status: res.status, body: await res.json() as Record<string, string> }
    }))

    const winners = answers.filter(a => a.status === 200)
    t.equal(winners.length, 1, 'exactly one refresh succeeds')
    const losers = answers.filter(a => a.status !== 200)
    t.equal(losers.length, racers - 1)
    for (const loser of losers) {
      t.equal(loser.status, 400)
      t.equal(loser.body.error, 'invalid_grant', 'a loser is told its grant is no good')
      t.notOk('access_token' in loser.body, 'a loser gets no token')
    }
    const winner = winners[0].body
    t.type(winner.access_token, 'string')
    t.type(winner.refresh_token, 'string')
    t.not(winner.refresh_token, refreshToken, 'the winner gets a new refresh token')
    const use = await fetch(`${base}/core/webhooks/management-link`, { method: 'POST', headers: { authorization: `Bearer ${winner.access_token}` } })
    t.equal(use.status, 201, 'the winner\'s access token is accepted')

    const issued = await app.storage.db.prepare('SELECT count(*) AS n FROM refresh_tokens WHERE client_id = ?').pluck().get(DEMO_ID)
    t.equal(issued, 2, 'the store holds the first refresh token and exactly one successor')
    const again = await fetch(`${base}/core/oauth2/token`, form({ grant_type: 'refresh_token', refresh_token: refreshToken }))
    t.equal(again.status, 400, 'the raced token stays used')
    t.equal((await again.json()).error, 'invalid_grant')
  })
}

interface Answer { status: number, body: Record<string, unknown> }

async function createUsers (base: string, token: string, emails: string[]): Promise<Answer[]> {
  return Promise.all(emails.map(async email => {
    const res = await fetch(`${base}/core/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-service-user-ip': '47.174.97.164' },
      body: JSON.stringify({ email, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } })
    })
    return { status: res.status, body: await res.json() as Record<string, unknown> }
  }))
}

async function identify (base: string, token: string, email: string): Promise<Answer> {
  const res = await fetch(`${base}/partner/kyc-sharing/identify-user`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, country: 'GB' })
  })
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}

/** Users and core.user.created events stored for an e-mail address (any case). */
async function stored (app: FastifyInstance, email: string): Promise<{ users: number, events: number }> {
  const { db } = app.storage
  const users = await db.prepare<[string, string], number>('SELECT count(*) AS n FROM users WHERE organization_id = ? AND email_key = ?').pluck().get(DEMO_ORG, email.toLowerCase())
  const events = await db.prepare<[string], string>("SELECT payload FROM events WHERE organization_id = ? AND type = 'core.user.created'").pluck().all(DEMO_ORG)
  const mine = events.filter(e => (JSON.parse(e) as { data: { user: { email: string } } }).data.user.email.toLowerCase() === email.toLowerCase())
  return { users: users!, events: mine.length }
}

t.test('10 parallel POST /core/users with one e-mail (in any case): one 201, nine 409, one user, one event', async t => {
  const { app, base } = await serve(t)
  const { access_token: token } = await tokenPair(base)
  const email = 'race@example.com'
  const emails = Array.from({ length: 10 }, (_, i) => i % 2 === 0 ? email : email.toUpperCase())

  const answers = await createUsers(base, token, emails)
  const created = answers.filter(a => a.status === 201)
  t.equal(created.length, 1, 'exactly one creation succeeds')
  const refused = answers.filter(a => a.status === 409)
  t.equal(refused.length, 9, 'every other one is 409')
  for (const r of refused) t.equal(r.body.code, 'email_already_exists')
  t.same(await stored(app, email), { users: 1, events: 1 }, 'one user and one core.user.created are stored')
})

t.test('10 parallel identify-user calls for an unknown e-mail: one 201, nine 200 with the same user', async t => {
  const { app, base } = await serve(t)
  const { access_token: token } = await tokenPair(base)
  const email = 'kyc-race@example.com'

  // Every call looks the address up before any creates it, so all of them take the creating path.
  holdCalls(app.storage.users, 'findByEmail', 10)
  const answers = await Promise.all(Array.from({ length: 10 }, () => identify(base, token, email)))
  t.same(answers.map(a => a.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 201], 'one creation, nine finds')
  const ids = new Set(answers.map(a => (a.body.user as { id: string }).id))
  t.equal(ids.size, 1, 'every answer names the same user')
  t.same(await stored(app, email), { users: 1, events: 1 }, 'one user and one core.user.created are stored')
})

t.test('POST /core/users and identify-user racing for one e-mail create one user', async t => {
  const { app, base } = await serve(t)
  const { access_token: token } = await tokenPair(base)
  const email = 'mixed-race@example.com'

  holdCalls(app.storage.users, 'findByEmail', 5)
  const [posts, identified] = await Promise.all([
    createUsers(base, token, Array(5).fill(email)),
    Promise.all(Array.from({ length: 5 }, () => identify(base, token, email)))
  ])
  const created = [...posts, ...identified].filter(a => a.status === 201)
  t.equal(created.length, 1, 'exactly one request creates the user')
  for (const p of posts.filter(a => a.status !== 201)) t.same([p.status, p.body.code], [409, 'email_already_exists'])
  for (const i of identified.filter(a => a.status !== 201)) t.equal(i.status, 200, 'identify finds the user the winner created')
  const ids = new Set([...posts, ...identified].filter(a => a.status < 300).map(a => (a.body.user as { id: string }).id))
  t.equal(ids.size, 1, 'every success names the same user')
  t.same(await stored(app, email), { users: 1, events: 1 })
})
