// The core's tables: settings, organizations, clients, refresh tokens, users, entities, metadata
// and the event outbox. Append new migrations to the list; never edit one that has shipped.
// Each has its PostgreSQL 15 text beside the SQLite one (`postgres`): the same tables, columns, keys
// and indexes, with BIGINT for INTEGER, TEXT COLLATE "C" (SQLite's binary order) and an explicit
// `rowid` where the code reads SQLite's implicit one.
import type { Migration } from './migrate.js'

const DISPATCHED_EVENTS = `
DROP INDEX events_pending;
CREATE INDEX events_pending ON events(seq) WHERE dispatched = 0;
CREATE INDEX events_dispatched ON events(created_at) WHERE dispatched = 1;
`

const ORGANIZATION_INDEXES = `
DROP INDEX refresh_tokens_client;
CREATE INDEX refresh_tokens_client ON refresh_tokens(organization_id, client_id);
CREATE INDEX entities_organization ON entities(organization_id);
CREATE INDEX metadata_organization ON metadata(organization_id);
CREATE INDEX events_organization ON events(organization_id);
`

export const migrations: Migration[] = [{
  name: '001-core',
  sql: `
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE clients (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL DEFAULT '',
  secret_salt TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  scopes TEXT NOT NULL,
  refresh_tokens INTEGER NOT NULL DEFAULT 0,
  user_id TEXT,
  -- changes on every secret rotation; tokens carry it, so older tokens read as revoked
  generation TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX clients_organization ON clients(organization_id);

CREATE TABLE refresh_tokens (
  hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  organization_id TEXT NOT NULL,
  user_id TEXT,
  scopes TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  used_at INTEGER,
  family TEXT NOT NULL
);
CREATE INDEX refresh_tokens_client ON refresh_tokens(client_id);
CREATE INDEX refresh_tokens_family ON refresh_tokens(family);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  email_key TEXT NOT NULL,
  record TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (organization_id, email_key)
);

CREATE TABLE entities (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  record TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX entities_user ON entities(user_id);

CREATE TABLE metadata (
  entity_type TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  body TEXT NOT NULL,
  etag TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (entity_type, entity_id)
);

-- The outbox: every event the API records, delivered by the webhooks area.
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL,
  dispatched INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX events_pending ON events(dispatched, seq);
`,
  postgres: `
CREATE TABLE settings (
  key TEXT COLLATE "C" PRIMARY KEY,
  value TEXT COLLATE "C" NOT NULL
);

CREATE TABLE organizations (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL
);

CREATE TABLE clients (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT COLLATE "C" NOT NULL DEFAULT '',
  secret_salt TEXT COLLATE "C" NOT NULL,
  secret_hash TEXT COLLATE "C" NOT NULL,
  scopes TEXT COLLATE "C" NOT NULL,
  refresh_tokens BIGINT NOT NULL DEFAULT 0,
  user_id TEXT COLLATE "C",
  -- changes on every secret rotation; tokens carry it, so older tokens read as revoked
  generation TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX clients_organization ON clients(organization_id);

-- rowid: SQLite's implicit row id, explicit here (insertion order).
CREATE TABLE refresh_tokens (
  hash TEXT COLLATE "C" PRIMARY KEY,
  client_id TEXT COLLATE "C" NOT NULL,
  organization_id TEXT COLLATE "C" NOT NULL,
  user_id TEXT COLLATE "C",
  scopes TEXT COLLATE "C" NOT NULL,
  expires_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  used_at BIGINT,
  family TEXT COLLATE "C" NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX refresh_tokens_rowid ON refresh_tokens(rowid);
CREATE INDEX refresh_tokens_client ON refresh_tokens(client_id);
CREATE INDEX refresh_tokens_family ON refresh_tokens(family);

-- rowid: SQLite's implicit row id, explicit here (the cooldown scan reads users in its order).
CREATE TABLE users (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email TEXT COLLATE "C" NOT NULL,
  email_key TEXT COLLATE "C" NOT NULL,
  record TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY,
  UNIQUE (organization_id, email_key)
);
CREATE UNIQUE INDEX users_rowid ON users(rowid);

CREATE TABLE entities (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  type TEXT COLLATE "C" NOT NULL,
  user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  record TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX entities_user ON entities(user_id);

CREATE TABLE metadata (
  entity_type TEXT COLLATE "C" NOT NULL,
  entity_id TEXT COLLATE "C" NOT NULL,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  body TEXT COLLATE "C" NOT NULL,
  etag TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (entity_type, entity_id)
);

-- The outbox: every event the API records, delivered by the webhooks area.
CREATE TABLE events (
  seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  id TEXT COLLATE "C" NOT NULL UNIQUE,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  type TEXT COLLATE "C" NOT NULL,
  payload TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  dispatched BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX events_pending ON events(dispatched, seq);
`
}, {
  name: '002-shared-state',
  // What every replica of one database must agree on that is not a row of its own: the sandbox
  // clock, and a version that says the cached client rows, fault rules and pins are stale.
  sql: `
CREATE TABLE shared_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  -- Bumped by every write that changes what replicas cache (clients, fault rules, pins, resets).
  version INTEGER NOT NULL DEFAULT 0,
  -- The clock as last moved through the control API: 0 until then (each process keeps its own).
  clock_version INTEGER NOT NULL DEFAULT 0,
  clock_offset_ms INTEGER NOT NULL DEFAULT 0,
  clock_frozen_at INTEGER
);
INSERT INTO shared_state (id) VALUES (1);
`,
  postgres: `
CREATE TABLE shared_state (
  id BIGINT PRIMARY KEY CHECK (id = 1),
  version BIGINT NOT NULL DEFAULT 0,
  clock_version BIGINT NOT NULL DEFAULT 0,
  clock_offset_ms BIGINT NOT NULL DEFAULT 0,
  clock_frozen_at BIGINT
);
INSERT INTO shared_state (id) VALUES (1);
`
}, {
  name: '003-organization-clocks',
  // Organizations with a clock of their own (part 3): an offset from the global clock, or the
  // instant it stands still at. No row: the organization runs on the global clock.
  sql: `
CREATE TABLE sandbox_clocks (
  organization_id TEXT PRIMARY KEY,
  offset_ms INTEGER NOT NULL,
  frozen_at INTEGER
);
`,
  postgres: `
CREATE TABLE sandbox_clocks (
  organization_id TEXT COLLATE "C" PRIMARY KEY,
  offset_ms BIGINT NOT NULL,
  frozen_at BIGINT
);
`
}, {
  name: '004-refresh-tokens-user',
  // A user's deletion removes the refresh tokens issued to it: found by index rather than by
  // reading every token. Tokens of clients acting for no user (client credentials, the most
  // numerous) are not in it, so issuing them costs nothing more.
  sql: `
CREATE INDEX refresh_tokens_user ON refresh_tokens(user_id) WHERE user_id IS NOT NULL;
`,
  postgres: `
CREATE INDEX refresh_tokens_user ON refresh_tokens(user_id) WHERE user_id IS NOT NULL;
`
}, {
  name: '005-organization-indexes',
  // An organization's rows found by index: its reset (`DELETE ... WHERE organization_id = ?`) and
  // its deletion (the cascades from `organizations`) read that organization's rows only, not every
  // organization's. The clients' tokens keep one index, led by the organization (their removal by
  // client names it); entities, metadata and events gain one.
  sql: ORGANIZATION_INDEXES,
  postgres: ORGANIZATION_INDEXES
}, {
  name: '006-dispatched-events',
  // The outbox in two indexes, each holding its part only: the events waiting for dispatch by
  // sequence (the dispatcher's read), and the dispatched ones by age (the webhooks' retention
  // deletes those recorded longer ago than WEBHOOK_RETENTION_SECONDS). Dispatching an event moves
  // it from one to the other, as it moved within the one index of both before.
  sql: DISPATCHED_EVENTS,
  postgres: DISPATCHED_EVENTS
}]
