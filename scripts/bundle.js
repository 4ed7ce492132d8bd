// npm run build, second step: bundles the compiled server (dist/src) and TypeBox into one file,
// dist/server.js, the file every start command runs. TypeBox is hundreds of small ES modules and
// the project is some sixty more: resolving, reading and linking them was the largest part of the
// time from start to the first healthy answer. Every other package stays an import resolved from
// node_modules at run time (the native SQLite module, the static files of the docs, ...).
import { build } from 'esbuild'

const bundled = (name) => name === 'typebox' || name.startsWith('typebox/')

await build({
  entryPoints: ['dist/src/server.js'],
  outfile: 'dist/server.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [{
    name: 'packages-stay-external',
    setup (b) {
      b.onResolve({ filter: /^[^./]/ }, ({ path }) => bundled(path) ? undefined : { path, external: true })
    }
  }]
})
