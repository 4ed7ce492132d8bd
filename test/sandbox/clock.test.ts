import t from 'tap'
import { accessToken, bearer, build } from '../helpers.js'

// A route that needs a token, to see what the guard says about it.
const probe = async (app: Parameters<typeof accessToken>[0], token: string) =>
  app.inject({ method: 'GET', url: '/probe/protected', headers: bearer(token) })

const withProbe = {
  plugins: [async (p: import('fastify').FastifyInstance) => {
    p.get('/probe/protected', { config: { auth: { scopes: [], subjects: ['client', 'user'] } } }, async () => ({ ok: true }))
  }]
}

t.test('GET /_sandbox/clock shows sandbox time and whether it is frozen', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/_sandbox/clock' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { now: app.clock.iso(), frozen: true, organizationId: null })
})

t.test('advancing the clock past expires_in expires a token: 401 token_expired', async t => {
  const app = await build(t, {}, withProbe)
  const token = await accessToken(app)
  t.equal((await probe(app, token)).statusCode, 200)

  const before = Date.parse(app.clock.iso())
  const moved = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: 601 } })
  t.equal(moved.statusCode, 200)
  t.equal(Date.parse(moved.json().now) - before, 601_000)
  t.equal(moved.json().frozen, true, 'a frozen clock stays frozen when advanced')

  const refused = await probe(app, token)
  t.equal(refused.statusCode, 401)
  t.equal(refused.json().code, 'token_expired')
  t.match(refused.headers['www-authenticate'], /invalid_token/)
})

t.test('set, freeze, unfreeze and back to real time', async t => {
  const app = await build(t)
  const set = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { now: '2030-01-02T03:04:05.000Z' } })
  t.same(set.json(), { now: '2030-01-02T03:04:05.000Z', frozen: true, organizationId: null })

  const running = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: false } })
  t.equal(running.json().frozen, false)
  t.ok(Math.abs(Date.parse(running.json().now) - Date.parse('2030-01-02T03:04:05.000Z')) < 60_000, 'runs on from where it stood')

  const frozen = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { frozen: true } })
  t.equal(frozen.json().frozen, true)

  const real = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { real: true } })
  t.equal(real.json().frozen, false)
  t.ok(Math.abs(Date.parse(real.json().now) - Date.now()) < 60_000, 'the machine\'s time again')
})

t.test('a clock change must be exactly one known property', async t => {
  const app = await build(t)
  const cases: Array<[unknown, string, string]> = [
    [{}, '', 'minProperties'],
    [{ advanceSeconds: 1, frozen: true }, '', 'maxProperties'],
    [{ advanceSeconds: 'soon' }, 'advanceSeconds', 'type'],
    [{ now: 'yesterday' }, 'now', 'format'],
    [{ real: false }, 'real', 'const'],
    [{ speed: 2 }, 'speed', 'additionalProperties']
  ]
  for (const [payload, property, rule] of cases) {
    const res = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: payload as object })
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.equal(res.json().code, 'request_invalid')
    t.ok(res.json().details.violations.some((v: { property: string, rule: string }) => v.property === property && v.rule === rule), `${JSON.stringify(payload)}: ${property} ${rule}`)
  }
  t.equal(app.clock.frozen, true, 'nothing changed')
})
