// A fix to postgres.js's transactions (node_modules/postgres/src/index.js, 3.4.9, the newest
// release), applied as the queue's and the connection's fixes are (scripts/postgres-queue.js,
// scripts/postgres-connection.js): when the server is bundled (scripts/bundle.js) and, from the
// sources, as the module loads (scripts/postgres-fixes.js). When PostgreSQL ends a transaction's
// connection while the transaction's callback is between two statements (its code awaits
// something else), `sql.begin` fails at once, but the callback goes on, and its next statements
// went to the same connection object: by then the pool may have opened it again for other work,
// so they ran on a new session, outside any transaction. An INSERT of a failed transaction was
// committed on its own, and its COMMIT or ROLLBACK ended whatever transaction that session had
// begun since. Fixed here: once its connection has closed, a transaction's statements fail as a
// lost connection (CONNECTION_CLOSED, which the stores answer as 503) and reach no connection.
// The library offers no way to change its transactions, hence a patch, checked against the source.

import { patchModule, postgresModule } from './postgres-patch.js'

const STATE = `    let savepoints = 0
      , connection
      , prepare = null`
const STATE_FIXED = `    let savepoints = 0
      , connection
      , prepare = null
      , lost = null`
const CLOSE = '        new Promise((_, reject) => connection.onclose = reject)'
const CLOSE_FIXED = '        new Promise((_, reject) => connection.onclose = e => (lost = e, reject(e)))'
/** A test only the fixed module makes (as esbuild writes it too): the build checks that the bundle holds it. */
export const POSTGRES_TRANSACTION_FIXED = 'if (lost)'
const HANDLER = `      function handler(q) {
        q.catch(e => uncaughtError || (uncaughtError = e))`
const HANDLER_FIXED = `${HANDLER}
        ${POSTGRES_TRANSACTION_FIXED}
          return q.reject(Errors.connection('CONNECTION_CLOSED', options))`

/** The index module's source with the fix; throws when the source is not the one it fits. */
/** Each original text of the module and its fixed text (a test checks each original is required). */
export const POSTGRES_TRANSACTION_REPLACEMENTS = [[STATE, STATE_FIXED], [CLOSE, CLOSE_FIXED], [HANDLER, HANDLER_FIXED]]

export const patchPostgresTransaction = (source) => patchModule(source, 'index.js', 'scripts/postgres-transaction.js', POSTGRES_TRANSACTION_REPLACEMENTS)

/** Matches the module the fix applies to, as esbuild names it (both of the package's builds). */
export const POSTGRES_TRANSACTION = postgresModule('index.js')
