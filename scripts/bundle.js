// npm run build, second step: bundles the compiled server (dist/src) and the pure JavaScript packages
// it runs on into one file, dist/server.bundle.cjs; starts it once to keep V8's compiled code for it
// (dist/server.bundle.cache, see src/code-cache.ts); and writes dist/server.cjs, the file every start
// command runs, which compiles the bundle with that cache. Fastify, Ajv, TypeBox and the rest are
// hundreds of small modules: finding, reading and linking them was the largest part of the time
// from start to the first healthy answer (one file instead: about a fifth less, measured as starts
// of the two builds taken in turn). The bundle is CommonJS because V8's code cache takes a script,
// not an ES module (code-cache.ts says why).
//
// A package stays a `require` resolved from node_modules at run time when it needs files of its own
// by path, which a bundle does not carry: better-sqlite3, for its native module.
// Packages that name files of their own are bundled all the same, each `__dirname` in them replaced
// by their folder in node_modules, found at run time (PACKAGE_DIRS below):
// - @fastify/swagger: reads its own package.json;
// - @fastify/swagger-ui: serves the docs page's static files from its own folder;
// - pino and thread-stream: a pino transport runs in a worker thread started from their files (the
//   sandbox uses none; Fastify's logger and ours are the one pino, in the bundle).
// Loaded from node_modules, the docs' packages and what they load (yaml, @fastify/static, glob,
// send, mime: some 130 files) took 50 to 90 ms of every start, and pino's 29 files 17 ms, most of
// it Node finding, reading and compiling each file. Bundled, compiling the larger bundle takes back
// part of that: a start costs about 40 ms less CPU for the docs' packages, about 15 ms less for
// pino (BENCHMARKS.md).
// The bundle must not name `__dirname` or `__filename` anywhere else (they would name dist/, not
// the package's folder): the build fails if a bundled package does.
import { readFileSync, writeFileSync } from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { pathToFileURL } from 'node:url'
import { dirname, relative } from 'node:path'
import { execFileSync } from 'node:child_process'
import { build } from 'esbuild'
import { POSTGRES_FIXES } from './postgres-fixes-list.js'
import { BUNDLE_WRAPPER } from '../dist/src/code-cache.js'

const BUNDLE = 'dist/server.bundle.cjs'
const CODE_CACHE = 'dist/server.bundle.cache'
const EXTERNAL = new Set(['better-sqlite3'])
// Bundled packages whose files name `__dirname`: their folder, resolved from dist/ at run time.
const PACKAGE_DIRS = ['@fastify/swagger', '@fastify/swagger-ui', 'pino', 'thread-stream']
// Their files, by path: `node_modules/<name>/...js` for each name.
const PACKAGE_FILES = new RegExp(`[\\\\/]node_modules[\\\\/](?:${PACKAGE_DIRS.map(n => n.replace(/[/]/g, '[\\\\/]')).join('|')})[\\\\/].*\\.js$`)
const inPackage = (path, name) => path.replace(/\\/g, '/').split('/node_modules/').at(-1).startsWith(name + '/')
// The modules of packages that hold only data, written as literals (see the 'data-as-json' plugin).
const DATA_MODULES = /[\\/]node_modules[\\/]iso-3166[\\/][^\\/]+\.js$/
// Fastify's server module, and Node's modules it loads when they are used ('fastify-servers-on-use').
const FASTIFY_SERVER = /[\\/]node_modules[\\/]fastify[\\/]lib[\\/]server\.js$/
// What the server module calls of each: all it uses of them.
const LOADED_ON_USE = { http2: ['createSecureServer', 'createServer'], https: ['createServer'] }
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')

await build({
  entryPoints: ['dist/src/server.js'],
  outfile: BUNDLE,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // `import()` of what stays outside the bundle (Node's own modules) written as `require`: a real
  // `import()` in a script that vm.Script compiled goes through an experimental hook of Node 20,
  // which warns on stderr when used (src/code-cache.ts).
  supported: { 'dynamic-import': false },
  target: 'node20',
  sourcemap: true,
  // The licence comments of bundled packages go to dist/server.bundle.cjs.LEGAL.txt: one of them names its
  // author in a letter outside Latin-1, which made V8 hold the whole 4 MB source as a two-byte
  // string (8 MB of heap, for as long as the server runs). Checked below.
  legalComments: 'external',
  logLevel: 'warning',
  plugins: [{
    // Data modules as JSON text: `iso-3166` writes its 5 000 subdivisions as one JavaScript array
    // literal. In the bundle it sat in the module's top-level code, whose syntax tree V8 builds whole
    // when the module is compiled: 11 MB of the parser's memory at once, which the C allocator then
    // kept (freed, but resident, for as long as the server runs). `JSON.parse` of one string is
    // parsed by V8's JSON parser instead, without a syntax tree, and faster. Each module's exports
    // are checked to come back the same from JSON.
    name: 'data-as-json',
    setup (b) {
      b.onLoad({ filter: DATA_MODULES }, async ({ path }) => {
        const exports = Object.entries(await import(pathToFileURL(path).href))
        const lines = exports.map(([name, value]) => {
          const text = JSON.stringify(value)
          if (!isDeepStrictEqual(JSON.parse(text), value)) throw new Error(`${path}: ${name} does not survive JSON`)
          return `export const ${name} = JSON.parse(${JSON.stringify(text)})`
        })
        return { contents: lines.join('\n'), loader: 'js' }
      })
    }
  }, {
    // `__dirname` in PACKAGE_DIRS' files: the file's folder inside its package, under the package's
    // folder as `require.resolve` finds it at run time (the bundle's `require`, from dist/).
    name: 'package-dirs',
    setup (b) {
      b.onLoad({ filter: PACKAGE_FILES }, ({ path }) => {
        const name = PACKAGE_DIRS.find(n => inPackage(path, n))
        const source = readFileSync(path, 'utf8')
        if (name === undefined || !source.includes('__dirname')) return undefined
        const file = path.replace(/\\/g, '/')
        const root = file.slice(0, file.lastIndexOf('/node_modules/') + '/node_modules/'.length) + name
        const inside = relative(root, dirname(file)).replace(/\\/g, '/')
        // `require['resolve']`: esbuild would take `require.resolve` for a package to bundle.
        const folder = `require('node:path').join(require('node:path').dirname(require['resolve'](${JSON.stringify(name)})), ${JSON.stringify(inside)})`
        return { contents: source.replace(/\b__dirname\b/g, `(${folder})`), loader: 'js' }
      })
    }
  }, {
    name: 'external-packages',
    setup (b) {
      b.onResolve({ filter: /^[^./]/ }, ({ path }) => path.startsWith('node:') || EXTERNAL.has(packageOf(path)) ? { path, external: true } : undefined)
    }
  }, {
    // Fastify's server module loads node:http2 and node:https at once, for a server that speaks
    // HTTP/2 or TLS (options the sandbox never sets): node:http2 is the largest of Node's own
    // modules a start loads, and node:https loads TLS; together about 15 ms of every start. Here
    // each is loaded when such a server is made. The build fails if the module uses them for
    // anything else, or no longer loads them this way.
    name: 'fastify-servers-on-use',
    setup (b) {
      b.onLoad({ filter: FASTIFY_SERVER }, ({ path }) => {
        let source = readFileSync(path, 'utf8')
        for (const [name, calls] of Object.entries(LOADED_ON_USE)) {
          const line = `const ${name} = require('node:${name}')`
          const used = new Set([...source.matchAll(new RegExp(`(?<![{<\\w.])${name}\\.(\\w+)`, 'g'))].map(m => m[1]))
          if (!source.includes(line) || [...used].some(use => !calls.includes(use))) {
            throw new Error(`${path}: not the node:${name} use scripts/bundle.js expects (${[...used].join(', ')})`)
          }
          const onUse = calls.map(call => `${call}: (...args) => require('node:${name}').${call}(...args)`)
          source = source.replace(line, `const ${name} = { ${onUse.join(', ')} }`)
        }
        return { contents: source, loader: 'js' }
      })
    }
  },
  // postgres.js's queue, connection and transactions, fixed (each fix's script says why).
  ...POSTGRES_FIXES.map(fix => ({
    name: `postgres-${fix.name}`,
    setup (b) {
      b.onLoad({ filter: fix.module }, ({ path }) => ({ contents: fix.patch(readFileSync(path, 'utf8')), loader: 'js' }))
    }
  }))]
})

const bundle = readFileSync(BUNDLE, 'utf8')
const wide = /[\u0100-\u{10ffff}]/u.exec(bundle)
if (wide !== null) {
  const line = bundle.slice(0, wide.index).split('\n').length
  process.stderr.write(`scripts/bundle.js: ${BUNDLE} line ${line} has ${JSON.stringify(wide[0])}, outside Latin-1: V8 would keep the whole source as two bytes a character; escape it\n`)
  process.exit(1)
}
for (const fix of POSTGRES_FIXES) {
  if (!bundle.includes(fix.fixed)) {
    process.stderr.write(`scripts/bundle.js: postgres.js's ${fix.name} is in ${BUNDLE} without its fix (${fix.by})\n`)
    process.exit(1)
  }
}
const unresolvable = /\b__(dirname|filename)\b/.exec(bundle)
if (unresolvable !== null) {
  const line = bundle.slice(0, unresolvable.index).split('\n').length
  process.stderr.write(`scripts/bundle.js: ${BUNDLE} line ${line} names ${unresolvable[0]}, which would name dist/, not its package's folder: keep its package external or list it in PACKAGE_DIRS\n`)
  process.exit(1)
}

// Stored as Latin-1, one byte a character (every character fits, checked above), and read so by
// src/code-cache.ts: Node decodes Latin-1 by copying bytes, where decoding the same 4 MB as UTF-8
// took 12 to 15 ms of every start. Stored inside the wrapper Node gives a CommonJS module (so the
// bundle sees `require`, `module` and the rest), as the script V8 compiles: the text read is then
// that script as it is. Added at each start, the wrapper made the source a string of three parts,
// which V8 copied into one before compiling: another 4 MB of fresh memory (page faults cost about
// 10 µs each on a virtual machine) and its own copy kept for the life of the process.
writeFileSync(BUNDLE, `${BUNDLE_WRAPPER[0]}${bundle}${BUNDLE_WRAPPER[1]}`, 'latin1')

// V8's code cache for the bundle, from one start of it in a process of its own, with the V8 flags of
// `npm start` (V8 rejects a cache made under other flags), on an in-memory database and a free port
// of loopback, and none of the caller's environment (no DATABASE_URL, no NODE_OPTIONS).
const startFlags = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start.split(' ').filter(word => word.startsWith('--'))
execFileSync(process.execPath, [...startFlags, 'scripts/code-cache.js', BUNDLE, CODE_CACHE], {
  env: { PATH: process.env.PATH, DATABASE_PATH: ':memory:', HOST: '127.0.0.1', PORT: '0' },
  stdio: ['ignore', 'ignore', 'inherit'],
  // A start takes about a second; a server that does not get there fails the build.
  timeout: 60_000
})

// Last, so that a build that stopped on the way leaves no dist/server.cjs newer than the sources
// (scripts/build-check.cjs). CommonJS, as scripts/start.cjs says why.
await build({
  entryPoints: ['dist/src/launch.js'],
  outfile: 'dist/server.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  define: { 'import.meta.url': 'launcherUrl' },
  banner: { js: "'use strict'; const launcherUrl = require('node:url').pathToFileURL(__filename).href;" }
})
// The start commands written before the start became CommonJS named dist/server.js: it runs the same
// (through Node's ES module loader, so about 15 ms slower).
writeFileSync('dist/server.js', "// Runs dist/server.cjs, the start the build makes (scripts/bundle.js).\nimport './server.cjs'\n")
