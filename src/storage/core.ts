// The core stores: settings, organizations, clients, refresh tokens,
// users, entities and the event outbox. Every statement is prepared once, here. The writes of the
// request paths (users, refresh tokens, dispatched events) go through the group commit.
import { groupCommit, isConstraint, type Db } from './db.js'
import type {
  ClientRecord, ClientStore, EntityRecord, EntityStore, EventRecord, EventStore, NewClient,
  Organization, OrganizationStore, RefreshTokenRecord, RefreshTokenStore, RotateResult, SettingsStore,
  UserRecord, UserStore
} from './types.js'
import { randomUUID } from 'node:crypto'
import { metadataInserter } from './metadata.js'
import { memoOf } from './memo.js'
import { recordEvent } from './outbox.js'
import { dueScopeParams, onDueScope, sharedVersionBump } from './shared.js'

interface ClientRow {
  id: string,
  organization_id: string,
  name: string,
  secret_salt: string,
  secret_hash: string,
  scopes: string,
  refresh_tokens: number,
  user_id: string | null,
  generation: string,
  created_at: string
}
const toClient = (r: ClientRow): ClientRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  secretSalt: r.secret_salt,
  secretHash: r.secret_hash,
  scopes: JSON.parse(r.scopes) as string[],
  refreshTokens: r.refresh_tokens === 1,
  userId: r.user_id,
  generation: r.generation,
  createdAt: r.created_at
})

interface RefreshRow {
  hash: string,
  client_id: string,
  organization_id: string,
  user_id: string | null,
  scopes: string,
  expires_at: number,
  created_at: number,
  used_at: number | null,
  family: string
}
// A refresh token granted its client's every scope keeps this word in place of their list (never
// JSON, so never a list); rows stored before it keep their list.
const CLIENT_SCOPES = 'client'
const toRefresh = (r: RefreshRow): RefreshTokenRecord => ({
  hash: r.hash,
  clientId: r.client_id,
  organizationId: r.organization_id,
  userId: r.user_id,
  scopes: r.scopes === CLIENT_SCOPES ? null : JSON.parse(r.scopes) as string[],
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  usedAt: r.used_at,
  family: r.family
})

interface UserRow { id: string, organization_id: string, email: string, record: string, created_at: string }
const toUser = (r: UserRow): UserRecord => ({
  id: r.id, organizationId: r.organization_id, email: r.email, record: JSON.parse(r.record) as Record<string, unknown>, createdAt: r.created_at
})

interface EntityRow { id: string, organization_id: string, type: string, user_id: string, record: string, created_at: string }
const toEntity = (r: EntityRow): EntityRecord => ({
  id: r.id, organizationId: r.organization_id, type: r.type, userId: r.user_id, record: JSON.parse(r.record) as Record<string, unknown>, createdAt: r.created_at
})

interface EventRow { seq: number, id: string, organization_id: string, type: string, payload: string, created_at: string }
const toEvent = (r: EventRow): EventRecord => ({
  seq: r.seq, id: r.id, organizationId: r.organization_id, type: r.type, payload: JSON.parse(r.payload) as Record<string, unknown>, createdAt: r.created_at
})

export { isConstraint }

/** E-mail addresses compare case-insensitively within an organization. */
export const emailKey = (email: string): string => email.toLowerCase()

export function settingsStore (db: Db): SettingsStore {
  const get = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?')
  const insert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING')
  const write = groupCommit(db)
  return {
    async get (key) { return (await get.get(key))?.value },
    async getOrCreate (key, value) {
      return await write(async () => {
        await insert.run(key, value)
        return (await get.get(key))!.value
      })
    }
  }
}

export function organizationStore (db: Db): OrganizationStore {
  const get = db.prepare<[string], Organization>('SELECT id, name, created_at AS "createdAt" FROM organizations WHERE id = ?')
  const insert = db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
  const list = db.prepare<[], Organization>('SELECT id, name, created_at AS "createdAt" FROM organizations ORDER BY created_at, id')
  const write = groupCommit(db)
  return {
    async get (id) { return get.get(id) },
    async ensure (id, name, createdAt) {
      return await write(async () => {
        await insert.run(id, name, createdAt)
        return (await get.get(id))!
      })
    },
    async list () { return list.all() }
  }
}

/** The parameters of a new client's row: a fresh generation, the scopes as JSON. */
export const clientRow = (c: NewClient, createdAt: string): Record<string, string | number | null> => ({
  id: c.id,
  organizationId: c.organizationId,
  name: c.name ?? '',
  secretSalt: c.secretSalt,
  secretHash: c.secretHash,
  scopes: JSON.stringify(c.scopes),
  refreshTokens: c.refreshTokens ? 1 : 0,
  userId: c.userId ?? null,
  generation: randomUUID(),
  createdAt
})

export function clientStore (db: Db): ClientStore {
  const get = db.prepare<[string], ClientRow>('SELECT * FROM clients WHERE id = ?')
  const listAll = db.prepare<[], ClientRow>('SELECT * FROM clients ORDER BY created_at, id')
  const listOrg = db.prepare<[string], ClientRow>('SELECT * FROM clients WHERE organization_id = ? ORDER BY created_at, id')
  const insert = db.prepare(`INSERT INTO clients (id, organization_id, name, secret_salt, secret_hash, scopes, refresh_tokens, user_id, generation, created_at)
    VALUES (@id, @organizationId, @name, @secretSalt, @secretHash, @scopes, @refreshTokens, @userId, @generation, @createdAt)`)
  const rotate = db.prepare('UPDATE clients SET secret_salt = ?, secret_hash = ?, generation = ? WHERE id = ?')
  const del = db.prepare('DELETE FROM clients WHERE id = ?')
  // By the tokens' index, led by the organization: the client's, read from its row.
  const delRefresh = db.prepare('DELETE FROM refresh_tokens WHERE organization_id = (SELECT organization_id FROM clients WHERE id = ?) AND client_id = ?')
  const write = groupCommit(db)
  // Every replica caches client rows and verified secrets: a change makes them stale everywhere.
  const stale = sharedVersionBump(db)
  return {
    async get (id) {
      const row = await get.get(id)
      return row === undefined ? undefined : toClient(row)
    },
    async list (organizationId) {
      return (organizationId === undefined ? await listAll.all() : await listOrg.all(organizationId)).map(toClient)
    },
    async create (c: NewClient, createdAt) {
      const row = clientRow(c, createdAt)
      try {
        return await write(async () => {
          await insert.run(row)
          await stale()
          return toClient((await get.get(c.id))!)
        })
      } catch (err) {
        if (isConstraint(err)) return undefined
        throw err
      }
    },
    async rotateSecret (id, salt, hash) {
      return await write(async () => {
        if ((await rotate.run(salt, hash, randomUUID(), id)).changes === 0) return undefined
        await delRefresh.run(id, id)
        await stale()
        return toClient((await get.get(id))!)
      })
    },
    async delete (id) {
      return await write(async () => {
        await delRefresh.run(id, id)
        await stale()
        return (await del.run(id)).changes > 0
      })
    }
  }
}

export function refreshTokenStore (db: Db): RefreshTokenStore {
  const insert = db.prepare(`INSERT INTO refresh_tokens (hash, client_id, organization_id, user_id, scopes, expires_at, created_at, used_at, family)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const get = db.prepare<[string], RefreshRow>('SELECT * FROM refresh_tokens WHERE hash = ?')
  const markUsed = db.prepare('UPDATE refresh_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL')
  const revokeFamily = db.prepare('UPDATE refresh_tokens SET used_at = ? WHERE family = ? AND used_at IS NULL')
  // The retention's walk through every token, in key order by the primary key's index.
  const keysAfter = db.prepare<[string, number], { hash: string, organization_id: string, expires_at: number }>(
    'SELECT hash, organization_id, expires_at FROM refresh_tokens WHERE hash > ? ORDER BY hash LIMIT ?')
  const deleteKeys = db.prepare<[string | string[]]>({
    sqlite: 'DELETE FROM refresh_tokens WHERE hash IN (SELECT value FROM json_each(?))',
    postgres: 'DELETE FROM refresh_tokens WHERE hash = ANY(?::text[])'
  })
  // A new row under a key of fresh random bytes; nothing reads the insert's answer, so on PostgreSQL
  // the group goes on without waiting for it.
  const save = async (t: RefreshTokenRecord): Promise<void> => {
    await insert.runUnanswered(t.hash, t.clientId, t.organizationId, t.userId, t.scopes === null ? CLIENT_SCOPES : JSON.stringify(t.scopes), t.expiresAt, t.createdAt, t.usedAt, t.family)
  }
  const write = groupCommit(db)
  return {
    async save (t) { await write(async () => { await save(t) }) },
    async get (hash) {
      const row = await get.get(hash)
      return row === undefined ? undefined : toRefresh(row)
    },
    async rotate (oldHash, usedAt, next): Promise<RotateResult> {
      return await write(async (): Promise<RotateResult> => {
        const row = await get.get(oldHash)
        if (row === undefined) return { ok: false, reason: 'unknown' }
        if ((await markUsed.run(usedAt, oldHash)).changes === 0) return { ok: false, reason: 'used' }
        await save(next)
        return { ok: true }
      })
    },
    async revokeFamily (family, at) { await write(async () => { await revokeFamily.run(at, family) }) },
    async keysAfter (after, limit) {
      return (await keysAfter.all(after, limit)).map(r => ({ key: r.hash, organizationId: r.organization_id, expiresAt: r.expires_at }))
    },
    async delete (hashes) {
      if (hashes.length === 0) return 0
      return await write(async () => (await deleteKeys.run(db.dialect === 'postgres' ? hashes : JSON.stringify(hashes))).changes)
    }
  }
}

export function eventStore (db: Db): EventStore {
  const pending = db.prepare<[number], EventRow>('SELECT seq, id, organization_id, type, payload, created_at FROM events WHERE dispatched = 0 ORDER BY seq LIMIT ?')
  // Conditional: of the replicas that read the event as pending, the one whose write marks it
  // first (writes are serialised: SQLite's one write lock, PostgreSQL's global advisory lock) is
  // the one that dispatches it.
  const mark = db.prepare('UPDATE events SET dispatched = 1 WHERE seq = ? AND dispatched = 0')
  const prune = db.prepare<[string, string | null, string | null, number]>(
    `DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE dispatched = 1 AND created_at < ? AND ${onDueScope('organization_id')} ORDER BY created_at LIMIT ?)`)
  const write = groupCommit(db)
  return {
    async pending (limit) { return (await pending.all(limit)).map(toEvent) },
    async markDispatched (seq) { return await write(async () => (await mark.run(seq)).changes > 0) },
    async pruneDispatched (before, limit, scope) { return await write(async () => (await prune.run(before, ...dueScopeParams(scope), limit)).changes) }
  }
}

export function userStore (db: Db): UserStore {
  const get = db.prepare<[string, string], UserRow>('SELECT id, organization_id, email, record, created_at FROM users WHERE organization_id = ? AND id = ?')
  const typeOf = db.prepare<[string, string], string>({
    sqlite: "SELECT coalesce(json_extract(record, '$.type'), 'individual') FROM users WHERE id = ? AND organization_id = ?",
    postgres: "SELECT coalesce(record::jsonb ->> 'type', 'individual') FROM users WHERE id = ? AND organization_id = ?"
  }).pluck()
  const byEmail = db.prepare<[string, string], UserRow>('SELECT id, organization_id, email, record, created_at FROM users WHERE organization_id = ? AND email_key = ?')
  // By the users_organization_recent and users_recent indexes (the KYC area's migrations).
  const recentOfOrganization = db.prepare<[string, number], UserRow>(
    'SELECT id, organization_id, email, record, created_at FROM users WHERE organization_id = ? ORDER BY created_at DESC, id LIMIT ?')
  const recentOfAll = db.prepare<[number], UserRow>('SELECT id, organization_id, email, record, created_at FROM users ORDER BY created_at DESC, id LIMIT ?')
  const phoneOwner = db.prepare<[string, string], number>({
    sqlite: "SELECT 1 FROM users WHERE organization_id = ? AND json_extract(record, '$.phone.number') = ? LIMIT 1",
    postgres: "SELECT 1 FROM users WHERE organization_id = ? AND record::jsonb #>> '{phone,number}' = ? LIMIT 1"
  }).pluck()
  const insert = db.prepare('INSERT INTO users (id, organization_id, email, email_key, record, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING')
  const insertMetadata = metadataInserter(db)
  const entitiesOf = db.prepare<[string, string], { id: string, type: string }>('SELECT id, type FROM entities WHERE organization_id = ? AND user_id = ?')
  const deleteMetadata = db.prepare('DELETE FROM metadata WHERE organization_id = ? AND entity_type = ? AND entity_id = ?')
  const deleteEntities = db.prepare('DELETE FROM entities WHERE organization_id = ? AND user_id = ?')
  const deleteRefreshTokens = db.prepare('DELETE FROM refresh_tokens WHERE organization_id = ? AND user_id = ?')
  const deleteUser = db.prepare('DELETE FROM users WHERE organization_id = ? AND id = ?')
  const write = groupCommit(db)
  const memo = memoOf(db)
  const stale = sharedVersionBump(db)
  // Only users known to exist are remembered, with their type; a deletion forgets its user.
  const type = async (org: string, id: string): Promise<string | undefined> => {
    const known = memo.userType(org, id)
    if (known !== undefined) return known
    const generation = memo.generation
    const found = await typeOf.get(id, org)
    if (found !== undefined && memo.generation === generation) memo.rememberUser(org, id, found)
    return found
  }
  return {
    async get (org, id) {
      const row = await get.get(org, id)
      return row === undefined ? undefined : toUser(row)
    },
    async exists (org, id) {
      return memo.hasUser(org, id) || await type(org, id) !== undefined
    },
    knownToExist: (org, id) => memo.hasUser(org, id),
    async type (org, id) { return await type(org, id) },
    knownType: (org, id) => memo.userType(org, id),
    async findByEmail (org, email) {
      const row = await byEmail.get(org, emailKey(email))
      return row === undefined ? undefined : toUser(row)
    },
    async phoneTaken (org, number) { return await phoneOwner.get(org, number) !== undefined },
    async recent (org, limit) {
      return (org === undefined ? await recentOfAll.all(limit) : await recentOfOrganization.all(org, limit)).map(toUser)
    },
    async create (u, newEvents, metadata) {
      return await write(async () => {
        const info = await insert.run(u.id, u.organizationId, u.email, emailKey(u.email), JSON.stringify(u.record), u.createdAt)
        if (info.changes === 0) return undefined
        if (metadata !== undefined) await insertMetadata({ organizationId: u.organizationId, entity: 'users', entityId: u.id }, metadata)
        for (const e of newEvents) await recordEvent(db, e)
        return u
      })
    },
    async delete (org, id, newEvents, removals) {
      return await write(async () => {
        if (await get.get(org, id) === undefined) return false
        const forget = async (entity: string, entityId: string): Promise<void> => {
          await deleteMetadata.run(org, entity, entityId)
          memo.forgetMetadata({ organizationId: org, entity, entityId })
        }
        await forget('users', id)
        for (const e of await entitiesOf.all(org, id)) await forget(e.type, e.id)
        for (const remove of removals) await remove(org, id)
        await deleteEntities.run(org, id)
        await deleteRefreshTokens.run(org, id)
        await deleteUser.run(org, id)
        for (const e of newEvents) await recordEvent(db, e)
        // Other replicas remember users (memo.ts): the bump makes them forget.
        await stale()
        memo.forgetUser(org, id)
        return true
      })
    }
  }
}

export function entityStore (db: Db): EntityStore {
  const get = db.prepare<[string, string, string], EntityRow>('SELECT * FROM entities WHERE organization_id = ? AND type = ? AND id = ?')
  const insert = db.prepare('INSERT INTO entities (id, organization_id, type, user_id, record, created_at) VALUES (?, ?, ?, ?, ?, ?)')
  const listForUser = db.prepare<[string, string], EntityRow>('SELECT * FROM entities WHERE organization_id = ? AND user_id = ? ORDER BY created_at, id')
  const write = groupCommit(db)
  return {
    async get (org, type, id) {
      const row = await get.get(org, type, id)
      return row === undefined ? undefined : toEntity(row)
    },
    async create (e) {
      try {
        await write(async () => { await insert.run(e.id, e.organizationId, e.type, e.userId, JSON.stringify(e.record), e.createdAt) })
      } catch (err) {
        if (isConstraint(err)) return undefined
        throw err
      }
      return e
    },
    async listForUser (org, userId) { return (await listForUser.all(org, userId)).map(toEntity) }
  }
}
