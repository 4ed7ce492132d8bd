// Quotes' retention: a quote never used and expired longer than QUOTE_RETENTION_SECONDS ago, on its
// organization's clock, is deleted; a used one stays, however old (its transaction and the daily
// limits read it); a more recent one stays, expired. (The API answers an expired quote and an
// unknown one alike: 404 `quote`.)
import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { build, DEMO_ORG, fileDatabasePath, makeUser } from '../helpers.js'
import { Clock } from '../../src/clock.js'
import { quotesOf } from '../../src/quotes/service.js'
import { quoteRetention } from '../../src/quotes/retention.js'
import type { Quote } from '../../schemas/quotes.js'

const HOUR = 3600

/** A quote of a new user that expires `ttlMs` from now; its id. */
async function quote (app: FastifyInstance, ttlMs: number): Promise<string> {
  const user = await makeUser(app)
  const id = randomUUID()
  const expiresAt = app.clock.now() + ttlMs
  const node = { type: 'account' as const, id: randomUUID(), ownerId: user.id }
  const body: Quote = {
    id,
    origin: { asset: 'GBP', amount: '10.00', rate: '1', node },
    destination: { asset: 'GBP', amount: '10.00', rate: '1', node: { ...node, id: randomUUID() } },
    denomination: { asset: 'GBP', amount: '10.00', rate: '1', target: 'origin' },
    fees: [],
    requirements: [],
    expiresAt: new Date(expiresAt).toISOString()
  }
  await quotesOf(app).create({ id, organizationId: DEMO_ORG, userId: user.id, quote: body, limitGroup: 'fiat', usdValue: '12.50', expiresAt, usedAt: null, createdAt: app.clock.iso() })
  return id
}

const stored = async (app: FastifyInstance, id: string): Promise<boolean> => await quotesOf(app).get(DEMO_ORG, id) !== undefined

t.test('an unused quote expired longer than the retention goes; a used one and a more recent one stay', async t => {
  const app = await build(t, { quoteRetentionSeconds: HOUR })
  const old = await quote(app, 30_000)
  const used = await quote(app, 30_000)
  t.ok((await quotesOf(app).consume(DEMO_ORG, used, app.clock.now())).ok)
  const recent = await quote(app, 90 * 60_000)
  // At t0 + 2 h: the old one expired at t0 + 30 s (more than an hour ago), the recent one at t0 + 1 h 30 min.
  app.clock.advance(2 * HOUR)
  t.same(await quoteRetention(app).prune(), { quotes: 1 })
  t.notOk(await stored(app, old), 'the old unused quote is deleted')
  t.ok(await stored(app, used), 'the used one stays')
  t.ok(await stored(app, recent), 'the recent one stays')
  t.same(await quotesOf(app).consume(DEMO_ORG, old, app.clock.now()), { ok: false, reason: 'not-found' }, 'the deleted quote is not found')
  t.same(await quotesOf(app).consume(DEMO_ORG, recent, app.clock.now()), { ok: false, reason: 'expired' }, 'the kept one answers as expired')
  t.same(await quoteRetention(app).prune(), { quotes: 0 }, 'nothing more to prune')
})

t.test('with retention 0 nothing is deleted', async t => {
  const app = await build(t, { quoteRetentionSeconds: 0 })
  const id = await quote(app, 30_000)
  app.clock.advance(100 * HOUR)
  t.same(await quoteRetention(app).prune(), { quotes: 0 })
  t.ok(await stored(app, id))
})

t.test('the sandbox prunes at start', async t => {
  const path = fileDatabasePath(t)
  const clock = new Clock()
  clock.freeze(true)
  const first = await build(t, { databasePath: path, quoteRetentionSeconds: HOUR }, { clock })
  const id = await quote(first, 30_000)
  await first.close()
  clock.advance(2 * HOUR)
  const second = await build(t, { databasePath: path, quoteRetentionSeconds: HOUR }, { clock })
  await second.ready()
  for (let i = 0; i < 200 && await stored(second, id); i++) await new Promise(resolve => setTimeout(resolve, 10))
  t.notOk(await stored(second, id), 'pruned at start')
})
