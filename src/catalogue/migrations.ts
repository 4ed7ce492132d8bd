// The catalogue area's tables: fixture entries, pinned prices and the version token. Append new
// migrations to the list; never edit one that has shipped.
import type { Migration } from '../storage/migrate.js'
import { catalogueMigration } from './store.js'

export const migrations: Migration[] = [catalogueMigration, {
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
`
}]
