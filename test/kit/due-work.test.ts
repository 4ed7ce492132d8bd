// allTogether (src/kit/due-work.ts): the due work of a pass (settlements, cooldowns, card checks,
// KYC reviews) goes into group commits of 25 items, in order, each item atomic on its own; a failed
// item does not stop the others, and the pass hears of it.
import t from 'tap'
import { allTogether } from '../../src/kit/due-work.js'
import type { Db } from '../../src/storage/db.js'
import { openTestStorage } from '../helpers.js'

async function database (t: Parameters<typeof openTestStorage>[0]): Promise<{ db: Db, commits: () => number }> {
  const storage = await openTestStorage(t)
  t.teardown(() => storage.close())
  let count = 0
  storage.db.afterCommit(() => { count++ })
  return { db: storage.db, commits: () => count }
}

const keys = async (db: Db): Promise<string[]> =>
  await db.prepare<[], string>("SELECT key FROM settings WHERE key LIKE 'due-%' ORDER BY value").pluck().all()

t.test('sixty items: three commits of 25, 25 and 10, written in their order', async t => {
  const { db, commits } = await database(t)
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  const items = Array.from({ length: 60 }, (_, i) => i)
  // The value records the order the writes ran in.
  let ran = 0
  // The items each commit wrote.
  const sizes: number[] = []
  let committed = 0
  db.afterCommit(() => { sizes.push(ran - committed); committed = ran })
  const before = commits()
  await allTogether(items, async i => await db.write(async () => await insert.run(`due-${i}`, String(ran++).padStart(3, '0'))))
  t.equal(commits() - before, 3, 'three group commits')
  t.same(sizes, [25, 25, 10], 'of 25, 25 and 10 items')
  t.same(await keys(db), items.map(i => `due-${i}`), 'in the items\' order')
})

t.test('a failed item: the others are written, then the first failure is thrown', async t => {
  const { db } = await database(t)
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)')
  await t.rejects(allTogether([1, 2, 3, 4, 5], async i => await db.write(async () => {
    await insert.run(`due-${i}`, String(i))
    if (i === 2) throw new Error('item 2 failed')
    if (i === 4) throw new Error('item 4 failed')
  }), 2), { message: 'item 2 failed' })
  t.same(await keys(db), ['due-1', 'due-3', 'due-5'], 'the failed items left nothing; the others are written, in the later groups too')
})

t.test('no items: nothing written, no commit', async t => {
  const { db, commits } = await database(t)
  const before = commits()
  await allTogether([], async () => await db.write(() => 1))
  t.equal(commits(), before)
})
