#!/usr/bin/env -S node --max-old-space-size=192 --max-semi-space-size=4 --no-allocation-site-pretenuring --v8-pool-size=1 --no-sparkplug
// dist/server.cjs, the file every start command runs: the server's bundle, compiled with the code
// cache the build made for it (code-cache.ts). Built as CommonJS (scripts/start.cjs says why), where
// `import.meta.url` is given this file's URL (scripts/bundle.js).
import { fileURLToPath } from 'node:url'
import { compileBundle } from './code-cache.js'

compileBundle(fileURLToPath(new URL('server.bundle.cjs', import.meta.url)), fileURLToPath(new URL('server.bundle.cache', import.meta.url))).run()
