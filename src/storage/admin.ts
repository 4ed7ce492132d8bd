// SQLite implementation of the admin store: sandbox-only operations across every table (reset,
// fixtures). Reset works from the schema itself, so tables added by later migrations are covered.
import { randomUUID } from 'node:crypto'
import type { Db } from './db.js'
import type { EntityRecord, NewClient, Organization, UserRecord } from './types.js'
import { emailKey } from './core.js'
import { memoOf } from './memo.js'
import { etagOf } from './metadata.js'

export interface FixtureMetadata {
  /** The API's plural entity name: `users`, `accounts`, ... */
  entityType: string
  entityId: string
  organizationId: string
  metadata: Record<string, unknown>
}

/** Everything a fixture creates, already checked: loaded in one transaction or not at all. */
export interface FixturePlan {
  organizations: Organization[]
  users: UserRecord[]
  clients: Array<NewClient & { createdAt: string }>
  entities: EntityRecord[]
  metadata: FixtureMetadata[]
}

export interface AdminStore {
  /** Deletes every row of every table but settings and migrations; or only one organization's rows. */
  reset (organizationId?: string): Promise<void>
  /** Inserts a checked fixture atomically; throws (and inserts nothing) on any constraint failure. */
  loadFixture (plan: FixturePlan, updatedAt: string): Promise<void>
  /** The organization of a user, whichever organization it is in. */
  userOrganization (userId: string): Promise<string | undefined>
  /** An entity by id, whichever organization and type. */
  entity (id: string): Promise<{ type: string, organizationId: string, userId: string } | undefined>
  /** Whether a seed file with this digest was loaded into this database (a full reset forgets it). */
  seedLoaded (digest: string): Promise<boolean>
  markSeedLoaded (digest: string, at: string): Promise<void>
}

// Kept by a reset: the signing key and friends, and the migration record.
const KEEP = new Set(['settings', 'schema_migrations'])

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
  const seedLoaded = db.prepare<[string], { digest: string }>('SELECT digest FROM sandbox_seeds WHERE digest = ?')
  const markSeed = db.prepare('INSERT OR IGNORE INTO sandbox_seeds (digest, loaded_at) VALUES (?, ?)')
  const memo = memoOf(db)

  return {
    async reset (organizationId) {
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

    async loadFixture (plan, updatedAt) {
      db.transaction(() => {
        memo.clear()
        for (const o of plan.organizations) insertOrganization.run(o.id, o.name, o.createdAt)
        for (const u of plan.users) insertUser.run(u.id, u.organizationId, u.email, emailKey(u.email), JSON.stringify(u.record), u.createdAt)
        for (const c of plan.clients) {
          insertClient.run({
            id: c.id,
            organizationId: c.organizationId,
            name: c.name ?? '',
            secretSalt: c.secretSalt,
            secretHash: c.secretHash,
            scopes: JSON.stringify(c.scopes),
            refreshTokens: c.refreshTokens ? 1 : 0,
            userId: c.userId ?? null,
            generation: randomUUID(),
            createdAt: c.createdAt
          })
        }
        for (const e of plan.entities) insertEntity.run(e.id, e.organizationId, e.type, e.userId, JSON.stringify(e.record), e.createdAt)
        for (const m of plan.metadata) {
          const body = JSON.stringify(m.metadata)
          upsertMetadata.run(m.entityType, m.entityId, m.organizationId, body, etagOf(body), updatedAt)
        }
      }).immediate()
    },

    async userOrganization (userId) {
      return userOrganization.get(userId)?.organization_id
    },

    async entity (id) {
      const row = entity.get(id)
      return row === undefined ? undefined : { type: row.type, organizationId: row.organization_id, userId: row.user_id }
    },

    async seedLoaded (digest) {
      return seedLoaded.get(digest) !== undefined
    },

    async markSeedLoaded (digest, at) {
      markSeed.run(digest, at)
    }
  }
}
