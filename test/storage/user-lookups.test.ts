// A user's rows are found by index: every statement the stores prepare that picks rows by user, and
// the deletion of a user with the cascades its foreign keys set off, reads no table whole. In a
// shared sandbox a full scan grows with every organization's data, and `DELETE /core/users/me`
// would take longer the more quotes, tokens and transactions all the others have made.
// The statements are the ones the app prepares when it is built, taken from the driver as they are
// prepared, not a hand-kept list (./query-plans.ts).
import t from 'tap'
import { openStorage } from '../../src/storage/index.js'
import { build } from '../helpers.js'
import { oneLine, preparedDuring, scans } from './query-plans.js'

t.test('the statements that find a user\'s rows, and a user\'s deletion, read no table whole', async t => {
  const prepared = await preparedDuring(async () => {
    const storage = await openStorage({ databasePath: ':memory:' })
    // The app, every area's stores and migrations included, on that SQLite storage.
    await build(t, {}, { storage })
  })
  const byUser = [...prepared].filter(([sql]) => /\buser_id\s*=\s*[?@]/.test(sql) || /^\s*DELETE FROM users\b/.test(sql))
  t.ok(byUser.some(([sql]) => /^\s*DELETE FROM users\b/.test(sql)), 'the deletion of a user is among them')
  t.ok(byUser.length >= 20, `the stores' lookups by user are found (${byUser.length})`)
  for (const [sql, db] of byUser) {
    t.same(scans(db, sql), [], oneLine(sql))
  }
})
