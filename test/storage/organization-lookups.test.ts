// An organization's rows are found by index: every statement the stores prepare that picks rows by
// organization, an organization's own reset (`POST /_sandbox/reset` with its control token: a
// `DELETE ... WHERE organization_id = ?` on every table that has the column) and its deletion by
// the admin (the cascades from `organizations` included) read no table whole. In a shared sandbox
// each organization's test suite resets its own sandbox again and again; a full scan there would
// read every organization's rows inside the one write, and take longer the more all the others
// have stored. The statements are taken from the driver as they are prepared (./query-plans.ts).
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { openStorage } from '../../src/storage/index.js'
import { build } from '../helpers.js'
import { oneLine, preparedDuring, scans } from './query-plans.js'

t.test('the statements that find an organization\'s rows, its reset and its deletion read no table whole', async t => {
  const prepared = await preparedDuring(async () => {
    const storage = await openStorage({ databasePath: ':memory:' })
    // The app, every area's stores and migrations included, on that SQLite storage.
    const app = await build(t, {}, { storage })
    const organizationId = randomUUID()
    await app.storage.admin.reset(organizationId, { keepClients: true })
    await app.storage.admin.reset(organizationId)
  })
  const byOrganization = [...prepared].filter(([sql]) => /\borganization_id\s*=\s*[?@(]/.test(sql) || /^\s*DELETE FROM organizations\b/.test(sql))
  const resets = byOrganization.filter(([sql]) => /^\s*DELETE FROM "\w+" WHERE organization_id = \?$/.test(sql))
  // Every table with the column: the reset works from the schema, so each is among the statements.
  const [, db] = byOrganization[0]
  const tables = db.prepare("SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'organization_id'").pluck().all() as string[]
  t.ok(tables.length >= 25, `the tables with an organization are found (${tables.length})`)
  t.same(resets.map(([sql]) => /"(\w+)"/.exec(sql)?.[1]).sort(), [...tables].sort(), 'the reset deletes from every table with an organization')
  t.ok(byOrganization.some(([sql]) => /^\s*DELETE FROM organizations WHERE id = \?/.test(sql)), 'the deletion of an organization is among them')
  for (const [sql, db] of byOrganization) {
    t.same(scans(db, sql), [], oneLine(sql))
  }
})
