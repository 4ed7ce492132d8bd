// The users the storage remembers (src/storage/memo.ts) are remembered from a lookup only when
// nothing dropped the memo or forgot a user while that lookup was on its way: on PostgreSQL another
// replica may delete the user meanwhile (this replica drops its memo when it sees the shared
// version move), and the lookup's answer may be older than that deletion. Remembered anyway, the
// deleted user would stay "known to exist" on this replica until the next drop.
import t from 'tap'
import { memoOf } from '../../src/storage/memo.js'
import { build, DEMO_ORG, makeUser } from '../helpers.js'

t.test('a lookup that straddles a drop of the memo answers, and is not remembered', async t => {
  const app = await build(t)
  const user = await makeUser(app)
  const memo = memoOf(app.storage.db)
  memo.clear()
  t.equal(app.storage.users.knownType(DEMO_ORG, user.id), undefined, 'not known before a lookup')

  const lookup = app.storage.users.type(DEMO_ORG, user.id)
  memo.clear()
  t.equal(await lookup, 'individual', 'the lookup answers what it read')
  t.equal(app.storage.users.knownType(DEMO_ORG, user.id), undefined, 'not remembered from a lookup begun before the drop')
  t.equal(app.storage.users.knownToExist(DEMO_ORG, user.id), false)

  t.equal(await app.storage.users.type(DEMO_ORG, user.id), 'individual')
  t.equal(app.storage.users.knownType(DEMO_ORG, user.id), 'individual', 'the next lookup is remembered')
})

t.test('a lookup that straddles the forgetting of its user is not remembered either', async t => {
  const app = await build(t)
  const user = await makeUser(app)
  const memo = memoOf(app.storage.db)
  memo.clear()
  const lookup = app.storage.users.type(DEMO_ORG, user.id)
  // As a deletion does inside its write (src/storage/core.ts).
  memo.forgetUser(DEMO_ORG, user.id)
  t.equal(await lookup, 'individual')
  t.equal(app.storage.users.knownType(DEMO_ORG, user.id), undefined)
})
