// The admin store: sandbox-only operations across every table (reset,
// fixtures). Reset works from the schema itself, so tables added by later migrations are covered.
import { isConstraint, type Db } from './db.js'
import type { EntityRecord, NewClient, Organization, UserRecord } from './types.js'
import { clientRow, emailKey } from './core.js'
import { memoOf } from './memo.js'
import { etagOf } from './metadata.js'
import { sharedVersionBump } from './shared.js'

export interface FixtureMetadata {
  /** The API's plural entity name: `users`, `accounts`, ... */
  entityType: string
  entityId: string
  organizationId: string
  metadata: Record<string, unknown>
}

/** The rows of the core's tables a fixture writes, synchronously, inside `atomically`. */
export interface FixtureRows {
  organization: (o: Organization) => Promise<void>
  user: (u: UserRecord) => Promise<void>
  client: (c: NewClient & { createdAt: string }) => Promise<void>
  entity: (e: EntityRecord) => Promise<void>
  metadata: (m: FixtureMetadata, updatedAt: string) => Promise<void>
}

/** A write that conflicts with data already stored (a unique or foreign key); nothing was written. */
export class StoreConflict extends Error {
  constructor (cause: unknown) {
    super('The write conflicts with stored data', { cause })
    this.name = 'StoreConflict'
  }
}

export interface AdminStore {
  /**
   * Runs `work` in one transaction, all or nothing, forgetting what the storage remembers. A
   * constraint that fails is a StoreConflict.
   */
  atomically (work: () => Promise<void>): Promise<void>
  readonly fixtureRows: FixtureRows
  /**
   * Deletes every row of every table but settings and migrations; or only one organization's rows
   * (with the organization itself, unless `keepClients`: then its clients, their tokens and the
   * organization stay, and everything else of it goes).
   */
  reset (organizationId?: string, options?: { keepClients?: boolean }): Promise<void>
  /** The organization of a user, whichever organization it is in. */
  userOrganization (userId: string): Promise<string | undefined>
  /** An entity by id, whichever organization and type. */
  entity (id: string): Promise<{ type: string, organizationId: string, userId: string } | undefined>
}

// Kept by a reset: the signing key and friends, the migration record, the replicas' shared state,
// the request log (PostgreSQL's; the reset itself is seen in it, as in SQLite's in-memory log).
const KEEP = new Set(['settings', 'migrations', 'shared_state', 'sandbox_request_log'])

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`

export function adminStore (db: Db): AdminStore {
  const tableList = db.prepare<[], string>({
    sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    postgres: "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
  }).pluck()
  const organizationTables = db.prepare<[], string>({
    sqlite: "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'organization_id'",
    postgres: "SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'organization_id'"
  }).pluck()
  // PostgreSQL checks a foreign key at each statement: a reset deletes the referencing tables
  // before the tables they reference (SQLite defers the check to the commit instead).
  const references = db.prepare<[], { child: string, parent: string }>({
    sqlite: "SELECT m.name AS child, f.\"table\" AS parent FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'",
    postgres: `SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent FROM pg_constraint c
      WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`
  })
  /** Every table a reset empties, referencing tables before the ones they reference. */
  const tables = async (keepClients = false): Promise<string[]> => {
    const names = (await tableList.all()).filter(name => !KEEP.has(name))
    const parents = new Map<string, Set<string>>()
    for (const r of await references.all()) {
      const child = r.child.replace(/"/g, '')
      const parent = r.parent.replace(/"/g, '')
      if (child === parent) continue
      let set = parents.get(parent)
      if (set === undefined) parents.set(parent, set = new Set())
      set.add(child)
    }
    const ordered: string[] = []
    const seen = new Set<string>()
    const visit = (name: string): void => {
      if (seen.has(name)) return
      seen.add(name)
      for (const child of parents.get(name) ?? []) visit(child)
      ordered.push(name)
    }
    for (const name of names) visit(name)
    if (!keepClients) return ordered.filter(name => names.includes(name))
    // The clients and whatever refers to them (their tokens), however far.
    const kept = new Set<string>()
    const keep = (name: string): void => {
      if (kept.has(name)) return
      kept.add(name)
      for (const child of parents.get(name) ?? []) keep(child)
    }
    keep('clients')
    return ordered.filter(name => names.includes(name) && !kept.has(name))
  }

  const insertOrganization = db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
  const insertUser = db.prepare('INSERT INTO users (id, organization_id, email, email_key, record, created_at) VALUES (?, ?, ?, ?, ?, ?)')
  const insertClient = db.prepare(`INSERT INTO clients (id, organization_id, name, secret_salt, secret_hash, scopes, refresh_tokens, user_id, generation, created_at)
    VALUES (@id, @organizationId, @name, @secretSalt, @secretHash, @scopes, @refreshTokens, @userId, @generation, @createdAt)`)
  const insertEntity = db.prepare('INSERT INTO entities (id, organization_id, type, user_id, record, created_at) VALUES (?, ?, ?, ?, ?, ?)')
  const upsertMetadata = db.prepare(`INSERT INTO metadata (entity_type, entity_id, organization_id, body, etag, updated_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (entity_type, entity_id) DO UPDATE SET organization_id = excluded.organization_id, body = excluded.body, etag = excluded.etag, updated_at = excluded.updated_at`)
  const userOrganization = db.prepare<[string], { organization_id: string }>('SELECT organization_id FROM users WHERE id = ?')
  const entity = db.prepare<[string], { type: string, organization_id: string, user_id: string }>('SELECT type, organization_id, user_id FROM entities WHERE id = ?')
  const memo = memoOf(db)
  const stale = sharedVersionBump(db)

  return {
    async reset (organizationId, options = {}) {
      // Writes queued before the reset land before it.
      await db.flush()
      await db.write(async () => {
        memo.clear()
        // SQLite: checked at commit, when every referencing row is gone too, whatever the order.
        if (db.dialect === 'sqlite') await db.exec('PRAGMA defer_foreign_keys = ON')
        const withOrganization = new Set(await organizationTables.all())
        for (const table of await tables(options.keepClients === true)) {
          if (organizationId === undefined) await db.exec(`DELETE FROM ${quote(table)}`)
          else if (withOrganization.has(table)) await db.prepare(`DELETE FROM ${quote(table)} WHERE organization_id = ?`).run(organizationId)
        }
        // Rows that reach the organization only through a cascading key go with it.
        if (organizationId !== undefined && options.keepClients !== true) await db.prepare('DELETE FROM organizations WHERE id = ?').run(organizationId)
        await stale()
      })
      memo.clear()
    },

    async atomically (work) {
      await db.flush()
      try {
        await db.write(async () => {
          memo.clear()
          await work()
          await stale()
        })
      } catch (err) {
        throw isConstraint(err) ? new StoreConflict(err) : err
      } finally {
        memo.clear()
      }
    },

    fixtureRows: {
      organization: async o => { await insertOrganization.run(o.id, o.name, o.createdAt) },
      user: async u => { await insertUser.run(u.id, u.organizationId, u.email, emailKey(u.email), JSON.stringify(u.record), u.createdAt) },
      client: async c => { await insertClient.run(clientRow(c, c.createdAt)) },
      entity: async e => { await insertEntity.run(e.id, e.organizationId, e.type, e.userId, JSON.stringify(e.record), e.createdAt) },
      metadata: async (m, updatedAt) => {
        const body = JSON.stringify(m.metadata)
        await upsertMetadata.run(m.entityType, m.entityId, m.organizationId, body, etagOf(body), updatedAt)
      }
    },

    async userOrganization (userId) {
      return (await userOrganization.get(userId))?.organization_id
    },

    async entity (id) {
      const row = await entity.get(id)
      return row === undefined ? undefined : { type: row.type, organizationId: row.organization_id, userId: row.user_id }
    }
  }
}
