// `npm run bench` and `node bench/cpuprofile.js`: `--help` prints the script's manual; a flag it
// does not know, a value that is not a number, a scenario or backend that does not exist, is one
// line on stderr and exit code 2, before anything is started or measured.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const run = (script: string, ...args: string[]) => spawnSync(process.execPath, [script, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 })

// The scripts that read their command line through bench/args.js.
const SCRIPTS = readdirSync(join(ROOT, 'bench')).filter(f => f.endsWith('.js') && readFileSync(join(ROOT, 'bench', f), 'utf8').includes('benchArgs(import.meta.url'))
  .map(f => `bench/${f}`)

t.test('--help prints the opening comment of each script, and exits 0', async t => {
  t.ok(['bench/run.js', 'bench/cpuprofile.js', 'bench/history.js'].every(s => SCRIPTS.includes(s)), `the scripts found: ${SCRIPTS.join(', ')}`)
  for (const script of SCRIPTS) {
    const opening = readFileSync(join(ROOT, script), 'utf8').split('\n').filter((line, i, all) => all.slice(0, i + 1).every(l => l.startsWith('//')))
    const help = run(script, '--help')
    t.equal(help.status, 0, script)
    t.equal(help.stderr, '', script)
    t.equal(help.stdout, opening.map(l => l.replace(/^\/\/ ?/, '')).join('\n') + '\n', script)
  }
  t.match(run('bench/run.js', '--help').stdout, /--only get,put \(scenario keys: get, 304, put, patch, token, token-bare, catalogue, transactions, mixed\)/)
})

t.test('a bad command line is one line and exit code 2, with nothing measured', async t => {
  const missing = join(mkdtempSync(join(tmpdir(), 'bench-args-')), 'no-build')
  const cases: Array<[string[], RegExp]> = [
    [['--bogus'], /^bench\/run\.js: Unknown option '--bogus' \(--help lists the options\)\n$/],
    [['--duration'], /^bench\/run\.js: Option '--duration <value>' argument missing \(--help lists the options\)\n$/],
    [['--duration', 'ten'], /^bench\/run\.js: --duration takes a number of at least 1, not "ten" \(--help lists the options\)\n$/],
    [['--runs', '0'], /^bench\/run\.js: --runs takes a number of at least 1, not "0" /],
    [['--request-log-size', '-1'], /^bench\/run\.js: Option '--request-log-size' argument is ambiguous\. Did you forget .* use '--request-log-size=-XYZ'\. \(--help lists the options\)\n$/],
    [['--request-log-size=-1'], /^bench\/run\.js: --request-log-size takes a number of at least 0, not "-1" /],
    [['--only', 'get,gets'], /^bench\/run\.js: --only: no scenario "gets"; the scenarios: get, 304, put, patch, token, token-bare, catalogue, transactions, mixed /],
    [['--backends', 'mysql'], /^bench\/run\.js: --backends: sqlite or postgres, not "mysql" /],
    [['--replicas', '1,0'], /^bench\/run\.js: --replicas: whole numbers from 1 to the connections, not "1,0" /],
    [['--connections', '2', '--replicas', '3'], /^bench\/run\.js: --replicas: whole numbers from 1 to the connections, not "3" /],
    [['--against', missing], /^bench\/run\.js: --against: .*no-build holds no build \(run npm ci or npm run build there\) /]
  ]
  for (const [args, message] of cases) {
    const r = run('bench/run.js', ...args)
    t.equal(r.status, 2, args.join(' '))
    t.match(r.stderr, message, args.join(' '))
    t.equal(r.stderr.split('\n').length, 2, `${args.join(' ')}: one line`)
    t.equal(r.stdout, '', args.join(' '))
  }
  const profile = run('bench/cpuprofile.js', 'some.cpuprofile', '--top', 'all')
  t.equal(profile.status, 2)
  t.match(profile.stderr, /^bench\/cpuprofile\.js: --top takes a number of at least 1, not "all" \(--help lists the options\)\n$/)
  const history = run('bench/history.js', '--trades', 'many')
  t.equal(history.status, 2)
  t.match(history.stderr, /^bench\/history\.js: --trades takes a number of at least 0, not "many" \(--help lists the options\)\n$/)
  const noFile = run('bench/cpuprofile.js')
  t.equal(noFile.status, 2)
  t.match(noFile.stderr, /^bench\/cpuprofile\.js: one profile file, not 0: node bench\/cpuprofile\.js <file\.cpuprofile> \[--top 30\] \[--from ms\] \[--to ms\] \(--help lists the options\)\n$/)
  const twoFiles = run('bench/cpuprofile.js', 'a.cpuprofile', 'b.cpuprofile')
  t.equal(twoFiles.status, 2)
  t.match(twoFiles.stderr, /^bench\/cpuprofile\.js: one profile file, not 2: /)
  const gone = run('bench/cpuprofile.js', join(missing, 'gone.cpuprofile'))
  t.equal(gone.status, 2)
  t.match(gone.stderr, /^bench\/cpuprofile\.js: no such profile file: .*gone\.cpuprofile \(--help lists the options\)\n$/)
  t.equal(gone.stdout, '')
})
