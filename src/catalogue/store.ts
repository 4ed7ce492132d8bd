// The catalogue store: what fixtures added or changed, and the pinned
// prices. Every statement is prepared once, here. Each write also sets a new random version
// token, so a process holding a snapshot can tell, by reading one row, whether it is still right.
import { randomUUID } from 'node:crypto'
import { groupCommit, type Db } from '../storage/db.js'
import { onePerTurn } from '../turn-batch.js'
import type { Rail } from '../../schemas/catalogue.js'
import { noChanges, railKey, type CatalogueChanges } from './catalogue.js'
import type { AssetEntry, NetworkEntry } from './data.js'
import type { CountryOverride } from './countries.js'

export const catalogueMigration = {
  name: '001-catalogue',
  sql: `
-- Catalogue entries a fixture added or changed, by kind (asset, network, rail, country) and key
-- (a code; for rails "network method asset"); value is the entry as JSON.
CREATE TABLE catalogue_entries (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (kind, key)
);
-- Pinned USD mid prices (POST /_sandbox/rates), in force from pinned_at (ms, sandbox clock)
-- (002-pin-history keeps every pin of an asset).
CREATE TABLE catalogue_pins (
  asset TEXT PRIMARY KEY,
  mid TEXT NOT NULL,
  pinned_at INTEGER NOT NULL
);
-- One row: a token set anew by every write; empty after a reset.
CREATE TABLE catalogue_version (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  token TEXT NOT NULL
);
`
}

/** The entries a fixture brings, already checked. */
export interface CatalogueEntries {
  assets: AssetEntry[]
  networks: NetworkEntry[]
  rails: Rail[]
  countries: CountryOverride[]
}

export interface CatalogueStore {
  version: () => Promise<string>
  load: () => Promise<{ version: string, changes: CatalogueChanges }>
  /** Adds or replaces entries, all in one transaction. */
  putEntries: (entries: CatalogueEntries) => Promise<void>
  /** Adds or replaces entries inside a transaction the caller holds (a fixture's one write). */
  putEntriesNow: (entries: CatalogueEntries) => Promise<void>
  /**
   * Pins an asset's USD mid price from an instant on (until its next pin; earlier pins stay in
   * force before it), for one organization, or (undefined) for every organization without its own.
   */
  pin: (organizationId: string | undefined, asset: string, mid: string, pinnedAt: number) => Promise<void>
  /** Releases one asset's pinned price, or every one, of one organization or (undefined) of all; answers how many were released. */
  release: (organizationId: string | undefined, asset?: string) => Promise<number>
  /** Forgets every entry and pin. */
  clear: () => Promise<void>
}

const EMPTY = 'empty'

export function catalogueStore (db: Db): CatalogueStore {
  const version = db.prepare<[], { token: string }>('SELECT token FROM catalogue_version WHERE id = 1')
  const bump = db.prepare('INSERT INTO catalogue_version (id, token) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET token = excluded.token')
  const entries = db.prepare<[], { kind: string, key: string, value: string }>('SELECT kind, key, value FROM catalogue_entries ORDER BY rowid')
  const pins = db.prepare<[], { organization_id: string, asset: string, mid: string, pinned_at: number }>(
    'SELECT organization_id, asset, mid, pinned_at FROM catalogue_pins ORDER BY organization_id, asset, pinned_at')
  const putEntry = db.prepare('INSERT INTO catalogue_entries (kind, key, value) VALUES (?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value')
  // A pin replaces the asset's price from its instant on: later pins of the asset go (the clock may have moved back).
  const dropLater = db.prepare('DELETE FROM catalogue_pins WHERE organization_id = ? AND asset = ? AND pinned_at >= ?')
  const putPin = db.prepare('INSERT INTO catalogue_pins (organization_id, asset, mid, pinned_at) VALUES (?, ?, ?, ?)')
  const releaseOne = db.prepare('DELETE FROM catalogue_pins WHERE organization_id = ? AND asset = ?')
  const releaseOrganization = db.prepare('DELETE FROM catalogue_pins WHERE organization_id = ?')
  const releaseEveryOne = db.prepare('DELETE FROM catalogue_pins WHERE asset = ?')
  const releaseAll = db.prepare('DELETE FROM catalogue_pins')
  const clearEntries = db.prepare('DELETE FROM catalogue_entries')

  const put = async ({ assets, networks, rails, countries }: CatalogueEntries): Promise<void> => {
    for (const a of assets) await putEntry.run('asset', a.code, JSON.stringify(a))
    for (const n of networks) await putEntry.run('network', n.code, JSON.stringify(n))
    for (const r of rails) await putEntry.run('rail', railKey(r), JSON.stringify(r))
    for (const c of countries) await putEntry.run('country', c.code, JSON.stringify(c))
  }
  const current = async (): Promise<string> => (await version.get())?.token ?? EMPTY
  // Every request that prices something asks for the version first. On PostgreSQL the requests of
  // one turn share one read of it (onePerTurn says why that sees every acknowledged write); inside a
  // write, the write's own transaction is asked. SQLite reads it in process.
  const shared = db.dialect === 'postgres' ? onePerTurn(current) : current
  const commit = groupCommit(db)
  // Through the group commit, like every request-path write; it may run a write twice (a new
  // token each time does no harm).
  const write = <T>(work: () => Promise<T>): Promise<T> => commit(async () => {
    const result = await work()
    await bump.run(randomUUID())
    return result
  })

  return {
    async version () { return await (db.inTransaction ? current() : shared()) },

    async load () {
      // Entries, pins and version read together, inside one write (which writes nothing): no write
      // commits between them, so the version names exactly the snapshot read.
      return await commit(async () => {
        const changes = noChanges()
        for (const row of await entries.all()) {
          const value = JSON.parse(row.value)
          if (row.kind === 'asset') changes.assets.push(value as AssetEntry)
          else if (row.kind === 'network') changes.networks.push(value as NetworkEntry)
          else if (row.kind === 'rail') changes.rails.push(value as Rail)
          else if (row.kind === 'country') changes.countries.push(value as CountryOverride)
        }
        for (const p of await pins.all()) {
          const pin = { mid: p.mid, pinnedAt: Number(p.pinned_at) }
          const own = p.organization_id === '' ? changes : (changes.organizationPins[p.organization_id] ??= { pins: {}, pinHistory: {} })
          own.pins[p.asset] = pin
          ;(own.pinHistory[p.asset] ??= []).push(pin)
        }
        return { version: await current(), changes }
      })
    },

    async putEntries (entries) {
      await write(async () => { await put(entries) })
    },

    async putEntriesNow (entries) {
      await put(entries)
      await bump.run(randomUUID())
    },

    async pin (organizationId, asset, mid, pinnedAt) {
      const owner = organizationId ?? ''
      await write(async () => { await dropLater.run(owner, asset, pinnedAt); await putPin.run(owner, asset, mid, pinnedAt) })
    },

    async release (organizationId, asset) {
      return await write(async () => {
        if (organizationId === undefined) return (asset === undefined ? await releaseAll.run() : await releaseEveryOne.run(asset)).changes
        return (asset === undefined ? await releaseOrganization.run(organizationId) : await releaseOne.run(organizationId, asset)).changes
      })
    },

    async clear () {
      await write(async () => { await clearEntries.run(); await releaseAll.run() })
    }
  }
}
