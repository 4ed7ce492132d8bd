// The storage registry: the core's stores, and each area's own store made once from its factory
// (`app.storage.store(webhooksStore)`). Areas reach it as `app.storage`; only store modules see
// the database.
import { openPostgres, openSqlite, type Db } from './db.js'
import { migrations as coreMigrations } from './core-migrations.js'
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
  migrate (migrations: readonly Migration[]): Promise<string[]>
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

export interface StorageOptions {
  /** The SQLite file (or `:memory:`), when there is no `databaseUrl`. */
  databasePath: string
  /** PostgreSQL (`postgres://...`): replicas share it. */
  databaseUrl?: string
  /** How long a PostgreSQL connection may take to open. */
  connectTimeoutSeconds?: number
  /** Connections of this process to PostgreSQL. */
  poolSize?: number
}

/** Opens the database the options name, and applies the core's migrations. */
export async function openStorage (options: StorageOptions | string): Promise<Storage> {
  const o = typeof options === 'string' ? { databasePath: options } : options
  const db: Db = o.databaseUrl !== undefined && o.databaseUrl !== ''
    ? await openPostgres({ url: o.databaseUrl, connectTimeoutSeconds: o.connectTimeoutSeconds, max: o.poolSize })
    : openSqlite(o.databasePath)
  try {
    await migrate(db, coreMigrations.map(m => ({ ...m, name: `core/${m.name}` })))
  } catch (error) {
    await db.close().catch(() => {})
    throw error
  }
  return storageOn(db)
}

function storageOn (db: Db): Storage {
  const events = eventStore(db)
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
    migrate: async (migrations) => await migrate(db, migrations),
    onEventsCommitted: (listener) => { onEventsCommitted(db, listener) },
    admin: adminStore(db),
    forget () { memoOf(db).clear() },
    async ping () { return await db.ping() },
    async close () { await db.close() }
  }
}
