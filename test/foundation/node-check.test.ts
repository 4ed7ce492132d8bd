// `npm ci` (its build), `npm test` and `npm run dev` refuse, with one clear line, a Node.js that
// cannot require() ES modules, which some dependencies need: before Node 20.19 and 22.12 they
// failed halfway through the install with ERR_REQUIRE_ESM.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { nodeProblem } from '../../scripts/node-check.cjs'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const WITHOUT = '--no-experimental-require-module'
const NEEDS = /^This project needs Node\.js 20\.19 or later \(22\.12 or later on Node 22\): they load ES modules with require\(\)\. /

t.test('a Node that requires ES modules passes; one that cannot is told which versions can', async t => {
  t.equal(nodeProblem({ require_module: true }, 'v20.19.0'), undefined)
  t.match(nodeProblem({}, 'v20.15.1'), NEEDS)
  t.match(nodeProblem({}, 'v20.15.1'), /This is v20\.15\.1\.$/)
  t.match(nodeProblem({ require_module: false }, 'v22.12.0'), /This is v22\.12\.0, started with --no-experimental-require-module\.$/)
})

t.test('the check, as npm runs it, exits 1 with its line, and 0 silently on this Node', async t => {
  const refused = spawnSync(process.execPath, [WITHOUT, 'scripts/node-check.cjs'], { cwd: ROOT, encoding: 'utf8' })
  t.equal(refused.status, 1)
  t.match(refused.stderr, NEEDS)
  t.equal(refused.stdout, '')
  const passed = spawnSync(process.execPath, ['scripts/node-check.cjs'], { cwd: ROOT, encoding: 'utf8' })
  t.equal(passed.status, 0)
  t.equal(passed.stderr, '')
})

t.test('npm test refuses such a Node before it bundles or runs anything', async t => {
  // A file that is not there: were the check gone, the run would fail fast rather than run this file again.
  const run = spawnSync(process.execPath, [WITHOUT, 'scripts/test.js', 'test/no-such-file.test.ts'], { cwd: ROOT, encoding: 'utf8' })
  t.equal(run.status, 1)
  t.match(run.stderr, NEEDS)
  t.notMatch(run.stdout, /# \{ total/)
})

t.test('the build (so npm ci) and npm run dev check first; engines and the README name the same versions', async t => {
  const pkg = JSON.parse(readFileSync(new URL('package.json', `file://${ROOT}`), 'utf8')) as { engines: { node: string }, scripts: Record<string, string> }
  for (const script of ['build', 'dev']) t.match(pkg.scripts[script], /^node scripts\/node-check\.cjs && /, script)
  t.equal(pkg.scripts.prepare, 'npm run build')
  t.equal(pkg.engines.node, '^20.19.0 || >=22.12.0')
  t.match(readFileSync(new URL('README.md', `file://${ROOT}`), 'utf8'), /Needs Node\.js 20\.19 or later \(22\.12 or later on Node 22\)/)
})
