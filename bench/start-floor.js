// The floor of a start: the least that Fastify and better-sqlite3 can do to answer a first health
// check, started as the sandbox is. bench/run.js bundles it into one CommonJS file, as the build
// bundles the server (scripts/bundle.js), and starts it with `npm start` from a folder of its own
// whose start script runs node with the sandbox's start flags, right after each start of the
// sandbox, on a database file of its own: the start-up figures' counterpart of bench/floor.js. It
// opens the file as the sandbox does (exclusive, WAL, synchronous=FULL), creates one table, registers
// one route, listens on PORT and answers GET /_sandbox/health with a read of that table. No schema
// of the API, no migrations, no seed, no logger: what npm, Node, Fastify and SQLite cost on this
// machine at this moment, which no start of the sandbox can be quicker than.
import Fastify from 'fastify'
import Database from 'better-sqlite3'

const db = new Database(process.env.DATABASE_PATH)
db.pragma('locking_mode = EXCLUSIVE')
db.pragma('journal_mode = WAL')
db.pragma('synchronous = FULL')
db.exec('CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL)')
const read = db.prepare('SELECT count(*) AS n FROM state')

const app = Fastify({ logger: false })
app.get('/_sandbox/health', async () => ({ status: 'ok', rows: read.get().n }))
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).catch(err => {
  process.stderr.write(`${err.message}\n`)
  process.exit(1)
})
process.on('SIGTERM', () => { app.close().then(() => { db.close(); process.exit(0) }) })
