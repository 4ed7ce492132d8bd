// The server's bundle, compiled with V8's code cache. `npm run build` bundles the server into one
// CommonJS file (dist/server.bundle.cjs), starts it once with the flags of `npm start` and keeps
// V8's compiled code for every function that start ran (dist/server.bundle.cache). dist/server.cjs
// (launch.ts) compiles the bundle with that cache: V8 then neither parses the 4 MB source nor
// compiles a function the start runs, which was about 110 ms of the 500 of a start on an existing
// database (BENCHMARKS.md).
//
// Why by hand: Node 20 has no compile cache for modules (Node 22's `module.enableCompileCache`);
// `vm.Script` with `cachedData` is the one way in, and it takes a script, not an ES module, hence
// the CommonJS bundle. `v8-compile-cache` does the same for every `require` (unmaintained since
// 2022, and it keeps its cache in the temporary folder, which a container may lose).
//
// V8 takes a cache only from the same V8 version, with the same V8 flags (the heap's sizes among
// them), for a source of the same length. Anything else, `node dist/server.cjs` without the flags
// say, and V8 rejects it and compiles the source as it would without one: slower, never wrong.
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { constants, Script } from 'node:vm'

/** What the bundle exports (src/server.ts). */
export interface BundleExports {
  /** Settles once the server listens (with its app), or has given up and set its exit code. */
  started: Promise<{ inject: (path: string) => Promise<{ statusCode: number }>, close: () => Promise<unknown> } | undefined>
}

export interface CompiledBundle {
  /** Whether V8 took the cache (false without one). */
  cacheUsed: boolean
  /** Runs the bundle's top-level code: the server starts. */
  run: () => BundleExports
  /** V8's code for every function compiled so far, for `cacheFile`. */
  cacheData: () => Buffer
}

/**
 * Around the bundle's text in its file: the wrapper Node gives a CommonJS module, so the bundle sees
 * `require`, `module` and the rest (`run` below passes them).
 */
export const BUNDLE_WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})'] as const

/** The bundle, compiled with `cacheFile` when one is given and there. */
export function compileBundle (bundle: string, cacheFile?: string): CompiledBundle {
  const bundleFile = resolve(bundle)
  let cachedData: Buffer | undefined
  try {
    if (cacheFile !== undefined) cachedData = readFileSync(cacheFile)
  } catch {}
  // The build stores the bundle as Latin-1, inside BUNDLE_WRAPPER (scripts/bundle.js): the text
  // read is the script to compile, one string V8 takes as it is.
  const source = readFileSync(bundleFile, 'latin1')
  const script = new Script(source, {
    filename: bundleFile,
    cachedData,
    // The build writes the bundle's `import()` as `require` (scripts/bundle.js). Should one be
    // left, it resolves as in a module of its own (Node 20 warns that this is experimental).
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  return {
    cacheUsed: cachedData !== undefined && script.cachedDataRejected !== true,
    run () {
      const module = { exports: {} }
      const wrapper = script.runInThisContext() as (...args: unknown[]) => void
      wrapper.call(module.exports, module.exports, createRequire(bundleFile), module, bundleFile, dirname(bundleFile))
      return module.exports as BundleExports
    },
    cacheData: () => script.createCachedData()
  }
}

/** Writes the cache of `bundleFile` after one start of it (`npm run build`, in a process of its own). */
export async function writeCodeCache (bundleFile: string, cacheFile: string): Promise<void> {
  const bundle = compileBundle(bundleFile)
  const app = await bundle.run().started
  if (app === undefined) throw new Error('the server did not start')
  // The health route, as a start's first answer.
  const health = await app.inject('/_sandbox/health')
  if (health.statusCode !== 200) throw new Error(`the health route answered ${health.statusCode}`)
  writeFileSync(cacheFile, bundle.cacheData())
  await app.close()
}
