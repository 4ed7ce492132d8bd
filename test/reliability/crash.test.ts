// Durability across a crash: a real server process on a database that outlives it (a file, or a
// PostgreSQL database) takes writes from parallel clients and is killed with SIGKILL at a random
// moment. After it, the database is intact, and every write answered with a 2xx is there when the
// server comes back.
import t, { type Test } from 'tap'
import Database from 'better-sqlite3'
import { backend, databaseEnv, fileDatabasePath, openTestStorage, waitFor } from '../helpers.js'
import { clientToken, startServer, type Server } from './support.js'

const CLIENT_ID = 'crash-client'
const CLIENT_SECRET = 'crash-client-secret'
const WRITERS = 4
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000)

/** A small seeded generator (mulberry32), so a failing run can be repeated with CRASH_SEED. */
function random (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const start = async (databasePath: string): Promise<Server> =>
  await startServer(databasePath, { ...await databaseEnv(databasePath), SANDBOX_CLIENT_ID: CLIENT_ID, SANDBOX_CLIENT_SECRET: CLIENT_SECRET })
const token = async (base: string): Promise<string> => await clientToken(base, CLIENT_ID, CLIENT_SECRET)

interface Acknowledged {
  /** Users whose creation was answered 201, by e-mail. */
  users: Map<string, string>
  /** The last metadata revision answered 2xx, per user id. */
  metadata: Map<string, number>
}

/**
 * One writer: creates users and writes numbered metadata revisions to each, one request at a
 * time, recording what was acknowledged, until the server goes away.
 */
async function writer (base: string, bearer: string, name: string, acked: Acknowledged): Promise<void> {
  const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', 'x-service-user-ip': '47.174.97.164' }
  try {
    for (let u = 0; ; u++) {
      const email = `${name}-${u}@example.com`
      const created = await fetch(`${base}/core/users`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ email, termsOfService: 'general-gb-fca', primaryCitizenship: 'GB', address: { country: 'GB' } })
      })
      if (created.status !== 201) throw new Error(`user: ${created.status}`)
      const id = ((await created.json()) as { user: { id: string } }).user.id
      acked.users.set(email, id)
      for (let revision = 1; revision <= 5; revision++) {
        const put = await fetch(`${base}/core/users/me/metadata`, {
          method: 'PUT',
          headers: { ...headers, 'x-on-behalf-of': `user ${id}` },
          body: JSON.stringify({ writer: name, revision })
        })
        if (put.status !== 200 && put.status !== 201) throw new Error(`metadata: ${put.status}`)
        await put.arrayBuffer()
        acked.metadata.set(id, revision)
      }
    }
  } catch (err) {
    // The server was killed: the request in flight has no answer, and that is the end of it.
    if (!(err instanceof TypeError)) throw err
  }
}

/** Checks the database of a dead server: intact, with every acknowledged user and its creation event. */
async function checkDatabase (t: Test, databasePath: string, acked: Acknowledged): Promise<void> {
  // The file's own integrity and its foreign keys, which SQLite checks only when asked. A
  // PostgreSQL server recovers its own files, and checks every foreign key at every statement.
  if (backend === 'sqlite') {
    await t.test('the SQLite file is intact', async t => {
      const db = new Database(databasePath)
      try {
        t.equal(db.pragma('integrity_check', { simple: true }), 'ok', 'PRAGMA integrity_check is ok')
        t.same(db.pragma('foreign_key_check'), [], 'no foreign key is broken')
      } finally {
        db.close()
      }
    })
  }
  const storage = await openTestStorage(t, databasePath)
  const { db } = storage
  try {
    const ids = new Set(await db.prepare<[], string>('SELECT id FROM users').pluck().all())
    const missing = [...acked.users.values()].filter(id => !ids.has(id))
    t.same(missing, [], `all ${acked.users.size} acknowledged users are stored`)
    const events = new Set((await db.prepare<[], string>("SELECT payload FROM events WHERE type = 'core.user.created'").pluck().all())
      .map(payload => (JSON.parse(payload) as { data: { user: { id: string } } }).data.user.id))
    t.same([...ids].filter(id => !events.has(id)), [], 'every stored user has its core.user.created event')
  } finally {
    await storage.close()
  }
}

/** Checks through the API of a restarted server that every acknowledged metadata write is there. */
async function checkServed (t: Test, base: string, bearer: string, acked: Acknowledged): Promise<void> {
  const wrong: string[] = []
  for (const [id, revision] of acked.metadata) {
    const res = await fetch(`${base}/core/users/me/metadata`, { headers: { authorization: `Bearer ${bearer}`, 'x-on-behalf-of': `user ${id}` } })
    const body = await res.json() as { metadata?: { revision?: number } }
    // The write in flight at the kill may have been stored without an answer: one later revision is fine.
    const stored = body.metadata?.revision
    if (res.status !== 200 || stored === undefined || stored < revision || stored > revision + 1) wrong.push(`${id}: acked ${revision}, got ${res.status} ${JSON.stringify(body)}`)
  }
  t.same(wrong, [], `all ${acked.metadata.size} acknowledged metadata writes are served after the restart`)
}

t.test(`writes acknowledged before a SIGKILL survive it (seed ${SEED})`, async t => {
  const databasePath = fileDatabasePath(t)
  const next = random(SEED)
  let server: Server | undefined
  t.teardown(() => { server?.child.kill('SIGKILL') })

  const acked: Acknowledged = { users: new Map(), metadata: new Map() }
  let bearer = ''
  for (const round of [1, 2]) {
    server = await start(databasePath)
    if (round === 1) bearer = await token(server.base)
    else await checkServed(t, server.base, bearer, acked)

    const writers = Array.from({ length: WRITERS }, (_, i) => writer(server!.base, bearer, `r${round}w${i}`, acked))
    // Some writes land first, then the kill comes at a moment the seed chooses.
    const before = acked.users.size
    await waitFor(() => acked.users.size >= before + WRITERS, { timeoutMs: 30_000, what: `round ${round}: a first write of each writer acknowledged` })
    // Not a wait for anything: the moment of the kill, chosen by the seed.
    await new Promise(resolve => setTimeout(resolve, Math.floor(next() * 400)))
    server.child.kill('SIGKILL')
    await Promise.all(writers)
    await server.exited
    t.ok(acked.users.size > before, `round ${round}: writes were acknowledged before the kill`)
    await checkDatabase(t, databasePath, acked)
  }

  server = await start(databasePath)
  await checkServed(t, server.base, bearer, acked)
  const health = await fetch(`${server.base}/_sandbox/health`)
  t.equal(health.status, 200, 'the restarted server is healthy')
  server.child.kill('SIGTERM')
  await server.exited
})
