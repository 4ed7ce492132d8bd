// The floor of the writes: the least that Fastify and better-sqlite3 can do for the bench's token
// and PUT requests, durable as the sandbox is (WAL, synchronous=FULL, one COMMIT for the writes of
// a turn of the event loop). No logging, no request log, no validation, no guard, no events: each
// route does only what its answer cannot do without. Started by bench/run.js as a child process,
// on the port and database file given in argv, and measured with the same requests as the
// sandbox's scenario, right after it: the sandbox cannot be cheaper than this on the same machine.
//
// - POST /core/oauth2/token: reads HTTP Basic and compares the secret, signs an HS256 JWT (the
//   sandbox's claims), makes a refresh token and stores it under a time-ordered key in a table of
//   the sandbox's schema (its two indexes included), and answers the token.
// - PUT /core/users/me/metadata: takes the user from X-On-Behalf-Of, the body as JSON, its SHA-256
//   as the ETag, upserts it, and answers the body with the ETag.
// Its group commit, its JWT signing and its refresh token's key are written here again on purpose,
// in their fewest lines, rather than taken from src/ (storage/db.ts, auth/tokens.ts): the floor
// measures the stack, so none of the sandbox's own code may be in it.
import Fastify from 'fastify'
import formbody from '@fastify/formbody'
import Database from 'better-sqlite3'
import { createHmac, hash, randomFillSync, randomUUID } from 'node:crypto'

const [port, path] = [Number(process.argv[2]), process.argv[3]]
const db = new Database(path)
db.pragma('locking_mode = EXCLUSIVE')
db.pragma('journal_mode = WAL')
db.pragma('synchronous = FULL')
db.exec(`
CREATE TABLE IF NOT EXISTS refresh_tokens (hash TEXT PRIMARY KEY, client_id TEXT NOT NULL, organization_id TEXT NOT NULL,
  user_id TEXT, scopes TEXT NOT NULL, expires_at INTEGER NOT NULL, created_at INTEGER NOT NULL, used_at INTEGER, family TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS refresh_tokens_client ON refresh_tokens(client_id);
CREATE INDEX IF NOT EXISTS refresh_tokens_family ON refresh_tokens(family);
CREATE TABLE IF NOT EXISTS metadata (user_id TEXT PRIMARY KEY, body TEXT NOT NULL, etag TEXT NOT NULL);`)
const insertToken = db.prepare('INSERT INTO refresh_tokens VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
const upsertMetadata = db.prepare('INSERT INTO metadata VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET body = excluded.body, etag = excluded.etag')

// One transaction for the writes asked during a turn, committed at its end.
let queue = []
function write (work) {
  return new Promise((resolve, reject) => {
    if (queue.push({ work, resolve, reject }) === 1) setImmediate(commit)
  })
}
function commit () {
  const jobs = queue
  queue = []
  db.exec('BEGIN IMMEDIATE')
  const done = jobs.map(job => { try { return { ok: true, value: job.work() } } catch (error) { return { ok: false, error } } })
  db.exec('COMMIT')
  jobs.forEach((job, i) => done[i].ok ? job.resolve(done[i].value) : job.reject(done[i].error))
}

const ID = 'sandbox-demo-client'
const SECRET = 'sandbox-demo-secret'
const KEY = randomFillSync(Buffer.alloc(32))
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')
const TTL = 3600

const app = Fastify({ logger: false })
await app.register(formbody)
app.post('/core/oauth2/token', async (request, reply) => {
  const basic = Buffer.from((request.headers.authorization ?? '').slice(6), 'base64').toString()
  const colon = basic.indexOf(':')
  if (basic.slice(0, colon) !== ID || basic.slice(colon + 1) !== SECRET || request.body?.grant_type !== 'client_credentials') {
    reply.code(401)
    return { error: 'invalid_client' }
  }
  const scope = request.body.scope ?? 'core.users.metadata:read'
  const now = Math.floor(Date.now() / 1000)
  const claims = { iss: 'floor', sub: ID, cid: ID, org: 'floor', sty: 'client', scope, gen: 'g', jti: randomUUID(), iat: now, exp: now + TTL }
  const input = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`
  const accessToken = `${input}.${createHmac('sha256', KEY).update(input).digest('base64url')}`
  const bytes = randomFillSync(Buffer.alloc(32))
  bytes.writeUIntBE(Date.now(), 0, 6)
  const refreshToken = bytes.toString('base64url')
  const key = bytes.subarray(0, 6).toString('hex') + hash('sha256', refreshToken, 'hex').slice(0, 52)
  const family = `g.${Date.now().toString(16).padStart(12, '0')}${randomUUID()}`
  await write(() => insertToken.run(key, ID, 'floor', null, JSON.stringify(scope.split(' ')), Date.now() + 30 * 86400_000, Date.now(), null, family))
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
  return { access_token: accessToken, token_type: 'Bearer', expires_in: TTL, scope, refresh_token: refreshToken }
})
app.put('/core/users/me/metadata', async (request, reply) => {
  const user = String(request.headers['x-on-behalf-of'] ?? '').slice(5)
  const body = JSON.stringify(request.body)
  const etag = `"${hash('sha256', body, 'hex')}"`
  await write(() => upsertMetadata.run(user, body, etag))
  reply.header('etag', etag)
  return { metadata: request.body }
})

await app.listen({ port, host: '127.0.0.1' })
process.on('SIGTERM', () => { app.close().then(() => { db.close(); process.exit(0) }) })
process.send?.('ready')
