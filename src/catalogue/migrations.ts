// The catalogue area's tables: fixture entries, pinned prices and the version token. Append new
// migrations to the list; never edit one that has shipped.
import type { Migration } from '../storage/migrate.js'
import { catalogueMigration } from './store.js'

export const migrations: Migration[] = [{
  ...catalogueMigration,
  // rowid: SQLite's implicit row id, explicit here (entries are read in insertion order).
  postgres: `
-- Catalogue entries a fixture added or changed, by kind (asset, network, rail, country) and key
-- (a code; for rails "network method asset"); value is the entry as JSON.
CREATE TABLE catalogue_entries (
  kind TEXT COLLATE "C" NOT NULL,
  key TEXT COLLATE "C" NOT NULL,
  value TEXT COLLATE "C" NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (kind, key)
);
CREATE UNIQUE INDEX catalogue_entries_rowid ON catalogue_entries(rowid);
-- Pinned USD mid prices (POST /_sandbox/rates), in force from pinned_at (ms, sandbox clock)
-- (002-pin-history keeps every pin of an asset).
CREATE TABLE catalogue_pins (
  asset TEXT COLLATE "C" PRIMARY KEY,
  mid TEXT COLLATE "C" NOT NULL,
  pinned_at BIGINT NOT NULL
);
-- One row: a token set anew by every write; empty after a reset.
CREATE TABLE catalogue_version (
  id BIGINT PRIMARY KEY CHECK (id = 1),
  token TEXT COLLATE "C" NOT NULL
);
`
}, {
  name: '002-pin-history',
  sql: `
-- Pinned prices keep their history: each pin is in force from its instant until the next pin of
-- the same asset, so past valuations (historical balances, statements, average cost) see the price
-- that was pinned then. A pin removes the asset's pins at or after its own instant.
CREATE TABLE catalogue_pins_history (
  asset TEXT NOT NULL,
  mid TEXT NOT NULL,
  pinned_at INTEGER NOT NULL,
  PRIMARY KEY (asset, pinned_at)
);
INSERT INTO catalogue_pins_history (asset, mid, pinned_at) SELECT asset, mid, pinned_at FROM catalogue_pins;
DROP TABLE catalogue_pins;
ALTER TABLE catalogue_pins_history RENAME TO catalogue_pins;
`,
  // SQLite rebuilds the table for its new key; PostgreSQL changes the key in place (the rows stay).
  postgres: `
-- Pinned prices keep their history: each pin is in force from its instant until the next pin of
-- the same asset, so past valuations (historical balances, statements, average cost) see the price
-- that was pinned then. A pin removes the asset's pins at or after its own instant.
ALTER TABLE catalogue_pins DROP CONSTRAINT catalogue_pins_pkey, ADD PRIMARY KEY (asset, pinned_at);
`
}, {
  name: '003-organization-pins',
  // Each organization pins its own prices (part 3): '' is a pin of the admin's for every
  // organization; an organization's pins of an asset replace those for it.
  sql: `
CREATE TABLE catalogue_pins_by_organization (
  organization_id TEXT NOT NULL DEFAULT '',
  asset TEXT NOT NULL,
  mid TEXT NOT NULL,
  pinned_at INTEGER NOT NULL,
  PRIMARY KEY (organization_id, asset, pinned_at)
);
INSERT INTO catalogue_pins_by_organization (organization_id, asset, mid, pinned_at) SELECT '', asset, mid, pinned_at FROM catalogue_pins;
DROP TABLE catalogue_pins;
ALTER TABLE catalogue_pins_by_organization RENAME TO catalogue_pins;
`,
  // Rebuilt on both, so the columns come in the same order.
  postgres: `
CREATE TABLE catalogue_pins_by_organization (
  organization_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  asset TEXT COLLATE "C" NOT NULL,
  mid TEXT COLLATE "C" NOT NULL,
  pinned_at BIGINT NOT NULL,
  PRIMARY KEY (organization_id, asset, pinned_at)
);
INSERT INTO catalogue_pins_by_organization (organization_id, asset, mid, pinned_at) SELECT '', asset, mid, pinned_at FROM catalogue_pins;
DROP TABLE catalogue_pins;
ALTER TABLE catalogue_pins_by_organization RENAME TO catalogue_pins;
`
}]
