// The suite's loader (package.json's tap settings: `node --import ./scripts/test-loader.js`).
// A test file that scripts/test.js bundled for this run is loaded as its bundle, and the packages
// it imports without tsx (scripts/test.js says why; tap's own module hooks still see them).
// Anything else that is TypeScript (a test run by tap directly, a server a test starts from its
// sources) goes through tsx. Either way postgres.js gets the bundle's fixes
// (scripts/postgres-fixes.js).
import { existsSync } from 'node:fs'
import { register } from 'node:module'
import { dirname, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BUNDLES_VARIABLE, bundleOf } from './test-bundles.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const out = process.env[BUNDLES_VARIABLE]
const entry = process.argv[1]
const bundle = out !== undefined && out !== '' && entry !== undefined && entry.endsWith('.test.ts') && entry.startsWith(`${root}/`)
  ? bundleOf(root, entry, out)
  : undefined

if (bundle !== undefined && existsSync(bundle)) {
  register('./test-loader-hooks.js', import.meta.url, { data: { entry: pathToFileURL(entry).href, bundle: pathToFileURL(bundle).href } })
} else {
  await import('tsx')
}
await import('./postgres-fixes.js')
