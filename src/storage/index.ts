// The storage registry: the core's stores, and each area's own store made once from its factory
// (`app.storage.store(webhooksStore)`). Areas reach it as `app.storage`; only store modules see
// the database.
import { groupCommit, openDatabase, type Db } from './db.js'
import { memoOf } from './memo.js'
import { migrate, type Migration } from './migrate.js'
import { onEventsCommitted } from './outbox.js'
import { metadataStore, type MetadataStore } from './metadata.js'
import { adminStore, type AdminStore } from './admin.js'
import { clientStore, entityStore, eventStore, organizationStore, refreshTokenStore, settingsStore, userStore } from './core.js'
import type {
  ClientStore, EntityStore, EventStore, OrganizationStore, RefreshTokenStore, SettingsStore, UserStore
} from './types.js'

export type * from './types.js'
export type { MetadataStore, AdminStore, Migration }

/** Makes an area's store: its statements prepared once, on this database. */
export type StoreFactory<T> = (db: Db) => T

export interface Storage {
  settings: SettingsStore
  organizations: OrganizationStore
  clients: ClientStore
  refreshTokens: RefreshTokenStore
  users: UserStore
  entities: EntityStore
  events: EventStore
  metadata: MetadataStore
  /** The store an area's module makes with `factory`, made once per database. */
  store<T> (factory: StoreFactory<T>): T
  /** Applies the migrations not applied yet (the areas', when the app is built). */
  migrate (migrations: readonly Migration[]): string[]
  /** Calls `listener` after each commit that recorded events (the webhooks area delivers them). */
  onEventsCommitted (listener: () => void): void
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
  const stores = new Map<StoreFactory<unknown>, unknown>()
  return {
    db,
    settings: settingsStore(db),
    organizations: organizationStore(db),
    clients: clientStore(db),
    refreshTokens: refreshTokenStore(db),
    users: userStore(db),
    entities: entityStore(db),
    events,
    metadata: metadataStore(db),
    store<T> (factory: StoreFactory<T>): T {
      let store = stores.get(factory) as T | undefined
      if (store === undefined) stores.set(factory, store = factory(db))
      return store
    },
    migrate: (migrations) => migrate(db, migrations),
    onEventsCommitted: (listener) => { onEventsCommitted(db, listener) },
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
