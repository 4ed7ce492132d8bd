// `npm run replicas` (scripts/replicas.js): a throwaway PostgreSQL, sandbox processes on it and a
// round-robin proxy on PORT, as docs/deployment.md offers it to try the replicas' topology on one
// machine. It needs PostgreSQL's programs (scripts/pg-cluster.sh), so it runs on the PostgreSQL run
// of the suite, `npm run test:postgres`.
import t from 'tap'
import { execFileSync, spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { backend, basic, DEMO_ID, DEMO_SECRET, waitFor } from '../helpers.js'
import { buildProblem } from '../../scripts/build-check.cjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

const answers = async (url: string): Promise<boolean> => await fetch(url).then(res => res.status === 200, () => false)

if (backend !== 'postgres') {
  t.comment('npm run replicas starts PostgreSQL: run with SANDBOX_TEST_BACKEND=postgres (npm run test:postgres)')
} else {
  t.test('two replicas behind the proxy answer as one sandbox, and a SIGTERM to npm alone stops them and the database', async t => {
    if (buildProblem(ROOT) !== undefined) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })
    // Three ports in a row (the proxy's, then each replica's), away from the usual ones.
    const port = 20_000 + Math.floor(Math.random() * 20_000)
    const child = spawn('npm', ['run', 'replicas', '--silent'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), REPLICAS: '2', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the teardown can stop all of it whatever the test did.
      detached: true
    })
    t.teardown(() => { try { process.kill(-child.pid!, 'SIGKILL') } catch {} })
    let stdout = ''
    child.stdout.on('data', chunk => { stdout += chunk })
    child.stderr.resume()
    await waitFor(() => /behind http:\/\/127\.0\.0\.1:\d+/.test(stdout), { what: 'the banner', timeoutMs: 60_000 })
    const database = /on PostgreSQL \((postgres:\/\/\S+)\)/.exec(stdout)![1]
    // Should the script fail to stop it, its cluster is stopped here (pg-cluster.sh keeps the data in <dir>/data).
    const dataDirectory = execFileSync('psql', [database, '-qAtc', 'SHOW data_directory'], { encoding: 'utf8' }).trim()
    t.teardown(() => { execFileSync(join(ROOT, 'scripts/pg-cluster.sh'), ['stop', dirname(dataDirectory)], { stdio: 'ignore' }) })
    const proxy = `http://127.0.0.1:${port}`
    const replicas = [port + 1, port + 2].map(p => `http://127.0.0.1:${p}`)
    await waitFor(async () => (await Promise.all(replicas.map(async r => await answers(`${r}/_sandbox/health`)))).every(Boolean), { what: 'both replicas healthy', timeoutMs: 60_000 })

    // A client made through the proxy gets tokens from either replica: one database.
    const made = await fetch(`${proxy}/_sandbox/clients`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: 'replicas-command', clientSecret: 'replicas-command-secret', scopes: ['core.users.metadata:read'] }) })
    t.equal(made.status, 201)
    for (const replica of replicas) {
      const token = await fetch(`${replica}/core/oauth2/token`, { method: 'POST', headers: { authorization: basic('replicas-command', 'replicas-command-secret'), 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })
      t.equal(token.status, 200, `a token from ${replica}`)
    }
    const demo = await fetch(`${proxy}/core/oauth2/token`, { method: 'POST', headers: { authorization: basic(DEMO_ID, DEMO_SECRET), 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })
    t.equal(demo.status, 200, 'the demo client through the proxy')

    child.kill('SIGTERM')
    await waitFor(async () => !(await answers(`${proxy}/_sandbox/health`)), { what: 'the proxy to stop', timeoutMs: 15_000 })
    await waitFor(async () => (await Promise.all(replicas.map(async r => await answers(`${r}/_sandbox/health`)))).every(up => !up), { what: 'the replicas to stop', timeoutMs: 15_000 })
    t.pass('the proxy and the replicas no longer answer')
    const gone = (): boolean => { try { execFileSync('psql', [database, '-qAtc', 'SELECT 1'], { stdio: 'ignore' }); return false } catch { return true } }
    await waitFor(gone, { what: 'the throwaway PostgreSQL to stop', timeoutMs: 15_000, intervalMs: 200 })
    t.pass('its PostgreSQL no longer answers')
  })
}
