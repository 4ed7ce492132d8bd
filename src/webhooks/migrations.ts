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
`,
  postgres: `
-- Management links: only the SHA-256 of the link's token is kept; expired rows stay so an old link
-- answers "expired" rather than "invalid".
-- rowid (here and below): SQLite's implicit row id, explicit here (insertion order).
CREATE TABLE management_links (
  token_hash TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  expires_at BIGINT NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX management_links_rowid ON management_links(rowid);
CREATE INDEX management_links_organization ON management_links(organization_id);

CREATE TABLE webhook_endpoints (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  url TEXT COLLATE "C" NOT NULL,
  description TEXT COLLATE "C" NOT NULL DEFAULT '',
  -- JSON array of event types; empty means every event type
  event_types TEXT COLLATE "C" NOT NULL,
  disabled BIGINT NOT NULL DEFAULT 0,
  secret TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX webhook_endpoints_rowid ON webhook_endpoints(rowid);
CREATE INDEX webhook_endpoints_organization ON webhook_endpoints(organization_id);

-- One message per (event, endpoint): the exact body sent on every attempt and its delivery state.
CREATE TABLE webhook_messages (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  endpoint_id TEXT COLLATE "C" NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id TEXT COLLATE "C" NOT NULL,
  event_type TEXT COLLATE "C" NOT NULL,
  body TEXT COLLATE "C" NOT NULL,
  status TEXT COLLATE "C" NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt_count BIGINT NOT NULL DEFAULT 0,
  -- sandbox-clock milliseconds of the next attempt; NULL once delivered or failed
  next_attempt_at BIGINT,
  created_at TEXT COLLATE "C" NOT NULL,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY,
  -- fanning an event out twice (a crash before the outbox row is marked) adds nothing
  UNIQUE (event_id, endpoint_id)
);
CREATE UNIQUE INDEX webhook_messages_rowid ON webhook_messages(rowid);
CREATE INDEX webhook_messages_due ON webhook_messages(status, next_attempt_at);
CREATE INDEX webhook_messages_organization ON webhook_messages(organization_id);
CREATE INDEX webhook_messages_endpoint ON webhook_messages(endpoint_id);

CREATE TABLE webhook_attempts (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  message_id TEXT COLLATE "C" NOT NULL REFERENCES webhook_messages(id) ON DELETE CASCADE,
  url TEXT COLLATE "C" NOT NULL,
  attempted_at TEXT COLLATE "C" NOT NULL,
  status_code BIGINT,
  error TEXT COLLATE "C",
  duration_ms BIGINT NOT NULL,
  response_body TEXT COLLATE "C" NOT NULL DEFAULT '',
  rowid BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX webhook_attempts_rowid ON webhook_attempts(rowid);
CREATE INDEX webhook_attempts_message ON webhook_attempts(message_id);
CREATE INDEX webhook_attempts_organization ON webhook_attempts(organization_id);
`
}, {
  name: '002-rotation-retention',
  sql: `
-- Signing-secret rotation (Standard Webhooks): the secret a rotation replaced keeps signing, beside
-- the new one, until previous_secret_expires_at (sandbox-clock milliseconds).
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret TEXT;
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_expires_at INTEGER;

-- Retention: when a message was settled (delivered, or failed with no retry left), in sandbox-clock
-- milliseconds; NULL while it is pending. Messages settled before this column existed take the
-- time of their last attempt (else their creation).
ALTER TABLE webhook_messages ADD COLUMN settled_at INTEGER;
UPDATE webhook_messages SET settled_at = CAST(ROUND((julianday(COALESCE(
    (SELECT MAX(a.attempted_at) FROM webhook_attempts a WHERE a.message_id = webhook_messages.id), created_at
  )) - 2440587.5) * 86400000) AS INTEGER)
  WHERE status IN ('delivered', 'failed');
CREATE INDEX webhook_messages_settled ON webhook_messages(settled_at) WHERE settled_at IS NOT NULL;

-- Retention of expired management links.
CREATE INDEX management_links_expiry ON management_links(expires_at);
`,
  postgres: `
-- Signing-secret rotation (Standard Webhooks): the secret a rotation replaced keeps signing, beside
-- the new one, until previous_secret_expires_at (sandbox-clock milliseconds).
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret TEXT COLLATE "C";
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_expires_at BIGINT;

-- Retention: when a message was settled (delivered, or failed with no retry left), in sandbox-clock
-- milliseconds; NULL while it is pending. Messages settled before this column existed take the
-- time of their last attempt (else their creation).
-- (SQLite's julianday reads a time without an offset as UTC, one with Z or +hh:mm as such.)
ALTER TABLE webhook_messages ADD COLUMN settled_at BIGINT;
UPDATE webhook_messages SET settled_at = CAST(ROUND(EXTRACT(EPOCH FROM (
    SELECT CASE WHEN s.t ~ '([Zz]|[+-][0-9]{2}:?[0-9]{2})$' THEN CAST(s.t AS TIMESTAMPTZ)
      ELSE CAST(s.t AS TIMESTAMP) AT TIME ZONE 'UTC' END
    FROM (SELECT COALESCE(
      (SELECT MAX(a.attempted_at) FROM webhook_attempts a WHERE a.message_id = webhook_messages.id), created_at
    ) AS t) s
  )) * 1000) AS BIGINT)
  WHERE status IN ('delivered', 'failed');
CREATE INDEX webhook_messages_settled ON webhook_messages(settled_at) WHERE settled_at IS NOT NULL;

-- Retention of expired management links.
CREATE INDEX management_links_expiry ON management_links(expires_at);
`
}, {
  // Deliveries in event order per endpoint look up each endpoint's older pending messages.
  name: '003-ordered-delivery',
  sql: 'CREATE INDEX webhook_messages_endpoint_pending ON webhook_messages(endpoint_id, status)',
  postgres: 'CREATE INDEX webhook_messages_endpoint_pending ON webhook_messages(endpoint_id, status)'
}, {
  // Replicas on one database (PostgreSQL) take turns at deliveries: an attempt is made by the
  // replica whose claim on the message holds (lease_owner, a token of the claim) until lease_until
  // (milliseconds of the database's clock); a claim that lapses leaves the message to the others.
  // Unused on SQLite, whose one process is the only one delivering.
  name: '004-delivery-leases',
  sql: `
ALTER TABLE webhook_messages ADD COLUMN lease_owner TEXT;
ALTER TABLE webhook_messages ADD COLUMN lease_until INTEGER;
`,
  postgres: `
ALTER TABLE webhook_messages ADD COLUMN lease_owner TEXT COLLATE "C";
ALTER TABLE webhook_messages ADD COLUMN lease_until BIGINT;
`
}]
