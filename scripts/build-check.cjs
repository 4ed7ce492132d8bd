// Whether dist/ holds a build of the current sources: `npm start` runs the build that `npm ci` (its
// `prepare` script) or `npm run build` made, and refuses a missing or stale one rather than run old
// code. A look at modification times (about 80 files, a few milliseconds), not a rebuild.
// CommonJS, as scripts/start.cjs is (it says why).
const { readdirSync, statSync } = require('node:fs')
const { join } = require('node:path')

/** What the build is made from: the sources, the schemas and what decides how they are compiled. */
const INPUT_FOLDERS = ['src', 'schemas']
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'scripts/bundle.js', 'scripts/code-cache.js', 'package-lock.json']
const OUTPUT = 'dist/server.cjs'
const FIX = 'npm run build'

const mtime = (path) => {
  try { return statSync(path).mtimeMs } catch { return undefined }
}

/** The newest input file under `root` and its modification time (undefined where there are none). */
function newestInput (root) {
  let newest = { path: undefined, mtimeMs: -Infinity }
  const consider = (path) => {
    const m = mtime(path)
    if (m !== undefined && m > newest.mtimeMs) newest = { path, mtimeMs: m }
  }
  for (const folder of INPUT_FOLDERS) {
    let entries
    try { entries = readdirSync(join(root, folder), { recursive: true, withFileTypes: true }) } catch { continue }
    for (const entry of entries) if (entry.isFile()) consider(join(entry.parentPath ?? entry.path, entry.name))
  }
  for (const file of INPUT_FILES) consider(join(root, file))
  return newest
}

/**
 * Undefined when `root`'s build is there and newer than every input; else a message saying what
 * is wrong and the command that fixes it. Without sources (the image), only the build is checked.
 */
function buildProblem (root) {
  const built = mtime(join(root, OUTPUT))
  if (built === undefined) return `There is no build (${OUTPUT} is missing): run \`${FIX}\` first (\`npm ci\` runs it too), or \`npm run dev\` to run the sources.`
  const newest = newestInput(root)
  if (newest.path !== undefined && newest.mtimeMs > built) {
    const changed = newest.path.slice(root.length).replace(/^[\\/]+/, '')
    return `The build is older than ${changed}: run \`${FIX}\` to rebuild it, or \`npm run dev\` to run the sources.`
  }
  return undefined
}

module.exports = { INPUT_FOLDERS, INPUT_FILES, OUTPUT, FIX, buildProblem }
