// `node <the flags of npm start> scripts/code-cache.js <bundle> <cache>`, run by scripts/bundle.js:
// starts the bundle once and writes V8's code cache for it (src/code-cache.ts).
import { writeCodeCache } from '../dist/src/code-cache.js'

// The server reads its flags from the command line: it gets none.
const [bundle, cache] = process.argv.splice(2)
await writeCodeCache(bundle, cache)
process.exit(0)
