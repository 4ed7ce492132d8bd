// node bench/cpuprofile.js <file.cpuprofile> [--top 30] [--from ms] [--to ms]
// Summarizes a V8 CPU profile (node --cpu-prof): self time by function, by file and by package,
// so the hottest per-request work stands out, and the inclusive time of the project's own
// functions (what each costs with what it calls). --from/--to keep the samples of a window (ms after
// the profile started), so start-up and seeding do not drown a scenario. bench/run.js --cpu-prof
// calls summarize() once per scenario.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { benchArgs } from './args.js'

// Shortens a URL to the part that names the package or the project file.
function place (url) {
  if (url === '') return '(native)'
  const path = url.replace(/^file:\/\//, '')
  const nm = path.lastIndexOf('node_modules/')
  if (nm >= 0) return path.slice(nm + 'node_modules/'.length)
  const dist = path.indexOf('/dist/')
  if (dist >= 0) return path.slice(dist + 1)
  return path.startsWith('node:') ? path : path.split('/').slice(-2).join('/')
}

// The bundle (dist/server.bundle.cjs) holds the project and most of its packages: esbuild starts each
// bundled file with a comment naming it (`// node_modules/postgres/src/connection.js`, `// src/app.ts`),
// so a sample's line says which file, and which package, its function came from.
const bundles = new Map()
function bundledFiles (url) {
  let starts = bundles.get(url)
  if (starts === undefined) {
    starts = []
    const path = url.replace(/^file:\/\//, '')
    if (existsSync(path)) {
      const lines = readFileSync(path, 'latin1').split('\n')
      for (let i = 0; i < lines.length; i++) {
        const m = /^\/\/ ((?:node_modules|src|dist|scripts)\/\S+)$/.exec(lines[i])
        if (m !== null) starts.push([i, m[1]])
      }
    }
    bundles.set(url, starts)
  }
  return starts
}

/** The file a bundle's line (0-based) came from, or undefined outside a bundle. */
function bundledFile (url, line) {
  if (!url.endsWith('.bundle.cjs')) return undefined
  const starts = bundledFiles(url)
  let lo = 0
  let hi = starts.length - 1
  let found
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (starts[mid][0] <= line) { found = starts[mid][1]; lo = mid + 1 } else hi = mid - 1
  }
  return found === undefined ? undefined : `dist/(bundled) ${found.startsWith('node_modules/') ? found.slice('node_modules/'.length) : found}`
}

/** A file's package: its first segment (two for a scoped one), `project` for the project's own files. */
function packageOf (file) {
  const name = file.startsWith('dist/(bundled) ') ? file.slice('dist/(bundled) '.length) : file
  if (name.startsWith('src/') || name.startsWith('dist/') || name.startsWith('scripts/')) return 'project'
  return name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]
}

/** The self-time tables of a profile, as text; `from`/`to` in ms after the profile's start. */
export function summarize (profile, { top = 30, from = 0, to = Infinity, title = '' } = {}) {
  const nodes = new Map(profile.nodes.map(n => [n.id, n]))
  const byFunction = new Map()
  const byFile = new Map()
  const byPackage = new Map()
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us)
  // Inclusive time: each sample counts once for every function of the project's own files on its
  // stack (a recursive one once), so a piece of work shows with what it calls (the request log's
  // entry, the group commit and its COMMIT). A hook that calls `done` holds what follows it too.
  const parents = new Map()
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id)
  const projectStacks = new Map()
  const projectStack = (id) => {
    let keys = projectStacks.get(id)
    if (keys !== undefined) return keys
    const parent = parents.get(id)
    const { functionName, url, lineNumber } = nodes.get(id).callFrame
    const file = bundledFile(url, lineNumber) ?? place(url)
    keys = new Set(parent === undefined ? [] : projectStack(parent))
    if (packageOf(file) === 'project') keys.add(`${functionName || '(anonymous)'}  ${file.replace('dist/(bundled) ', '')}`)
    projectStacks.set(id, keys)
    return keys
  }
  const inclusive = new Map()
  let t = profile.startTime
  let total = 0
  let idle = 0
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]
    // A sample stands for the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? 0
    const at = (t - profile.startTime) / 1000
    if (at < from || at > to) continue
    const { functionName, url, lineNumber } = nodes.get(profile.samples[i]).callFrame
    if (functionName === '(idle)') { idle += us; continue }
    total += us
    const file = bundledFile(url, lineNumber) ?? place(url)
    add(byFunction, `${functionName || '(anonymous)'}  ${place(url)}${url ? ':' + (lineNumber + 1) : ''}`, us)
    add(byFile, file, us)
    add(byPackage, packageOf(file), us)
    for (const key of projectStack(profile.samples[i])) add(inclusive, key, us)
  }
  const lines = [`${title}busy ${(total / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (percentages are of busy time)`]
  const table = (name, map, limit) => {
    lines.push('', name)
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      lines.push(`${(100 * us / total).toFixed(1).padStart(6)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`)
    }
  }
  table('Self time by function', byFunction, top)
  table('Self time by file', byFile, top)
  table('Self time by package (project = the sandbox\'s own files)', byPackage, 15)
  table('Inclusive time by function, the project\'s own (with what each calls)', inclusive, top)
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: opts, positionals } = benchArgs(import.meta.url, {
    allowPositionals: true,
    options: { top: { type: 'string', default: '30' }, from: { type: 'string', default: '0' }, to: { type: 'string' } }
  }, {
    numbers: { top: 1, from: 0, to: 0 },
    check: (values, files) => files.length !== 1
      ? `one profile file, not ${files.length}: node bench/cpuprofile.js <file.cpuprofile> [--top 30] [--from ms] [--to ms]`
      : existsSync(files[0]) ? undefined : `no such profile file: ${files[0]}`
  })
  const profile = JSON.parse(readFileSync(positionals[0], 'utf8'))
  console.log(summarize(profile, { top: Number(opts.top), from: Number(opts.from), to: opts.to === undefined ? Infinity : Number(opts.to), title: `${positionals[0]}: ` }))
}
