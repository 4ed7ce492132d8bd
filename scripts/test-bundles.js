// Where scripts/test.js puts a test file's bundle, for scripts/test-loader.js to find it.
import { join, relative } from 'node:path'

/** Names the folder of this run's bundles, for the test processes tap starts. */
export const BUNDLES_VARIABLE = 'SANDBOX_TEST_BUNDLES'

/** The bundle of the test file `file` (under `root`) in the folder `out`. */
export const bundleOf = (root, file, out) => join(out, relative(root, file)).replace(/\.ts$/, '.mjs')

/** Names the bundle of src/server.ts this run made, for the tests that start the server from its sources (test/server-args.ts). */
export const SERVER_VARIABLE = 'SANDBOX_TEST_SERVER'
