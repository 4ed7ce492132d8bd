// Every page the stores read (a statement with a LIMIT: a list of an organization's users, a user's
// transactions, the admin's lists across organizations) is read in an index's order: SQLite's plan
// sorts none of them whole (`USE TEMP B-TREE FOR ORDER BY`). A sort there reads every row the list
// could hold for each page, so a page took longer the more the user, the organization or the
// whole shared sandbox had stored (a user of 20 000 transactions: 52 ms a page). The plans may
// still order the rows that tie on an index's leading columns (`FOR LAST TERM OF ORDER BY`): the
// due work's reads, which sort the items already due, by due time first. The statements are taken
// from the driver as the app prepares them while it is built (./query-plans.ts): those of every
// store opened at build, and of the ledger's read model, which the portfolio opens on first use
// (a user's statement, by completion time). PostgreSQL gets the same indexes from the same
// migrations.
import t from 'tap'
import { openStorage } from '../../src/storage/index.js'
import { ledgerReaderOf } from '../../src/transactions/reader.js'
import { build } from '../helpers.js'
import { oneLine, planOf, preparedDuring } from './query-plans.js'

t.test('no page the stores read is sorted whole', async t => {
  const prepared = await preparedDuring(async () => {
    const storage = await openStorage({ databasePath: ':memory:' })
    ledgerReaderOf(await build(t, {}, { storage }))
  })
  const pages = [...prepared].filter(([sql]) => /\bORDER BY\b[^()]*\bLIMIT\b/i.test(sql) || /\bLIMIT \?\s*OFFSET \?\)/.test(sql))
  // The lists named above are among them, so the filter cannot pass by finding nothing.
  for (const list of [/FROM transaction_parties WHERE organization_id = \? AND user_id = \?/, /FROM transactions ORDER BY created_ms DESC/, /FROM users ORDER BY created_at DESC/, /FROM users WHERE organization_id = \? ORDER BY created_at DESC/,
    /FROM transaction_parties WHERE organization_id = \? AND user_id = \? AND completed_at IS NOT NULL/,
    // The portfolio's balances at an instant: each account's last posting then, by its index by time.
    /FROM ledger_postings q WHERE q\.account_id = b\.account_id AND q\.at <= i\.at/]) {
    t.ok(pages.some(([sql]) => list.test(sql)), `a page is read by ${String(list)}`)
  }
  for (const [sql, db] of pages) {
    t.same(planOf(db, sql).filter(step => step === 'USE TEMP B-TREE FOR ORDER BY'), [], oneLine(sql))
  }
})
