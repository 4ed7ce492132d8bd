// The server from its sources runs postgres.js with the fixes the bundle applies when it is built
// (scripts/postgres-queue.js, scripts/postgres-connection.js): the suite, `npm run dev` and the
// tests' servers load scripts/postgres-fixes.js, whose module hook changes the two modules as they
// load. The library's own code, not a copy: the modules the package's entry loads.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { POSTGRES_CONNECTION_FIXED } from '../../scripts/postgres-connection.js'
import { POSTGRES_QUEUE_FIXED } from '../../scripts/postgres-queue.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const require = createRequire(import.meta.url)
// The package's CommonJS entry is cjs/src/index.js; its ES module build, which the sources load, is src/.
const sourceDir = join(dirname(require.resolve('postgres')), '..', '..', 'src')
const moduleUrl = (name: string): string => pathToFileURL(join(sourceDir, name)).href

/** The fixed lines in the library's queue and connection as `node <args>` loads them. */
function loaded (args: string[]): { queue: boolean, connection: boolean } {
  const script = `
    await import('postgres')
    const Queue = (await import(${JSON.stringify(moduleUrl('queue.js'))})).default
    const Connection = (await import(${JSON.stringify(moduleUrl('connection.js'))})).default
    console.log(JSON.stringify({
      queue: Queue().remove.toString().includes(${JSON.stringify(POSTGRES_QUEUE_FIXED)}),
      connection: Connection.toString().includes(${JSON.stringify(POSTGRES_CONNECTION_FIXED)})
    }))`
  const out = spawnSync(process.execPath, [...args, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })
  if (out.status !== 0) throw new Error(out.stderr)
  return JSON.parse(out.stdout) as { queue: boolean, connection: boolean }
}

t.test('this suite runs the fixed library', async t => {
  const Queue = ((await import(moduleUrl('queue.js'))) as { default: () => { remove: unknown } }).default
  const Connection = ((await import(moduleUrl('connection.js'))) as { default: () => unknown }).default
  t.match(String(Queue().remove), POSTGRES_QUEUE_FIXED, 'the queue')
  t.match(String(Connection), POSTGRES_CONNECTION_FIXED, 'the connection')
})

t.test('node with the hook loads both fixes; without it, the library as published', async t => {
  t.same(loaded(['--import', './scripts/postgres-fixes.js']), { queue: true, connection: true })
  t.same(loaded([]), { queue: false, connection: false }, 'the hook is what fixes them')
})

t.test('npm run dev and the suite load the hook', async t => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>, tap: { 'node-arg': string[] } }
  t.match(pkg.scripts.dev, /--import \.\/scripts\/postgres-fixes\.js src\/server\.ts$/)
  t.ok(pkg.tap['node-arg'].includes('--import=./scripts/test-loader.js'), 'tap\'s node arguments: the suite\'s loader')
  t.same(loaded(['--import', './scripts/test-loader.js']), { queue: true, connection: true }, 'which loads the hook')
})
