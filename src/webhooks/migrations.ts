// The webhooks area's tables: management links, endpoints, messages and their delivery attempts.
// Append new migrations to the list; never edit one that has shipped.
import type { Migration } from '../storage/migrate.js'

export const migrations: Migration[] = [{
  name: '001-webhooks',
  sql: `
-- Management links: only the SHA-256 of the link's token is kept; expired rows stay so an old link
-- answers "expired" rather than "invalid".
CREATE TABLE management_links (
  token_hash TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  expires_at INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX management_links_organization ON management_links(organization_id);

CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  -- JSON array of event types; empty means every event type
  event_types TEXT NOT NULL,
  disabled INTEGER NOT NULL DEFAULT 0,
  secret TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_organization ON webhook_endpoints(organization_id);

-- One message per (event, endpoint): the exact body sent on every attempt and its delivery state.
CREATE TABLE webhook_messages (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt_count INTEGER NOT NULL DEFAULT 0,
  -- sandbox-clock milliseconds of the next attempt; NULL once delivered or failed
  next_attempt_at INTEGER,
  created_at TEXT NOT NULL,
  -- fanning an event out twice (a crash before the outbox row is marked) adds nothing
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_messages_due ON webhook_messages(status, next_attempt_at);
CREATE INDEX webhook_messages_organization ON webhook_messages(organization_id);
CREATE INDEX webhook_messages_endpoint ON webhook_messages(endpoint_id);

CREATE TABLE webhook_attempts (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  message_id TEXT NOT NULL REFERENCES webhook_messages(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  attempted_at TEXT NOT NULL,
  status_code INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  response_body TEXT NOT NULL DEFAULT ''
);
CREATE INDEX webhook_attempts_message ON webhook_attempts(message_id);
CREATE INDEX webhook_attempts_organization ON webhook_attempts(organization_id);
`
}]
