// The bare baseline: Fastify returning a metadata-shaped body with no auth, no storage, no checks,
// no logging. Started by bench/run.js as a child process, on the port given in argv.
import Fastify from 'fastify'

const body = { metadata: { externalId: 'ext-000123', tier: 'gold', tags: ['a', 'b'], nested: { region: 'eu', score: 42 } } }
const app = Fastify({ logger: false })
app.get('/core/users/me/metadata', async (_request, reply) => {
  reply.header('etag', '"0000000000000000000000000000000000000000000000000000000000000000"')
  return body
})
await app.listen({ port: Number(process.argv[2]), host: '127.0.0.1' })
// A clean exit, so a --cpu-prof profile gets written.
process.on('SIGTERM', () => { app.close().then(() => process.exit(0)) })
process.send?.('ready')
