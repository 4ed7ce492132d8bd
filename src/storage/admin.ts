// SQLite implementation of the admin store: sandbox-only operations across every table (reset,
// fixtures). Reset works from the schema itself, so tables added by later migrations are covered.
import { groupCommit, type Db } from './db.js'
import type { EntityRecord, NewClient, Organization, UserRecord } from './types.js'
import { clientRow, emailKey, isConstraint } from './core.js'
import { memoOf } from './memo.js'
import { etagOf } from './metadata.js'

export interface FixtureMetadata {
  /** The API's plural entity name: `users`, `accounts`, ... */
  entityType: string
  entityId: string
  organizationId: string
  metadata: Record<string, unknown>
}

/** The rows of the core's tables a fixture writes, synchronously, inside `atomically`. */
export interface FixtureRows {
  organization: (o: Organization) => void
  user: (u: UserRecord) => void
  client: (c: NewClient & { createdAt: string }) => void
  entity: (e: EntityRecord) => void
  metadata: (m: FixtureMetadata, updatedAt: string) => void
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
  atomically (work: () => void): Promise<void>
  readonly fixtureRows: FixtureRows
  /** Deletes every row of every table but settings and migrations; or only one organization's rows. */
  reset (organizationId?: string): Promise<void>
  /** The organization of a user, whichever organization it is in. */
  userOrganization (userId: string): Promise<string | undefined>
  /** An entity by id, whichever organization and type. */
  entity (id: string): Promise<{ type: string, organizationId: string, userId: string } | undefined>
}

// Kept by a reset: the signing key and friends, and the migration record.
const KEEP = new Set(['settings', 'migrations'])

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`

export function adminStore (db: Db): AdminStore {
  const tables = (): string[] =>
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>)
      .map(r => r.name)
      .filter(name => !KEEP.has(name))
  const hasOrganizationColumn = (table: string): boolean =>
    (db.prepare(`PRAGMA table_info(${quote(table)})`).all() as Array<{ name: string }>).some(c => c.name === 'organization_id')

  const insertOrganization = db.prepare('INSERT OR IGNORE INTO organizations (id, name, created_at) VALUES (?, ?, ?)')
  const insertUser = db.prepare('INSERT INTO users (id, organization_id, email, email_key, record, created_at) VALUES (?, ?, ?, ?, ?, ?)')
  const insertClient = db.prepare(`INSERT INTO clients (id, organization_id, name, secret_salt, secret_hash, scopes, refresh_tokens, user_id, generation, created_at)
    VALUES (@id, @organizationId, @name, @secretSalt, @secretHash, @scopes, @refreshTokens, @userId, @generation, @createdAt)`)
  const insertEntity = db.prepare('INSERT INTO entities (id, organization_id, type, user_id, record, created_at) VALUES (?, ?, ?, ?, ?, ?)')
  const upsertMetadata = db.prepare(`INSERT INTO metadata (entity_type, entity_id, organization_id, body, etag, updated_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (entity_type, entity_id) DO UPDATE SET organization_id = excluded.organization_id, body = excluded.body, etag = excluded.etag, updated_at = excluded.updated_at`)
  const userOrganization = db.prepare<[string], { organization_id: string }>('SELECT organization_id FROM users WHERE id = ?')
  const entity = db.prepare<[string], { type: string, organization_id: string, user_id: string }>('SELECT type, organization_id, user_id FROM entities WHERE id = ?')
  const memo = memoOf(db)

  return {
    async reset (organizationId) {
      // Writes queued before the reset land before it.
      groupCommit(db).flush()
      db.transaction(() => {
        memo.clear()
        // Checked at commit, when every referencing row is gone too, whatever the delete order.
        db.pragma('defer_foreign_keys = ON')
        for (const table of tables()) {
          if (organizationId === undefined) db.prepare(`DELETE FROM ${quote(table)}`).run()
          else if (hasOrganizationColumn(table)) db.prepare(`DELETE FROM ${quote(table)} WHERE organization_id = ?`).run(organizationId)
        }
        // Rows that reach the organization only through a cascading key go with it.
        if (organizationId !== undefined) db.prepare('DELETE FROM organizations WHERE id = ?').run(organizationId)
      }).immediate()
    },

    async atomically (work) {
      groupCommit(db).flush()
      try {
        db.transaction(() => {
          memo.clear()
          work()
        }).immediate()
      } catch (err) {
        throw isConstraint(err) ? new StoreConflict(err) : err
      }
    },

    fixtureRows: {
      organization: o => { insertOrganization.run(o.id, o.name, o.createdAt) },
      user: u => { insertUser.run(u.id, u.organizationId, u.email, emailKey(u.email), JSON.stringify(u.record), u.createdAt) },
      client: c => { insertClient.run(clientRow(c, c.createdAt)) },
      entity: e => { insertEntity.run(e.id, e.organizationId, e.type, e.userId, JSON.stringify(e.record), e.createdAt) },
      metadata: (m, updatedAt) => {
        const body = JSON.stringify(m.metadata)
        upsertMetadata.run(m.entityType, m.entityId, m.organizationId, body, etagOf(body), updatedAt)
      }
    },

    async userOrganization (userId) {
      return userOrganization.get(userId)?.organization_id
    },

    async entity (id) {
      const row = entity.get(id)
      return row === undefined ? undefined : { type: row.type, organizationId: row.organization_id, userId: row.user_id }
    }
  }
}
