// `npm test` (and `npm run test:postgres`): tap over the suite, each test file loaded as one bundle.
// Arguments go to tap (test files named run alone: `npm test -- test/users/*.test.ts`).
//
// Why bundles: the sources are TypeScript, which tsx compiles as Node loads each module, through
// module hooks that Node 20 runs on a thread of their own. A test file imports the app, about 200
// project files; each of them cost a round trip to that thread, tsx's lookups on disk (which `.ts`
// a `.js` import names) and a module of its own to compile: 2.5 to 3 s before a test's first line,
// in each of about 150 files, on each backend. So before tap starts, esbuild (already the build's
// bundler) bundles every test file with the project files it imports (packages stay outside, code
// shared by several test files goes to chunks), in about a second; scripts/test-loader.js then
// loads a test file's bundle in its place. Each project file keeps its own `import.meta.url`, so
// the paths it builds name the same files; stacks and tap's failures name the TypeScript files and
// lines (inline source maps, and tap's `--enable-source-maps`). A test run by tap directly
// (`npx tap test/x.test.ts`) and a process a test starts on a TypeScript file go through tsx, as
// they did. The bundles live as long as the run (under node_modules/.cache), so none is stale.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { dirname, extname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createRequire } from 'node:module'
import { build } from 'esbuild'
import { BUNDLES_VARIABLE, SERVER_VARIABLE, bundleOf } from './test-bundles.js'

// A Node that cannot require() ES modules fails every test file the same way: say so once instead.
const nodeProblem = createRequire(import.meta.url)('./node-check.cjs').nodeProblem()
if (nodeProblem !== undefined) {
  process.stderr.write(`${nodeProblem}\n`)
  process.exit(1)
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.js': 'js', '.mjs': 'js' }

/** Every `*.test.ts` under `dir`. */
function testFiles (dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(e => e.isFile() && e.name.endsWith('.test.ts'))
    .map(e => join(e.parentPath ?? e.path, e.name))
}

/**
 * A project file's `import.meta.url`, `.dirname` and `.filename` are its own, not the bundle's: each
 * file that names them declares its own three constants (on its first line, so lines do not move),
 * and `define` makes each use of them one of those (esbuild binds the name in the file's own scope,
 * and changes code, not text: a string that names them stays). A `.cjs` file stays outside the
 * bundle, required from where it is.
 */
const OWN_PLACE = { 'import.meta.url': '__ownUrl', 'import.meta.dirname': '__ownDirname', 'import.meta.filename': '__ownFilename' }
const ownPlace = {
  name: 'own-place',
  setup (b) {
    b.onResolve({ filter: /\.cjs$/ }, args => ({ path: pathToFileURL(resolve(args.resolveDir, args.path)).href, external: true }))
    b.onLoad({ filter: /\.(m?ts|m?js)$/ }, args => {
      if (args.path.includes('/node_modules/')) return undefined
      const text = readFileSync(args.path, 'utf8')
      if (!text.includes('import.meta')) return undefined
      const own = `const __ownUrl = ${JSON.stringify(pathToFileURL(args.path).href)}, __ownDirname = ${JSON.stringify(dirname(args.path))}, __ownFilename = ${JSON.stringify(args.path)}; `
      // After a `#!` line, if any: it must stay first.
      const at = text.startsWith('#!') ? text.indexOf('\n') + 1 : 0
      return { contents: text.slice(0, at) + own + text.slice(at), loader: LOADERS[extname(args.path)] }
    })
  }
}

// Inside the project, so that the bundles' packages resolve from its node_modules. A run that was
// killed leaves its folder: those older than a day go (a run beside this one keeps its own).
const CACHE = join(ROOT, 'node_modules/.cache')
mkdirSync(CACHE, { recursive: true })
for (const e of readdirSync(CACHE, { withFileTypes: true })) {
  const path = join(CACHE, e.name)
  if (e.isDirectory() && e.name.startsWith('test-bundles-') && Date.now() - statSync(path).mtimeMs > 86_400_000) rmSync(path, { recursive: true, force: true })
}
const out = mkdtempSync(join(CACHE, 'test-bundles-'))
const started = performance.now()
const files = testFiles(join(ROOT, 'test'))
await build({
  entryPoints: [
    ...files.map(file => ({ in: file, out: relative(out, bundleOf(ROOT, file, out)).replace(/\.mjs$/, '') })),
    // The server the tests start from its sources (test/server-args.ts): each start as quick.
    { in: join(ROOT, 'src/server.ts'), out: 'src/server' }
  ],
  absWorkingDir: ROOT,
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'inline',
  sourcesContent: false,
  logLevel: 'warning',
  plugins: [ownPlace],
  define: OWN_PLACE,
  // esbuild's `require` for a bundled CommonJS file (one of scripts/) in an ES module.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" }
})
process.stderr.write(`# ${files.length} test files bundled in ${Math.round(performance.now() - started)} ms\n`)

const tap = spawn(process.execPath, [join(ROOT, 'node_modules/tap/dist/esm/run.mjs'), ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, [BUNDLES_VARIABLE]: out, [SERVER_VARIABLE]: join(out, 'src/server.mjs') }
})
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => { tap.kill(signal) })
tap.on('exit', (code, signal) => {
  rmSync(out, { recursive: true, force: true })
  process.exit(code ?? (signal === null ? 1 : 128))
})
