// Due work on a sandbox where many organizations have clocks of their own (src/kit/due-work.ts):
// a run reads each area's earliest due items once for every clock, and passes only over the clocks
// that have something due. The due queries of one clock (`onDueScope`) are counted as the storage
// runs them: with forty organization clocks and nothing due, a run makes none; with one
// organization's cooldown due on its own clock, one, and that cooldown ends while the same user's
// twin on the global clock keeps running.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { Db, SqlText, Statement } from '../../src/storage/db.js'
import { onDueScope } from '../../src/storage/shared.js'
import { build, makeUser, openTestStorage } from '../helpers.js'

const ADMIN = 'due-scopes-admin-token'
const admin = { authorization: `Bearer ${ADMIN}` }
// What every query of one clock's pass holds (src/storage/shared.ts).
const SCOPED = onDueScope('organization_id').replace(/^.*( NOT IN \(SELECT organization_id FROM sandbox_clocks\)).*$/s, '$1')

/** Counts the runs of the statements that hold `marker`, on every statement `db` prepares from now on. */
function countRuns (db: Db, marker: string): () => number {
  let runs = 0
  const prepare = db.prepare.bind(db)
  db.prepare = <P extends unknown[] | object, R>(sql: SqlText): Statement<P, R> => {
    const statement = prepare<P, R>(sql)
    const text = typeof sql === 'string' ? sql : sql.sqlite
    if (!text.includes(marker)) return statement
    for (const method of ['get', 'all', 'run'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => Promise<unknown>
      Object.assign(statement, { [method]: async (...args: unknown[]) => { runs++; return await original(...args) } })
    }
    return statement
  }
  return () => runs
}

t.test('forty organization clocks: a run with nothing due makes no query per clock; a cooldown due on one clock, one', async t => {
  t.ok(SCOPED.startsWith(' NOT IN (SELECT organization_id FROM sandbox_clocks)'), 'the marker of a scoped due query')
  const storage = await openTestStorage(t)
  const runs = countRuns(storage.db, SCOPED)
  const app = await build(t, { adminToken: ADMIN }, { storage })
  const moveClock = async (query: string, body: object): Promise<void> => {
    const res = await app.inject({ method: 'POST', url: `/_sandbox/clock${query}`, headers: admin, payload: body })
    t.equal(res.statusCode, 200, res.body)
  }
  const organizations = Array.from({ length: 40 }, () => randomUUID())
  for (const id of organizations) {
    await app.storage.organizations.ensure(id, `Org ${id.slice(0, 8)}`, app.clock.iso())
    await moveClock(`?organizationId=${id}`, { advanceSeconds: 60 })
  }
  t.equal(app.clock.organizations().length, 40, 'forty organizations on clocks of their own')

  let before = runs()
  await moveClock('', { advanceSeconds: 1 })
  t.equal(runs() - before, 0, 'nothing due: no clock gets a pass')

  // A British user in the first organization (a clock of its own) and one on the global clock:
  // each gets a 24-hour cooldown from its creation, started by the global clock's pass.
  const own = await makeUser(app, organizations[0])
  const global = await makeUser(app, randomUUID())
  await moveClock('', { advanceSeconds: 1 })
  const cooldowns = async (): Promise<Record<string, string | null>> => Object.fromEntries(
    (await app.storage.db.prepare<[string, string], { user_id: string, ended_at: string | null }>('SELECT user_id, ended_at FROM cooldowns WHERE user_id IN (?, ?)').all(own.id, global.id))
      .map(r => [r.user_id === own.id ? 'own' : 'global', r.ended_at]))
  t.same(await cooldowns(), { own: null, global: null }, 'both cooldowns run')

  before = runs()
  await moveClock(`?organizationId=${organizations[0]}`, { advanceSeconds: 25 * 3600 })
  t.equal(runs() - before, 1, 'one query of one clock: the cooldowns due on the first organization\'s')
  const ended = await cooldowns()
  t.equal(ended.own, new Date(app.clock.nowFor(organizations[0])).toISOString(), 'the first organization\'s cooldown ended at its clock\'s time')
  t.equal(ended.global, null, 'the global clock\'s user keeps its cooldown')
})
