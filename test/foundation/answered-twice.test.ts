// The suite's own net for a request answered twice: `build` (test/helpers.ts) reads the warnings an
// app logs and fails its test when Fastify or Node says a reply was sent again. The client sees one
// answer either way, so no status or body shows it.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../helpers.js'

/** A stand-in for a test: keeps the teardowns `build` registers, to run them here. */
function teardowns (): { teardown: (fn: () => unknown) => void, run: () => Promise<void> } {
  const fns: Array<() => unknown> = []
  return {
    teardown: fn => { fns.push(fn) },
    run: async () => { for (const fn of fns.reverse()) await fn() }
  }
}

const probes = async (p: FastifyInstance): Promise<void> => {
  // Sends, then returns something else: Fastify sends the second and logs FST_ERR_REP_ALREADY_SENT.
  p.get('/probe/twice', async (_request, reply) => {
    reply.send({ first: true }).then(() => {}, () => {})
    return { second: true }
  })
  // Sends, and returns the reply, as Fastify's documentation asks.
  p.get('/probe/once', async (_request, reply) => { return reply.send({ first: true }) })
}

t.test('a test whose app answers a request twice fails at its end, and says which request', async t => {
  const test = teardowns()
  const app = await build(test, {}, { plugins: [probes] })
  const answer = await app.inject({ method: 'GET', url: '/probe/twice' })
  t.same(answer.json(), { first: true }, 'the client saw the first answer only')
  await t.rejects(test.run(), /a request was answered twice:[^]*\/probe\/twice/)
})

t.test('a test whose app answers each request once passes', async t => {
  const test = teardowns()
  const app = await build(test, {}, { plugins: [probes] })
  t.equal((await app.inject({ method: 'GET', url: '/probe/once' })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/core/nothing' })).statusCode, 404)
  await t.resolves(test.run())
})
