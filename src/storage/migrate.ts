// Schema migrations, named per owner (`core/001-core`, `webhooks/001-webhooks`, ...): the core's
// are applied when the database opens, each area's when the app is built, in the order of
// src/areas.ts. Each runs in its own transaction with the record that it ran.
import type Database from 'better-sqlite3'

type Db = Database.Database

export interface Migration {
  /** Unique among every migration of the database; an area's are prefixed with its name. */
  name: string
  sql: string
}

// Databases made before migrations were named per area recorded numbered versions.
const NUMBERED = new Map([[1, 'core/001-core'], [2, 'webhooks/001-webhooks'], [3, 'sandbox/001-seeds']])

/** The names already applied, reading a database of the numbered scheme once into the named one. */
function appliedNames (db: Db): Set<string> {
  db.exec('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)')
  const numbered = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined
  if (numbered) {
    db.transaction(() => {
      const rows = db.prepare('SELECT version, applied_at FROM schema_migrations').all() as Array<{ version: number, applied_at: string }>
      const insert = db.prepare('INSERT OR IGNORE INTO migrations (name, applied_at) VALUES (?, ?)')
      for (const r of rows) {
        const name = NUMBERED.get(r.version)
        if (name !== undefined) insert.run(name, r.applied_at)
      }
      db.exec('DROP TABLE schema_migrations')
    })()
  }
  return new Set((db.prepare('SELECT name FROM migrations').all() as Array<{ name: string }>).map(r => r.name))
}

/**
 * Applies the migrations not applied yet, in the order given. Two migrations of one name are a
 * mistake in the code, refused before anything runs. Returns the names it applied.
 */
export function migrate (db: Db, migrations: readonly Migration[]): string[] {
  const names = new Set<string>()
  for (const m of migrations) {
    if (names.has(m.name)) throw new Error(`Two migrations are named ${m.name}`)
    names.add(m.name)
  }
  const applied = appliedNames(db)
  const record = db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, ?)')
  const ran: string[] = []
  for (const m of migrations) {
    if (applied.has(m.name)) continue
    db.transaction(() => {
      db.exec(m.sql)
      record.run(m.name, new Date().toISOString())
    })()
    ran.push(m.name)
  }
  return ran
}
