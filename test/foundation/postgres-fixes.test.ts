// The server from its sources runs postgres.js with the fixes the bundle applies when it is built
// (scripts/postgres-fixes-list.js names them: the queue, the connection, the transactions): the
// suite, `npm run dev` and the tests' servers load scripts/postgres-fixes.js, whose module hook
// changes the modules as they load. The library's own code, not a copy: the modules the package's
// entry loads. Each fix's pattern finds its module in both of the package's builds, and no other;
// each fix refuses a source that lacks any text it replaces.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { POSTGRES_FIXES } from '../../scripts/postgres-fixes-list.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const require = createRequire(import.meta.url)
// The package's CommonJS entry is cjs/src/index.js; its ES module build, which the sources load, is src/.
const sourceDir = join(dirname(require.resolve('postgres')), '..', '..', 'src')
const moduleUrl = (file: string): string => pathToFileURL(join(sourceDir, file)).href
const ALL_FIXED = Object.fromEntries(POSTGRES_FIXES.map(fix => [fix.name, true]))
const NONE_FIXED = Object.fromEntries(POSTGRES_FIXES.map(fix => [fix.name, false]))

/** For each fix, whether its module as `node <args>` loads it (after the package's entry) holds the fixed line. */
function loaded (args: string[]): Record<string, boolean> {
  const script = `
    await import('postgres')
    const fixes = ${JSON.stringify(POSTGRES_FIXES.map(({ name, file, fixed }) => ({ name, url: moduleUrl(file), fixed })))}
    const found = {}
    for (const { name, url, fixed } of fixes) found[name] = String((await import(url)).default).includes(fixed)
    console.log(JSON.stringify(found))`
  const out = spawnSync(process.execPath, [...args, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })
  if (out.status !== 0) throw new Error(out.stderr)
  return JSON.parse(out.stdout) as Record<string, boolean>
}

t.test('this suite runs the fixed library', async t => {
  t.ok(POSTGRES_FIXES.length >= 3, 'the fixes listed')
  for (const fix of POSTGRES_FIXES) {
    const module = (await import(moduleUrl(fix.file))) as { default: () => unknown }
    t.match(String(module.default), fix.fixed, `the ${fix.name}`)
  }
})

t.test('the bundle and the hook find each fixed module: both of the package\'s builds match, nothing else does', async t => {
  for (const fix of POSTGRES_FIXES) {
    t.match(join(sourceDir, fix.file), fix.module, `${fix.name}: the ES module build`)
    t.match(join('x', 'node_modules', 'postgres', 'cjs', 'src', fix.file), fix.module, `${fix.name}: the CommonJS build`)
    t.notMatch(join('x', 'node_modules', 'postgres', 'src', 'types.js'), fix.module, `${fix.name}: not another module of the package`)
    t.notMatch(join('x', 'node_modules', 'other', 'src', fix.file), fix.module, `${fix.name}: not another package's ${fix.file}`)
  }
})

t.test('each fix refuses a source it was not written for (any one of its originals missing), whatever the line endings', async t => {
  for (const fix of POSTGRES_FIXES) {
    const source = readFileSync(join(sourceDir, fix.file), 'utf8')
    const patched = fix.patch(source)
    t.ok(patched.includes(fix.fixed), `${fix.name}: the installed source is patched`)
    t.equal(fix.patch(source.replace(/\n/g, '\r\n')), patched, `${fix.name}: whatever its line endings`)
    const lf = source.replace(/\r\n/g, '\n')
    fix.replacements.forEach(([original], i) => {
      t.ok(lf.includes(original), `${fix.name}: original ${i + 1} is in the installed source`)
      const changed = lf.replace(original, '')
      t.throws(() => fix.patch(changed), new RegExp(`not the source ${fix.by} was written for`), `${fix.name}: refused without original ${i + 1}`)
    })
  }
})

t.test('node with the hook loads every fix; without it, the library as published', async t => {
  t.same(loaded(['--import', './scripts/postgres-fixes.js']), ALL_FIXED)
  t.same(loaded([]), NONE_FIXED, 'the hook is what fixes them')
})

t.test('npm run dev and the suite load the hook', async t => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>, tap: { 'node-arg': string[] } }
  t.match(pkg.scripts.dev, /--import \.\/scripts\/postgres-fixes\.js src\/server\.ts$/)
  t.ok(pkg.tap['node-arg'].includes('--import=./scripts/test-loader.js'), 'tap\'s node arguments: the suite\'s loader')
  t.same(loaded(['--import', './scripts/test-loader.js']), ALL_FIXED, 'which loads the hook')
})
