// Concurrent writers on a listening server, through real HTTP: with the same If-Match exactly one
// wins, and unconditional patches lose no update. The server's metadata reads are held until
// every writer has read, so all of them hold the same revision when they write: without an
// atomic compare-and-swap, they would all succeed.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { basic, build, DEMO_ID, DEMO_SECRET } from '../helpers.js'

const WRITERS = 20

/** Holds the next `n` metadata reads until all `n` have happened. */
function holdReads (app: FastifyInstance, n: number): void {
  const store = app.storage.metadata
  const get = store.get.bind(store)
  const waiting: Array<() => void> = []
  store.get = async ref => {
    const value = await get(ref)
    if (waiting.length < n) {
      await new Promise<void>(resolve => {
        waiting.push(resolve)
        if (waiting.length === n) for (const release of waiting) release()
      })
    }
    return value
  }
}

async function serve (t: Parameters<typeof build>[0]) {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const tokenRes = await fetch(`${base}/core/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic(DEMO_ID, DEMO_SECRET), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  const token = (await tokenRes.json()).access_token as string
  const userRes = await fetch(`${base}/core/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-service-user-ip': '47.174.97.164' },
    body: JSON.stringify({ email: `race-${Date.now()}@example.com`, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } })
  })
  if (userRes.status !== 201) throw new Error(`user creation failed: ${userRes.status}`)
  const userId = (await userRes.json()).user.id as string
  const url = `${base}/core/users/me/metadata`
  const headers = { authorization: `Bearer ${token}`, 'x-on-behalf-of': `user ${userId}` }
  return { app, url, headers }
}

t.test(`${WRITERS} concurrent PUTs with the same If-Match: exactly one 2xx, ${WRITERS - 1} × 412, the winner's value stored`, async t => {
  const { app, url, headers } = await serve(t)
  const initial = await fetch(url, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ writer: 'initial' }) })
  t.equal(initial.status, 201)
  const tag = initial.headers.get('etag')!

  holdReads(app, WRITERS)
  const responses = await Promise.all(Array.from({ length: WRITERS }, async (_, i) => {
    const res = await fetch(url, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json', 'if-match': tag }, body: JSON.stringify({ writer: i }) })
    return { i, status: res.status, etag: res.headers.get('etag'), body: await res.json() }
  }))

  const winners = responses.filter(r => r.status >= 200 && r.status < 300)
  const refused = responses.filter(r => r.status === 412)
  t.equal(winners.length, 1, 'exactly one writer wins')
  t.equal(refused.length, WRITERS - 1, 'every other one is 412')
  for (const r of refused) t.equal(r.body.code, 'precondition_failed')
  const winner = winners[0]
  t.equal(winner.status, 200)
  t.same(winner.body, { metadata: { writer: winner.i } })

  const after = await fetch(url, { headers })
  t.equal(after.status, 200)
  t.same(await after.json(), { metadata: { writer: winner.i } }, 'the stored value is the winner\'s')
  t.equal(after.headers.get('etag'), winner.etag)
})

t.test(`${WRITERS} concurrent PATCHes with the same If-Match: one wins; without If-Match, none is lost`, async t => {
  const { app, url, headers } = await serve(t)
  const initial = await fetch(url, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ list: [] }) })
  const tag = initial.headers.get('etag')!
  const patch = (i: number, extra: Record<string, string>) => fetch(url, {
    method: 'PATCH',
    headers: { ...headers, 'content-type': 'application/json-patch+json', ...extra },
    body: JSON.stringify([{ op: 'add', path: '/list/-', value: i }])
  })

  holdReads(app, WRITERS)
  const conditional = await Promise.all(Array.from({ length: WRITERS }, (_, i) => patch(i, { 'if-match': tag })))
  t.same(conditional.map(r => r.status).sort(), [200, ...Array(WRITERS - 1).fill(412)])
  const afterConditional = await (await fetch(url, { headers })).json()
  t.equal(afterConditional.metadata.list.length, 1, 'one append landed')

  holdReads(app, WRITERS)
  const unconditional = await Promise.all(Array.from({ length: WRITERS }, (_, i) => patch(100 + i, {})))
  t.same(unconditional.map(r => r.status), Array(WRITERS).fill(200), 'every unconditional patch succeeds')
  const final = await (await fetch(url, { headers })).json()
  t.equal(final.metadata.list.length, 1 + WRITERS, 'no update is lost: each was applied to the latest revision')
  t.same([...final.metadata.list.slice(1)].sort((a: number, b: number) => a - b), Array.from({ length: WRITERS }, (_, i) => 100 + i))
})

// More writers of one entity than the service would ever retry for: a writer that loses a race
// decides again inside the write, so none is refused for the others' sake (each lost race was
// another try before, and past a hundred of them a 429).
const CROWD = 150

t.test(`${CROWD} concurrent PUTs and DELETEs without preconditions: each one answered for itself, none refused`, async t => {
  const { app, url, headers } = await serve(t)
  const put = (i: number) => fetch(url, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ writer: i }) })

  holdReads(app, CROWD)
  const responses = await Promise.all(Array.from({ length: CROWD }, async (_, i) => {
    const res = await put(i)
    return { i, status: res.status, etag: res.headers.get('etag'), body: await res.json() }
  }))
  t.same(responses.map(r => r.status).sort(), [201, ...Array(CROWD - 1).fill(200)].sort(), 'one creates the metadata (201), every other one replaces it (200)')
  for (const r of responses) t.same(r.body, { metadata: { writer: r.i } })
  const after = await fetch(url, { headers })
  const stored = await after.json()
  const last = responses.find(r => r.i === stored.metadata.writer)
  t.ok(last !== undefined, 'what is stored is one writer\'s value')
  t.equal(after.headers.get('etag'), last?.etag, 'with the ETag that writer was answered')

  // Deletions racing replacements: every deletion finds metadata (the replacements keep putting it
  // back) or none (404), and nothing else.
  holdReads(app, CROWD)
  const mixed = await Promise.all(Array.from({ length: CROWD }, async (_, i) => i % 2 === 0
    ? (await put(1000 + i)).status
    : (await fetch(url, { method: 'DELETE', headers })).status))
  t.same(mixed.filter((_, i) => i % 2 === 0).filter(s => s !== 200 && s !== 201), [], 'every replacement succeeds')
  t.same(mixed.filter((_, i) => i % 2 === 1).filter(s => s !== 204 && s !== 404), [], 'every deletion is 204 or 404')
  t.ok(mixed.filter((_, i) => i % 2 === 1).includes(204), 'the first deletion removed the stored value')
})

t.test(`${CROWD} concurrent unconditional PATCHes: all 200, none lost`, async t => {
  const { app, url, headers } = await serve(t)
  await fetch(url, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ list: [] }) })
  holdReads(app, CROWD)
  const statuses = await Promise.all(Array.from({ length: CROWD }, async (_, i) => (await fetch(url, {
    method: 'PATCH',
    headers: { ...headers, 'content-type': 'application/json-patch+json' },
    body: JSON.stringify([{ op: 'add', path: '/list/-', value: i }])
  })).status))
  t.same(statuses, Array(CROWD).fill(200))
  const final = await (await fetch(url, { headers })).json()
  t.same([...final.metadata.list].sort((a: number, b: number) => a - b), Array.from({ length: CROWD }, (_, i) => i), 'each append applied once, to the latest revision')
})
