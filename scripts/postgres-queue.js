// A fix to postgres.js's queue (node_modules/postgres/src/queue.js, 3.4.9, the newest release),
// applied when the server is bundled (scripts/bundle.js) and, from the sources, as the module loads
// (scripts/postgres-fixes.js). Its queue never drops the slots it has shifted out until it is empty
// once: it blanks them. `remove` searched from the first slot, blanks included, and the pool
// removes a connection from its queue on every query. Under steady load the queue of busy
// connections is never empty, so the blanks grow by one a query and each query's search with them:
// 13% of the CPU of a metadata GET on PostgreSQL after a 5 s run, and without bound on a
// long-running demo. Fixed here: `remove` searches from the first live slot (a blank is never what
// it looks for, so it finds the same slot), and a shift drops the blanks once they are at least
// 1 024 and half the array. The queue's order and contents are unchanged (a test compares the two
// under random operations). Patched at bundle time, with a check that the source is still the one
// this was written for, because the library offers no way to replace its queue.

import { patchModule, postgresModule } from './postgres-patch.js'

const REMOVE = `    remove: (x) => {
      const index = xs.indexOf(x)
      return index === -1
        ? null
        : (xs.splice(index, 1), x)
    },`
/** A line only the fixed queue has: the build checks that the bundle holds it. */
export const POSTGRES_QUEUE_FIXED = 'const at = xs.indexOf(x, index)'
const REMOVE_FIXED = `    remove: (x) => {
      ${POSTGRES_QUEUE_FIXED}
      return at === -1
        ? null
        : (xs.splice(at, 1), x)
    },`
const SHIFT_BLANK = `      } else {
        xs[index - 1] = undefined
      }`
const SHIFT_BLANK_FIXED = `      } else if (index >= 1024 && index * 2 >= xs.length) {
        xs = xs.slice(index)
        index = 0
      } else {
        xs[index - 1] = undefined
      }`

/** The queue module's source with the fix; throws when the source is not the one it fits. */
/** Each original text of the module and its fixed text (a test checks each original is required). */
export const POSTGRES_QUEUE_REPLACEMENTS = [[REMOVE, REMOVE_FIXED], [SHIFT_BLANK, SHIFT_BLANK_FIXED]]

export const patchPostgresQueue = (source) => patchModule(source, 'queue.js', 'scripts/postgres-queue.js', POSTGRES_QUEUE_REPLACEMENTS)

/** Matches the module the fix applies to, as esbuild names it (both of the package's builds). */
export const POSTGRES_QUEUE = postgresModule('queue.js')
