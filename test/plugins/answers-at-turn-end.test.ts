// The answers made during one turn of the event loop are written together at its end (the
// requests plugin): what a client observes is the same answer, only written after the turn's other
// work.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, REQUEST_ID } from '../helpers.js'

/** An app with probe routes that note when they answered and when their answer reached the socket. */
async function withProbes (t: { teardown: (fn: () => unknown) => void }): Promise<{ app: FastifyInstance, order: string[] }> {
  const order: string[] = []
  const app = await build(t, {}, {
    plugins: [async probe => {
      probe.addHook('onRequest', (request, reply, done) => {
        const end = reply.raw.end.bind(reply.raw) as (...args: unknown[]) => unknown
        reply.raw.end = ((...args: unknown[]) => {
          order.push(`written ${String((request.params as { n?: string }).n)}`)
          return end(...args)
        }) as typeof reply.raw.end
        done()
      })
      probe.get<{ Params: { n: string } }>('/probe/turn/:n', async (request, reply) => {
        const n = request.params.n
        order.push(`handled ${n}`)
        setImmediate(() => { order.push(`after turn ${n}`) })
        return await reply.header('x-probe', n).send({ n })
      })
    }]
  })
  return { app, order }
}

t.test('an answer is written at the end of the turn that made it, not before the turn\'s later work', async t => {
  const { app, order } = await withProbes(t)
  const res = await app.inject({ method: 'GET', url: '/probe/turn/1' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { n: '1' })
  t.equal(res.headers['x-probe'], '1')
  t.match(res.headers[REQUEST_ID], /^[0-9a-f-]{36}$/, 'the request id header is still there')
  t.same(order, ['handled 1', 'after turn 1', 'written 1'], 'work the handler scheduled for the end of its turn ran before the answer went out')
})

t.test('answers of requests handled in the same turn go out together, each its own, in the order made', async t => {
  const { app, order } = await withProbes(t)
  const count = 30
  const answers = await Promise.all(Array.from({ length: count }, async (_, i) => await app.inject({ method: 'GET', url: `/probe/turn/${i}` })))
  answers.forEach((res, i) => {
    t.equal(res.statusCode, 200)
    t.same(res.json(), { n: String(i) }, `request ${i} got its own body`)
    t.equal(res.headers['x-probe'], String(i), `request ${i} got its own header`)
  })
  t.equal(new Set(answers.map(res => res.headers[REQUEST_ID])).size, count, 'every answer names its own request')
  const handled = order.filter(step => step.startsWith('handled'))
  const written = order.filter(step => step.startsWith('written'))
  t.equal(written.length, count, 'every answer written once')
  t.same(written.map(step => step.slice('written '.length)), handled.map(step => step.slice('handled '.length)), 'written in the order handled')
  // The writes of one turn follow one another: no request is handled between two of them.
  const firstWrite = order.indexOf(written[0])
  const lastWrite = order.indexOf(written[written.length - 1])
  const between = order.slice(firstWrite, lastWrite + 1).filter(step => !step.startsWith('written') && !step.startsWith('after turn'))
  t.same(between, [], 'no request handled in the middle of the turn\'s writes')
})

t.test('errors and answers made before the handler (404, 401) are held and written the same way', async t => {
  const { app } = await withProbes(t)
  const [missing, unauthorised] = await Promise.all([
    app.inject({ method: 'GET', url: '/no/such/route' }),
    app.inject({ method: 'GET', url: '/core/users/me/metadata' })
  ])
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().code, 'route_not_found')
  t.equal(unauthorised.statusCode, 401)
  t.ok(missing.headers[REQUEST_ID] !== undefined && unauthorised.headers[REQUEST_ID] !== undefined)
})
