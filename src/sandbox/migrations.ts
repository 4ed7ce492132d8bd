// The sandbox area's tables. Append new migrations to the list; never edit one that has shipped.
import type { Migration } from '../storage/migrate.js'

export const migrations: Migration[] = [{
  name: '001-seeds',
  sql: `
-- Seed files (SEED_FILE) already loaded into this database, by SHA-256 of their content, so a
-- restart does not load the same seed twice. A full reset empties it, like every other table.
CREATE TABLE sandbox_seeds (
  digest TEXT PRIMARY KEY,
  loaded_at TEXT NOT NULL
);
`,
  postgres: `
-- Seed files (SEED_FILE) already loaded into this database, by SHA-256 of their content, so a
-- restart does not load the same seed twice. A full reset empties it, like every other table.
CREATE TABLE sandbox_seeds (
  digest TEXT COLLATE "C" PRIMARY KEY,
  loaded_at TEXT COLLATE "C" NOT NULL
);
`
}]
