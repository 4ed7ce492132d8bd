// Every migration has its PostgreSQL text beside the SQLite one, and the two make the same schema.
// With TEST_DATABASE_URL (a postgres:// URL of a server where this test may CREATE DATABASE), both
// texts are applied in order (the core's, then each area's in the order of src/areas.ts), to an
// in-memory SQLite and to a new PostgreSQL database, and compared: tables, columns (names, order,
// types, NOT NULL, defaults, collation), primary keys, unique constraints, indexes, foreign keys
// and checks; data migrations must leave the same rows. Without it only the first part runs.
import t from 'tap'
import Database from 'better-sqlite3'
import postgres from 'postgres'
import { migrations as coreMigrations } from '../../src/storage/core-migrations.js'
import type { Migration } from '../../src/storage/migrate.js'
import { AreaRegistry } from '../../src/kit/area.js'
import { areas } from '../../src/areas.js'

const ALL: Migration[] = [
  ...coreMigrations.map(m => ({ ...m, name: `core/${m.name}` })),
  ...new AreaRegistry(areas).migrations()
]

// The tables whose SQLite rowid the code reads (ORDER BY rowid, rowid cursors): on PostgreSQL they
// carry an explicit `rowid` identity column.
const ROWID_TABLES = ['catalogue_entries', 'management_links', 'refresh_tokens', 'sandbox_faults', 'users', 'webhook_attempts', 'webhook_endpoints', 'webhook_messages']

t.test('every migration has its PostgreSQL text', async t => {
  t.ok(ALL.length > 0)
  for (const m of ALL) t.ok(typeof m.postgres === 'string' && m.postgres.trim() !== '', `${m.name} has a postgres text`)
})

// ---- The schema as each backend describes it, in one shape ----

interface Column { name: string, type: string, notNull: boolean, default: string | null, identity: string | null, collation: string | null }
interface Index { name: string, unique: boolean, partial: boolean, columns: string[] }
interface ForeignKey { columns: string[], table: string, to: string[], onDelete: string, onUpdate: string }
interface Table {
  columns: Column[]
  primaryKey: string[]
  uniques: string[]
  indexes: Index[]
  foreignKeys: string[]
  checks: number
}
type Schema = Record<string, Table>

const SQLITE_TYPES: Record<string, string> = { INTEGER: 'bigint', TEXT: 'text', REAL: 'double precision', BLOB: 'bytea' }

/** SQLite's schema, with its types and defaults as PostgreSQL spells them. */
function sqliteSchema (db: Database.Database): Schema {
  const schema: Schema = {}
  const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string, sql: string }>
  for (const { name, sql } of tables) {
    const info = db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string, type: string, notnull: number, dflt_value: string | null, pk: number }>
    const columns = info.map(c => {
      const autoincrement = new RegExp(`\\b${c.name}\\s+INTEGER\\s+PRIMARY\\s+KEY\\s+AUTOINCREMENT\\b`, 'i').test(sql)
      const type = SQLITE_TYPES[c.type.toUpperCase()] ?? `unknown ${c.type}`
      return {
        name: c.name,
        type,
        notNull: c.notnull === 1 || c.pk > 0,
        default: c.dflt_value,
        identity: autoincrement ? 'BY DEFAULT' : null,
        collation: type === 'text' ? 'C' : null
      }
    })
    const primaryKey = info.filter(c => c.pk > 0).sort((a, b) => a.pk - b.pk).map(c => c.name)
    const list = db.prepare(`PRAGMA index_list("${name}")`).all() as Array<{ name: string, unique: number, origin: string, partial: number }>
    const keyColumns = (index: string): string[] =>
      (db.prepare(`PRAGMA index_xinfo("${index}")`).all() as Array<{ cid: number, name: string | null, desc: number, key: number }>)
        .filter(c => c.key === 1).map(c => (c.cid === -2 ? '<expression>' : c.name!) + (c.desc === 1 ? ' DESC' : ''))
    const uniques = list.filter(i => i.origin === 'u').map(i => keyColumns(i.name).join(', ')).sort()
    const indexes = list.filter(i => i.origin === 'c')
      .map(i => ({ name: i.name, unique: i.unique === 1, partial: i.partial === 1, columns: keyColumns(i.name) }))
      .sort((a, b) => a.name < b.name ? -1 : 1)
    const fks = new Map<number, ForeignKey>()
    for (const f of db.prepare(`PRAGMA foreign_key_list("${name}")`).all() as Array<{ id: number, table: string, from: string, to: string, on_update: string, on_delete: string }>) {
      const fk = fks.get(f.id) ?? { columns: [], table: f.table, to: [], onDelete: f.on_delete, onUpdate: f.on_update }
      fk.columns.push(f.from)
      fk.to.push(f.to)
      fks.set(f.id, fk)
    }
    const foreignKeys = [...fks.values()].map(describeForeignKey).sort()
    const checks = (sql.match(/\bCHECK\s*\(/gi) ?? []).length
    schema[name] = { columns, primaryKey, uniques, indexes, foreignKeys, checks }
  }
  return schema
}

const describeForeignKey = (f: ForeignKey): string =>
  `(${f.columns.join(', ')}) -> ${f.table}(${f.to.join(', ')}) ON DELETE ${f.onDelete} ON UPDATE ${f.onUpdate}`

const PG_ACTIONS: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' }

/** PostgreSQL's schema (the public schema of the database `sql` is connected to). */
async function postgresSchema (sql: postgres.Sql): Promise<Schema> {
  const schema: Schema = {}
  const columns = await sql<Array<{ table: string, name: string, type: string, nullable: string, default: string | null, identity: string | null, collation: string | null }>>`
    SELECT table_name AS table, column_name AS name, data_type AS type, is_nullable AS nullable,
      column_default AS default, identity_generation AS identity, collation_name AS collation
    FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`
  const table = (name: string): Table => {
    schema[name] ??= { columns: [], primaryKey: [], uniques: [], indexes: [], foreignKeys: [], checks: 0 }
    return schema[name]
  }
  for (const c of columns) {
    table(c.table).columns.push({
      name: c.name,
      type: c.type,
      notNull: c.nullable === 'NO',
      // '' and 0 as SQLite reports them: without the cast PostgreSQL adds
      default: c.default === null ? null : c.default.replace(/::[a-z ]+$/, ''),
      identity: c.identity,
      collation: c.collation
    })
  }
  const constraints = await sql<Array<{ table: string, type: string, columns: string[], ref: string | null, to: string[] | null, on_delete: string, on_update: string }>>`
    SELECT k.conrelid::regclass::text AS table, k.contype AS type,
      ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS u(n, i)
        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i) AS columns,
      k.confrelid::regclass::text AS ref,
      ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY AS u(n, i)
        JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i) AS to,
      k.confdeltype AS on_delete, k.confupdtype AS on_update
    FROM pg_constraint k WHERE k.connamespace = 'public'::regnamespace ORDER BY k.conname`
  for (const k of constraints) {
    const t = table(k.table)
    if (k.type === 'p') t.primaryKey = k.columns
    else if (k.type === 'u') t.uniques.push(k.columns.join(', '))
    else if (k.type === 'c') t.checks++
    else if (k.type === 'f') {
      t.foreignKeys.push(describeForeignKey({ columns: k.columns, table: k.ref!, to: k.to!, onDelete: PG_ACTIONS[k.on_delete], onUpdate: PG_ACTIONS[k.on_update] }))
    }
  }
  // Indexes made by CREATE INDEX (not those behind a primary key or unique constraint).
  const indexes = await sql<Array<{ table: string, name: string, unique: boolean, partial: boolean, columns: string[] }>>`
    SELECT c.relname AS table, i.relname AS name, x.indisunique AS unique, x.indpred IS NOT NULL AS partial,
      ARRAY(SELECT CASE WHEN x.indkey[s.k - 1] = 0 THEN '<expression>'
          ELSE (SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = x.indrelid AND a.attnum = x.indkey[s.k - 1]) END
        || CASE WHEN (x.indoption[s.k - 1] & 1) = 1 THEN ' DESC' ELSE '' END
        FROM generate_series(1, x.indnkeyatts) AS s(k) ORDER BY s.k) AS columns
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
    WHERE c.relnamespace = 'public'::regnamespace
      AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid AND k.contype IN ('p', 'u'))
    ORDER BY i.relname`
  for (const i of indexes) table(i.table).indexes.push({ name: i.name, unique: i.unique, partial: i.partial, columns: i.columns })
  for (const t of Object.values(schema)) {
    t.uniques.sort()
    t.foreignKeys.sort()
  }
  return schema
}

// ---- Data migrations: rows put in before a migration, read back after every migration ----

// Before each named migration, the same statements on both backends.
const BEFORE: Record<string, string[]> = {
  'catalogue/002-pin-history': [
    "INSERT INTO catalogue_pins (asset, mid, pinned_at) VALUES ('BTC', '50000', 1700000000000), ('ETH', '3000.5', 1700000000001)"
  ],
  'webhooks/002-rotation-retention': [
    "INSERT INTO organizations (id, name, created_at) VALUES ('org', 'Org', '2024-01-01T00:00:00.000Z')",
    `INSERT INTO webhook_endpoints (id, organization_id, url, event_types, secret, created_at, updated_at)
      VALUES ('ep', 'org', 'https://example.com/hook', '[]', 'whsec_x', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`,
    `INSERT INTO webhook_messages (id, organization_id, endpoint_id, event_id, event_type, body, status, attempt_count, next_attempt_at, created_at) VALUES
      ('m1', 'org', 'ep', 'e1', 't', '{}', 'delivered', 2, NULL, '2024-03-01T09:59:00.000Z'),
      ('m2', 'org', 'ep', 'e2', 't', '{}', 'failed', 0, NULL, '2024-03-02T08:30:00.123Z'),
      ('m3', 'org', 'ep', 'e3', 't', '{}', 'pending', 1, 1709500000000, '2024-03-02T09:00:00.000Z'),
      ('m4', 'org', 'ep', 'e4', 't', '{}', 'delivered', 0, NULL, '2024-03-03T12:00:00.000+02:00'),
      ('m5', 'org', 'ep', 'e5', 't', '{}', 'failed', 0, NULL, '2024-03-04 06:07:08')`,
    `INSERT INTO webhook_attempts (id, organization_id, message_id, url, attempted_at, status_code, error, duration_ms) VALUES
      ('a1', 'org', 'm1', 'https://example.com/hook', '2024-03-01T10:00:00.000Z', 500, NULL, 12),
      ('a2', 'org', 'm1', 'https://example.com/hook', '2024-03-01T10:00:05.250Z', 200, NULL, 8),
      ('a3', 'org', 'm3', 'https://example.com/hook', '2024-03-02T09:00:01.000Z', NULL, 'refused', 3)`
  ]
}

// After every migration: what the data migrations left, as both backends must answer it.
const AFTER: Array<{ query: string, expected: unknown[][] }> = [{
  query: 'SELECT asset, mid, pinned_at FROM catalogue_pins ORDER BY asset, pinned_at',
  expected: [['BTC', '50000', 1700000000000], ['ETH', '3000.5', 1700000000001]]
}, {
  query: 'SELECT m.id, m.settled_at, e.previous_secret, e.previous_secret_expires_at FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id ORDER BY m.id',
  expected: [
    ['m1', Date.parse('2024-03-01T10:00:05.250Z'), null, null], // the last attempt
    ['m2', Date.parse('2024-03-02T08:30:00.123Z'), null, null], // no attempt: its creation
    ['m3', null, null, null], // pending
    ['m4', Date.parse('2024-03-03T10:00:00.000Z'), null, null], // an offset
    ['m5', Date.parse('2024-03-04T06:07:08.000Z'), null, null] // no offset: UTC
  ]
}]

const url = process.env.TEST_DATABASE_URL

t.test('both texts of every migration make the same schema', { skip: url === undefined ? 'TEST_DATABASE_URL is not set' : false }, async t => {
  const name = `migrations_dialects_${process.pid}_${Date.now()}`
  const admin = postgres(url!, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`)
  const target = new URL(url!)
  target.pathname = `/${name}`
  const pg = postgres(target.toString(), {
    max: 1,
    onnotice: () => {},
    // A session time zone other than UTC: times without an offset must still read as UTC.
    connection: { TimeZone: 'America/New_York' },
    // int8 as a number, as the storage reads it
    types: { int8: { to: 20, from: [20], serialize: (n: number) => String(n), parse: (s: string) => Number(s) } }
  })
  const lite = new Database(':memory:')
  t.teardown(async () => {
    lite.close()
    await pg.end()
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  })

  for (const m of ALL) {
    for (const statement of BEFORE[m.name] ?? []) {
      lite.exec(statement)
      await pg.unsafe(statement)
    }
    lite.transaction(() => lite.exec(m.sql))()
    try {
      await pg.begin(tx => tx.unsafe(m.postgres!))
    } catch (err) {
      t.fail(`${m.name} fails on PostgreSQL: ${(err as Error).message}`)
      return
    }
  }
  t.strictSame(Object.keys(BEFORE).filter(n => !ALL.some(m => m.name === n)), [], 'every data check names a migration')

  const expected = sqliteSchema(lite)
  const actual = await postgresSchema(pg)
  t.strictSame(Object.keys(actual).sort(), Object.keys(expected).sort(), 'the same tables')

  const rowidTables: string[] = []
  for (const [table, want] of Object.entries(expected)) {
    const got = actual[table]
    if (got === undefined) continue
    const rowid = got.columns.find(c => c.name === 'rowid')
    if (rowid !== undefined && !want.columns.some(c => c.name === 'rowid')) {
      rowidTables.push(table)
      t.strictSame(rowid, { name: 'rowid', type: 'bigint', notNull: true, default: null, identity: 'ALWAYS', collation: null }, `${table}.rowid is an identity`)
      t.ok(got.indexes.some(i => i.unique && i.columns.join() === 'rowid'), `${table}.rowid is unique`)
      got.columns = got.columns.filter(c => c !== rowid)
      got.indexes = got.indexes.filter(i => i.columns.join() !== 'rowid')
    }
    t.strictSame(got, want, table)
  }
  t.strictSame(rowidTables.sort(), ROWID_TABLES, 'an explicit rowid where the code reads SQLite\'s')

  for (const { query, expected } of AFTER) {
    const fromSqlite = lite.prepare(query).raw().all() as unknown[][]
    const fromPostgres = [...await pg.unsafe(query).values()]
    t.strictSame(fromSqlite, expected, `SQLite: ${query}`)
    t.strictSame(fromPostgres, expected, `PostgreSQL: ${query}`)
  }

  const count = (f: (t: Table) => number): number => Object.values(expected).reduce((n, t) => n + f(t), 0)
  t.comment(`${ALL.length} migrations; ${Object.keys(expected).length} tables, ${count(t => t.columns.length)} columns, ` +
    `${count(t => t.indexes.length)} indexes, ${count(t => t.foreignKeys.length)} foreign keys, ${count(t => t.uniques.length)} unique constraints, ` +
    `${count(t => t.checks)} checks the same on both; rowid columns on ${rowidTables.length} tables`)
})
