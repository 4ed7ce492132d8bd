// The quotes area's tables. Append new migrations to the list; never edit one that has shipped.
import type { Migration } from '../storage/migrate.js'

export const migrations: Migration[] = [{
  name: '001-quotes',
  sql: `
-- A quote as answered (body, JSON), immutable, usable once: used_at is set by the one consume
-- that succeeds. expires_at is ms on the sandbox clock. usd_value and limit_group feed the daily
-- limits (the value of consumed quotes of a group within a UTC day).
CREATE TABLE quotes (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  body TEXT NOT NULL,
  limit_group TEXT NOT NULL,
  usd_value TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  created_at TEXT NOT NULL
);
CREATE INDEX quotes_used ON quotes(user_id, limit_group, used_at) WHERE used_at IS NOT NULL;
`,
  postgres: `
-- A quote as answered (body, JSON), immutable, usable once: used_at is set by the one consume
-- that succeeds. expires_at is ms on the sandbox clock. usd_value and limit_group feed the daily
-- limits (the value of consumed quotes of a group within a UTC day).
CREATE TABLE quotes (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  body TEXT COLLATE "C" NOT NULL,
  limit_group TEXT COLLATE "C" NOT NULL,
  usd_value TEXT COLLATE "C" NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT,
  created_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX quotes_used ON quotes(user_id, limit_group, used_at) WHERE used_at IS NOT NULL;
`
}, {
  name: '002-quotes-user',
  // A user's deletion cascades to its quotes: found by index rather than by reading every quote of
  // every organization. quotes_used held only the used ones; the same index over every quote
  // serves both the cascade and the daily limits (`used_at >= ?` leaves the unused ones out), so
  // a quote is still written to one index.
  sql: `
DROP INDEX quotes_used;
CREATE INDEX quotes_user ON quotes(user_id, limit_group, used_at);
`,
  postgres: `
DROP INDEX quotes_used;
CREATE INDEX quotes_user ON quotes(user_id, limit_group, used_at);
`
}, {
  name: '003-organization-indexes',
  // An organization's rows found by index: its reset and its deletion (the cascade from
  // `organizations`) read that organization's rows only, not every organization's. Here:
  // quotes.
  sql: `
CREATE INDEX quotes_organization ON quotes(organization_id);
`,
  postgres: `
CREATE INDEX quotes_organization ON quotes(organization_id);
`
}]
