// A fix to postgres.js's connection (node_modules/postgres/src/connection.js, 3.4.9, the newest
// release), applied as the queue's fix is (scripts/postgres-queue.js): when the server is bundled
// (scripts/bundle.js) and, from the sources, as the module loads (scripts/postgres-fixes.js). When
// PostgreSQL ends a connection during a transaction (a restart, a failover,
// `pg_terminate_backend`), the transaction's callback fails and postgres.js sends its ROLLBACK on
// that same connection, whose socket it has already dropped: the write runs in a later turn of the
// event loop and throws (`socket.write` of null), uncaught, and the whole sandbox process exits.
// Found by ending the sandbox's connections under a load of writes. Fixed here: a query on a
// connection without its socket fails as a query on a closed connection does (CONNECTION_CLOSED,
// which the stores answer as the database being unavailable: 503), and a queued write with no
// socket left is dropped. A query can only reach a connection once it is connected (the pool queues
// it before), so a missing socket means the connection is gone.
//
// A second fault of the same close: a statement shorter than 1 KiB waits for the next turn of the
// event loop (a timer) before it is written. When the socket closes before that turn, the close
// cancels the timer but keeps its handle and the waiting bytes. The connection's next socket then
// never writes anything: a write only starts a timer when it finds none, and the handle is still
// there. Its start-up message waits for ever, and so does every statement the pool gives that
// connection. Found by ending the sandbox's connections under a load of writes: one round in a few
// dozen left a connection so, and each of its requests then hung. Fixed here: the close forgets
// the timer and the bytes, which belonged to statements the close has already failed.
//
// A third: a socket that fails (ECONNRESET) fails the statements sent on it, then closes in a
// later turn. A statement given to the connection in between (a failed transaction's ROLLBACK, at
// once) is queued as sent, and a close after an error failed nothing more, so it stayed queued
// into the connection's next socket: the answer to that socket's next statement went to it, each
// later answer to the statement before its own, and the last statement waited for ever. When that
// statement was a transaction's `pg_advisory_xact_lock`, PostgreSQL had granted the lock to a
// transaction the client never went on with, and every write of every replica waited behind it.
// Found by ending the sandbox's connections in rounds under writes (one run in about ten hung for
// good). Fixed here: every close fails what is still queued or in flight on that socket, and the
// next socket starts with nothing of it (nor the rows of a statement the close cut short).

import { patchModule, postgresModule } from './postgres-patch.js'

const EXECUTE = `  function execute(q) {
    if (terminated)
      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))`
/** A test only the fixed connection makes: the build checks that the bundle holds it. */
export const POSTGRES_CONNECTION_FIXED = 'if (socket === null)'
const CLOSED = "return (queryError(q, Errors.connection('CONNECTION_CLOSED', options)), true)"
// `true`: the transaction's handler keeps the connection where the pool put it when it closed (its
// closed connections, opened again on demand); a falsy answer would move it to the full ones, out
// of the pool for good, and a pool of 2 hung after two such transactions.
const EXECUTE_FIXED = `${EXECUTE}
    ${POSTGRES_CONNECTION_FIXED}
      ${CLOSED}`
const NEXT_WRITE = `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`
const NEXT_WRITE_FIXED = `  function nextWrite(fn) {
    ${POSTGRES_CONNECTION_FIXED} {
      chunk = nextWriteTimer = null
      return false
    }
    const x = socket.write(chunk, fn)`

const CLOSED_TIMER = `    incomings = null
    clearImmediate(nextWriteTimer)`
const CLOSED_TIMER_FIXED = `${CLOSED_TIMER}
    chunk = nextWriteTimer = null`

const CLOSED_QUERIES = `    if (initial)
      return reconnect()

    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))`
const CLOSED_QUERIES_FIXED = `    if (initial)
      return (failLost(), reconnect())

    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))
    failLost()

    function failLost() {
      const lost = Errors.connection('CONNECTION_CLOSED', options, socket)
      query && queryError(query, lost)
      while (sent.length)
        queryError(sent.shift(), lost)
      query = results = errorResponse = null
      result = new Result()
      rows = 0
    }
`

/** The connection module's source with the fix; throws when the source is not the one it fits. */
/** Each original text of the module and its fixed text (a test checks each original is required). */
export const POSTGRES_CONNECTION_REPLACEMENTS = [[EXECUTE, EXECUTE_FIXED], [NEXT_WRITE, NEXT_WRITE_FIXED], [CLOSED_TIMER, CLOSED_TIMER_FIXED], [CLOSED_QUERIES, CLOSED_QUERIES_FIXED]]

export const patchPostgresConnection = (source) => patchModule(source, 'connection.js', 'scripts/postgres-connection.js', POSTGRES_CONNECTION_REPLACEMENTS)

/** Matches the module the fix applies to, as esbuild names it (both of the package's builds). */
export const POSTGRES_CONNECTION = postgresModule('connection.js')
