// The storage module: one object holding every store, each owning its SQL. Areas reach it as
// `app.storage`; nothing else touches the database.
import { groupCommit, openDatabase, type Db } from './db.js'
import { memoOf } from './memo.js'
import { metadataStore, type MetadataStore } from './metadata.js'
import { webhooksStore, type WebhooksStore } from './webhooks.js'
import { adminStore, type AdminStore } from './admin.js'
import { clientStore, entityStore, eventStore, organizationStore, refreshTokenStore, settingsStore, userStore } from './core.js'
import type {
  ClientStore, EntityStore, EventStore, OrganizationStore, RefreshTokenStore, SettingsStore, UserStore
} from './types.js'

export type * from './types.js'
export type { MetadataStore, WebhooksStore, AdminStore }

export interface Storage {
  settings: SettingsStore
  organizations: OrganizationStore
  clients: ClientStore
  refreshTokens: RefreshTokenStore
  users: UserStore
  entities: EntityStore
  events: EventStore
  metadata: MetadataStore
  webhooks: WebhooksStore
  /** Sandbox-only operations across every table: reset, fixtures. */
  admin: AdminStore
  /**
   * Drops what the storage remembers of rows it read (see memo.ts): for whoever wrote the
   * database behind its back, through `db` (tests).
   */
  forget (): void
  /** Checks the database answers (the health route). */
  ping (): Promise<boolean>
  close (): Promise<void>
  /** The handle, for stores added by other modules of this folder and for tests of stored state. */
  readonly db: Db
}

export function openStorage (path: string): Storage {
  const db = openDatabase(path)
  const events = eventStore(db)
  const ping = db.prepare('SELECT 1')
  return {
    db,
    settings: settingsStore(db),
    organizations: organizationStore(db),
    clients: clientStore(db),
    refreshTokens: refreshTokenStore(db),
    users: userStore(db, events),
    entities: entityStore(db),
    events,
    metadata: metadataStore(db),
    webhooks: webhooksStore(db),
    admin: adminStore(db),
    forget () { memoOf(db).clear() },
    async ping () { return ping.get() !== undefined },
    async close () {
      if (!db.open) return
      groupCommit(db).flush()
      db.close()
    }
  }
}
