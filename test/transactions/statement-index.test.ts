// A user's statement reads the user's completed transactions by the parties' completion time
// (transaction_parties_completed). A database made before that column existed gets it filled from
// its transactions when it is migrated: the completed transactions' parties take their completion
// time, every other party none. On the suite's backend.
import t from 'tap'
import { migrate } from '../../src/storage/migrate.js'
import { migrations as coreMigrations } from '../../src/storage/core-migrations.js'
import { ledgerReader } from '../../src/transactions/reader.js'
import { AreaRegistry } from '../../src/kit/area.js'
import { areas } from '../../src/areas.js'
import { emptyDatabase } from '../helpers.js'

const ALL = [...coreMigrations.map(m => ({ ...m, name: `core/${m.name}` })), ...new AreaRegistry(areas).migrations()]
const ADDED = ALL.findIndex(m => m.name.endsWith('/006-statement-by-completion'))

t.test('a database from before the completion time on parties gets it from its transactions', async t => {
  t.ok(ADDED > 0, 'the migration is registered')
  const db = await emptyDatabase(t)
  await migrate(db, ALL.slice(0, ADDED))

  const org = 'org-1'
  await db.write(async () => {
    await db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(org, 'One', '2030-01-01T00:00:00.000Z')
    const insert = db.prepare(`INSERT INTO transactions (id, organization_id, user_id, kind, status, body, created_at, updated_at, completed_at, created_ms)
      VALUES (?, ?, ?, 'transfer', ?, '{}', ?, ?, ?, 0)`)
    const party = db.prepare('INSERT INTO transaction_parties (transaction_id, organization_id, user_id, account_id, created_at) VALUES (?, ?, ?, ?, ?)')
    // tx-a: completed, the user on both its accounts; tx-b: completed later, also another user's;
    // tx-c: still processing; tx-d: completed in the next month.
    const rows: Array<[string, string, string | null]> = [
      ['tx-a', 'completed', '2030-01-10T00:00:00.000Z'],
      ['tx-b', 'completed', '2030-01-20T00:00:00.000Z'],
      ['tx-c', 'processing', null],
      ['tx-d', 'completed', '2030-02-02T00:00:00.000Z']
    ]
    for (const [id, status, completedAt] of rows) await insert.run(id, org, 'user-1', status, '2030-01-05T00:00:00.000Z', '2030-01-05T00:00:00.000Z', completedAt)
    await party.run('tx-a', org, 'user-1', 'acc-1', '2030-01-05T00:00:00.000Z')
    await party.run('tx-a', org, 'user-1', 'acc-2', '2030-01-05T00:00:00.000Z')
    await party.run('tx-b', org, 'user-1', 'acc-1', '2030-01-05T00:00:00.000Z')
    await party.run('tx-b', org, 'user-2', 'acc-9', '2030-01-05T00:00:00.000Z')
    await party.run('tx-c', org, 'user-1', 'acc-1', '2030-01-05T00:00:00.000Z')
    await party.run('tx-d', org, 'user-1', 'acc-1', '2030-01-05T00:00:00.000Z')
  })

  t.strictSame((await migrate(db, ALL)).some(name => name.endsWith('/006-statement-by-completion')), true, 'the migration ran')
  const parties = await db.prepare<[], { transaction_id: string, user_id: string, account_id: string, completed_at: string | null }>(
    'SELECT transaction_id, user_id, account_id, completed_at FROM transaction_parties ORDER BY transaction_id, user_id, account_id').all()
  t.strictSame(parties, [
    { transaction_id: 'tx-a', user_id: 'user-1', account_id: 'acc-1', completed_at: '2030-01-10T00:00:00.000Z' },
    { transaction_id: 'tx-a', user_id: 'user-1', account_id: 'acc-2', completed_at: '2030-01-10T00:00:00.000Z' },
    { transaction_id: 'tx-b', user_id: 'user-1', account_id: 'acc-1', completed_at: '2030-01-20T00:00:00.000Z' },
    { transaction_id: 'tx-b', user_id: 'user-2', account_id: 'acc-9', completed_at: '2030-01-20T00:00:00.000Z' },
    { transaction_id: 'tx-c', user_id: 'user-1', account_id: 'acc-1', completed_at: null },
    { transaction_id: 'tx-d', user_id: 'user-1', account_id: 'acc-1', completed_at: '2030-02-02T00:00:00.000Z' }
  ])

  // The statement's page: January's completed transactions, newest first, each once.
  const reader = ledgerReader(db)
  const january = ['2030-01-01T00:00:00.000Z', '2030-01-31T23:59:59.999Z'] as const
  t.strictSame(await reader.completedBetween(org, 'user-1', ...january, 0, 10), ['tx-b', 'tx-a'])
  t.strictSame(await reader.completedBetween(org, 'user-1', ...january, 1, 10), ['tx-a'], 'the second of them, skipping one')
  t.strictSame(await reader.completedBetween(org, 'user-2', ...january, 0, 10), ['tx-b'])
  t.strictSame(await reader.completedBetween('org-2', 'user-1', ...january, 0, 10), [], 'another organization\'s user of the same id has none')
})
