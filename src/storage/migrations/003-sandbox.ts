export default {
  version: 3,
  name: 'sandbox',
  sql: `
-- Seed files (SEED_FILE) already loaded into this database, by SHA-256 of their content, so a
-- restart does not load the same seed twice. A full reset empties it, like every other table.
CREATE TABLE sandbox_seeds (
  digest TEXT PRIMARY KEY,
  loaded_at TEXT NOT NULL
);
`
}
