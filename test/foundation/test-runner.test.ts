// `npm test` runs each test file as one bundle (scripts/test.js): a file passes and fails as it
// would alone, its own paths (`import.meta.url`) are its own, a failure names the TypeScript file
// and line, tap's exit code is the run's, and the bundles are gone after the run.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** `npm test -- <files>` on probe test files written for the run; tap's own variables left out, so it runs as at the top. */
function runner (files: Record<string, string>): { status: number | null, out: string, dir: string } {
  const dir = mkdtempSync(join(ROOT, 'test', '.runner-probe-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TAP') && !k.startsWith('_TAP')))
  const tests = Object.keys(files).filter(f => f.endsWith('.test.ts')).map(f => relative(ROOT, join(dir, f)))
  // This run shares the project, and its `.tap`, with the run of the suite this file is part of.
  // tap clears `.tap/processinfo` when a run starts, unless it is a partial run; the suite's
  // other test processes write there meanwhile, and the clearing then fails (ENOTEMPTY) and
  // ends this run. A save list naming the probe files (`--save`) makes it a partial run: it
  // runs those files and leaves `.tap/processinfo` alone.
  const save = join(dir, 'save-list')
  writeFileSync(save, tests.map(f => f.split(sep).join('/')).join('\n') + '\n')
  const r = spawnSync(process.execPath, ['scripts/test.js', '--reporter=tap', `--save=${relative(ROOT, save)}`, ...tests],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 })
  return { status: r.status, out: `${r.stdout}${r.stderr}`, dir }
}

const bundleFolders = (): string[] => readdirSync(join(ROOT, 'node_modules/.cache')).filter(name => name.startsWith('test-bundles-'))

t.test('a passing file passes, with its own place and the app it imports', async t => {
  const before = bundleFolders()
  // Stands for a file the suite's other processes write while this run goes.
  const info = join(ROOT, '.tap/processinfo')
  mkdirSync(info, { recursive: true })
  const sentinel = join(info, `runner-probe-${process.pid}.json`)
  writeFileSync(sentinel, '{}\n')
  t.teardown(() => { rmSync(sentinel, { force: true }) })
  const { status, out, dir } = runner({
    'sibling.txt': 'beside the probe\n',
    'place.test.ts': [
      "import t from 'tap'",
      "import { readFileSync } from 'node:fs'",
      "import { fileURLToPath } from 'node:url'",
      "import { build } from '../helpers.js'",
      "t.equal(fileURLToPath(import.meta.url), process.argv[1], 'import.meta.url is the file itself')",
      "t.equal(readFileSync(new URL('./sibling.txt', import.meta.url), 'utf8'), 'beside the probe\\n', 'a path built from it')",
      "t.ok(process.env.SANDBOX_TEST_BUNDLES, 'run from this run\\'s bundles')",
      't.test(\'the app answers\', async t => {',
      '  const app = await build(t)',
      "  t.equal((await app.inject({ method: 'GET', url: '/_sandbox/health' })).statusCode, 200)",
      '})',
      ''
    ].join('\n')
  })
  t.equal(status, 0, 'the run passes', { output: out.slice(-2000) })
  t.match(out, /test files bundled in \d+ ms/)
  t.ok(out.includes(`ok 1 - ${relative(ROOT, join(dir, 'place.test.ts'))}`), 'tap names the TypeScript file')
  t.match(out, /# \{ total: 4, pass: 4 \}/)
  t.same(bundleFolders(), before, 'the run\'s bundles are removed after it')
  t.ok(existsSync(sentinel), 'the run leaves the suite\'s .tap/processinfo alone')
})

t.test('a failing file fails the run, and the failure names the TypeScript line', async t => {
  const { status, out } = runner({
    'fails.test.ts': [
      "import t from 'tap'",
      '',
      "t.equal(1 + 1, 3, 'arithmetic, wrongly')",
      ''
    ].join('\n')
  })
  t.equal(status, 1, 'tap\'s exit code')
  t.match(out, /not ok 1 - arithmetic, wrongly/)
  t.match(out, /fileName: test\/\.runner-probe-\w+\/fails\.test\.ts\n\s+lineNumber: 3\n/, 'the source file and line, not the bundle\'s')
})
