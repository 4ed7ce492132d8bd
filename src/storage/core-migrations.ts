// The core's tables: settings, organizations, clients, refresh tokens, users, entities, metadata
// and the event outbox. Append new migrations to the list; never edit one that has shipped.
import type { Migration } from './migrate.js'

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
`
}]
