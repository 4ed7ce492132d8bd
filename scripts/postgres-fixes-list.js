// postgres.js's fixed modules, one list for the two places that apply the fixes: the bundle
// (scripts/bundle.js) and, from the sources, the module hook (scripts/postgres-fixes-hooks.js).
// Each: the module's file in the package's src/, its path pattern, its fix (and the texts it
// replaces), a line only the fixed module has (the bundle is checked for it), and the script that
// says why.
import { patchPostgresConnection, POSTGRES_CONNECTION, POSTGRES_CONNECTION_FIXED, POSTGRES_CONNECTION_REPLACEMENTS } from './postgres-connection.js'
import { patchPostgresQueue, POSTGRES_QUEUE, POSTGRES_QUEUE_FIXED, POSTGRES_QUEUE_REPLACEMENTS } from './postgres-queue.js'
import { patchPostgresTransaction, POSTGRES_TRANSACTION, POSTGRES_TRANSACTION_FIXED, POSTGRES_TRANSACTION_REPLACEMENTS } from './postgres-transaction.js'

export const POSTGRES_FIXES = [
  { name: 'queue', file: 'queue.js', module: POSTGRES_QUEUE, patch: patchPostgresQueue, replacements: POSTGRES_QUEUE_REPLACEMENTS, fixed: POSTGRES_QUEUE_FIXED, by: 'scripts/postgres-queue.js' },
  { name: 'connection', file: 'connection.js', module: POSTGRES_CONNECTION, patch: patchPostgresConnection, replacements: POSTGRES_CONNECTION_REPLACEMENTS, fixed: POSTGRES_CONNECTION_FIXED, by: 'scripts/postgres-connection.js' },
  { name: 'transaction', file: 'index.js', module: POSTGRES_TRANSACTION, patch: patchPostgresTransaction, replacements: POSTGRES_TRANSACTION_REPLACEMENTS, fixed: POSTGRES_TRANSACTION_FIXED, by: 'scripts/postgres-transaction.js' }
]
