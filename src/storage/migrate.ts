// Schema migrations, named per owner (`core/001-core`, `webhooks/001-webhooks`, ...): the core's
// are applied when the storage opens, each area's when the app is built, in the order of
// src/areas.ts. Each migration has its text for each backend (`sql` for SQLite, `postgres`). The
// pending ones of a call run in one write with the records that they ran: on PostgreSQL that write
// holds the global write lock, so replicas that start together apply each migration once, the
// others waiting.
import type { Db } from './db.js'

export interface Migration {
  /** Unique among every migration of the database; an area's are prefixed with its name. */
  name: string
  /** The SQLite text. Never edited once shipped. */
  sql: string
  /** The same migration for PostgreSQL 15+. */
  postgres?: string
}

// Databases made before migrations were named per area recorded numbered versions (SQLite only).
const NUMBERED = new Map([[1, 'core/001-core'], [2, 'webhooks/001-webhooks'], [3, 'sandbox/001-seeds']])

/** The names already applied, reading a database of the numbered scheme once into the named one. */
async function appliedNames (db: Db): Promise<Set<string>> {
  await db.write(async () => {
    await db.exec('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)')
    if (db.dialect !== 'sqlite') return
    const numbered = await db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined
    if (!numbered) return
    const rows = await db.prepare<[], { version: number, applied_at: string }>('SELECT version, applied_at FROM schema_migrations').all()
    const insert = db.prepare('INSERT OR IGNORE INTO migrations (name, applied_at) VALUES (?, ?)')
    for (const r of rows) {
      const name = NUMBERED.get(r.version)
      if (name !== undefined) await insert.run(name, r.applied_at)
    }
    await db.exec('DROP TABLE schema_migrations')
  })
  return new Set((await db.prepare<[], { name: string }>('SELECT name FROM migrations').all()).map(r => r.name))
}

/**
 * Applies the migrations not applied yet, in the order given. Two migrations of one name are a
 * mistake in the code, refused before anything runs. Returns the names it applied.
 */
export async function migrate (db: Db, migrations: readonly Migration[]): Promise<string[]> {
  const names = new Set<string>()
  for (const m of migrations) {
    if (names.has(m.name)) throw new Error(`Two migrations are named ${m.name}`)
    if (db.dialect === 'postgres' && m.postgres === undefined) throw new Error(`Migration ${m.name} has no PostgreSQL text`)
    names.add(m.name)
  }
  const applied = await appliedNames(db)
  const ran: string[] = []
  const isApplied = db.prepare('SELECT 1 FROM migrations WHERE name = ?')
  const record = db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, ?)')
  const pending = migrations.filter(m => !applied.has(m.name))
  if (pending.length === 0) return ran
  // Every pending migration in one write: one commit (one fsync on SQLite) instead of one each,
  // about 50 on a new database, and a start that fails on a migration leaves the database as it
  // found it.
  await db.write(async () => {
    // The group commit may run a write again (alone, after another write of its group threw).
    ran.length = 0
    for (const m of pending) {
      // Another replica may have applied it while this one waited for the lock.
      if (await isApplied.get(m.name) !== undefined) continue
      await db.exec(db.dialect === 'sqlite' ? m.sql : m.postgres!)
      await record.run(m.name, new Date().toISOString())
      ran.push(m.name)
    }
  })
  return ran
}
