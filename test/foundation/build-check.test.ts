// `npm start` refuses a missing or stale build, naming the command that fixes it.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildProblem } from '../../scripts/build-check.cjs'

const SCRIPTS = fileURLToPath(new URL('../../scripts/', import.meta.url))

/** A project folder with one source file, one schema, and a build when asked, at the given times (seconds). */
function project (t: { teardown: (fn: () => void) => void }, times: { src: number, schema: number, build?: number }): string {
  const root = mkdtempSync(join(tmpdir(), 'build-check-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const [file, at] of [['src/deep/a.ts', times.src], ['schemas/b.ts', times.schema], ['dist/server.cjs', times.build]] as const) {
    if (at === undefined) continue
    mkdirSync(join(root, file, '..'), { recursive: true })
    writeFileSync(join(root, file), file === 'dist/server.cjs' ? "process.stdout.write('started\\n')\n" : '')
    utimesSync(join(root, file), at, at)
  }
  return root
}

t.test('a build newer than every source is current', async t => {
  t.equal(buildProblem(project(t, { src: 1000, schema: 1000, build: 2000 })), undefined)
})

t.test('a missing build names npm run build', async t => {
  t.match(buildProblem(project(t, { src: 1000, schema: 1000 })), /There is no build \(dist\/server\.cjs is missing\): run `npm run build`/)
})

t.test('a source or schema changed after the build names the file and npm run build', async t => {
  t.match(buildProblem(project(t, { src: 3000, schema: 1000, build: 2000 })), /The build is older than src\/deep\/a\.ts: run `npm run build`/)
  t.match(buildProblem(project(t, { src: 1000, schema: 3000, build: 2000 })), /older than schemas\/b\.ts/)
})

t.test('without sources (the image), a build is enough', async t => {
  const root = project(t, { src: 1000, schema: 1000, build: 2000 })
  rmSync(join(root, 'src'), { recursive: true })
  rmSync(join(root, 'schemas'), { recursive: true })
  t.equal(buildProblem(root), undefined)
})

t.test('the start script refuses a stale build, exit 1, and runs a current one', async t => {
  const run = (root: string): ReturnType<typeof spawnSync> => {
    mkdirSync(join(root, 'scripts'), { recursive: true })
    for (const file of ['start.cjs', 'build-check.cjs', 'stop-with-parent.cjs']) copyFileSync(join(SCRIPTS, file), join(root, 'scripts', file))
    writeFileSync(join(root, 'package.json'), '{"type":"module"}')
    return spawnSync(process.execPath, [join(root, 'scripts/start.cjs')], { encoding: 'utf8', timeout: 10_000 })
  }
  const stale = run(project(t, { src: 3000, schema: 1000, build: 2000 }))
  t.equal(stale.status, 1)
  t.match(stale.stderr, /older than src\/deep\/a\.ts: run `npm run build`/)
  t.equal(stale.stdout, '')
  const current = run(project(t, { src: 1000, schema: 1000, build: 2000 }))
  t.equal(current.status, 0)
  t.equal(current.stdout, 'started\n')
})
