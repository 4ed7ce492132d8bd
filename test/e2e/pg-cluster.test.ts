// scripts/pg-cluster.sh, the throwaway PostgreSQL of CI, the suite and the bench: by default it keeps
// nothing durable (fsync off); with PG_CLUSTER_DURABLE=1 at `start` it runs with PostgreSQL's own
// durable settings, and keeps them across `down` and `up` (the bench's --pg-durable measures writes
// like for like with SQLite's synchronous=FULL). Each case starts a cluster of its own. On the
// SQLite run of the suite nothing here is PostgreSQL's to check.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { backend } from '../helpers.js'

const CLUSTER = fileURLToPath(new URL('../../scripts/pg-cluster.sh', import.meta.url))
const cluster = (env: Record<string, string>, ...args: string[]): string =>
  execFileSync(CLUSTER, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...env } }).trim().split('\n').pop()!

/** What the server says of its durability settings, as `SHOW` answers them. */
const durability = (url: string): string[] =>
  execFileSync('psql', [url, '-Atc', 'SHOW fsync; SHOW synchronous_commit; SHOW full_page_writes'], { encoding: 'utf8' }).trim().split('\n')

if (backend !== 'postgres') {
  t.comment('the throwaway cluster is a PostgreSQL matter: run with SANDBOX_TEST_BACKEND=postgres (npm run test:postgres)')
} else {
  t.test('by default nothing is durable: fsync, synchronous_commit and full_page_writes off', async t => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-cluster-'))
    t.teardown(() => { cluster({}, 'stop', dir) })
    const url = cluster({ PG_CLUSTER_DURABLE: '' }, 'start', dir)
    t.match(url, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/, 'the URL is the last line')
    t.same(durability(url), ['off', 'off', 'off'])
  })

  t.test('PG_CLUSTER_DURABLE=1: PostgreSQL\'s durable settings, kept by down and up', async t => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-cluster-'))
    t.teardown(() => { cluster({}, 'stop', dir) })
    const url = cluster({ PG_CLUSTER_DURABLE: '1' }, 'start', dir)
    t.same(durability(url), ['on', 'on', 'on'], 'durable once started')
    cluster({}, 'down', dir)
    const again = cluster({}, 'up', dir)
    t.equal(again, url, 'up serves on the same port')
    t.same(durability(again), ['on', 'on', 'on'], 'still durable after down and up, without the variable')
  })
}
