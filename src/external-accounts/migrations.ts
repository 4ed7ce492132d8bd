// The external accounts area's tables. Append new migrations to the list; never edit one that has
// shipped.
import type { Migration } from '../storage/migrate.js'

export const migrations: Migration[] = [{
  name: '001-external-accounts',
  sql: `
-- A card or bank account of a user outside the service. A card keeps only what the API shows
-- (brand, type, last four digits, expiry in details) and a keyed digest of its number (HMAC, a
-- key of the database's) to find duplicates: never the number. check_due_at is when a processing card's check ends (ms on the
-- sandbox clock); expires_at when a card's expiry month ends.
CREATE TABLE external_accounts (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  status_reason TEXT,
  label TEXT NOT NULL,
  asset TEXT NOT NULL,
  network TEXT NOT NULL,
  features TEXT NOT NULL,
  details TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  behaviour TEXT,
  check_due_at INTEGER,
  expires_at INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX external_accounts_user ON external_accounts(organization_id, user_id, created_at);
CREATE INDEX external_accounts_fingerprint ON external_accounts(user_id, fingerprint);
CREATE INDEX external_accounts_check_due ON external_accounts(check_due_at) WHERE check_due_at IS NOT NULL;
CREATE INDEX external_accounts_expiry ON external_accounts(expires_at) WHERE expires_at IS NOT NULL AND status <> 'expired';
`,
  postgres: `
-- A card or bank account of a user outside the service. A card keeps only what the API shows
-- (brand, type, last four digits, expiry in details) and a keyed digest of its number (HMAC, a
-- key of the database's) to find duplicates: never the number. check_due_at is when a processing card's check ends (ms on the
-- sandbox clock); expires_at when a card's expiry month ends.
CREATE TABLE external_accounts (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type TEXT COLLATE "C" NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  status_reason TEXT COLLATE "C",
  label TEXT COLLATE "C" NOT NULL,
  asset TEXT COLLATE "C" NOT NULL,
  network TEXT COLLATE "C" NOT NULL,
  features TEXT COLLATE "C" NOT NULL,
  details TEXT COLLATE "C" NOT NULL,
  fingerprint TEXT COLLATE "C" NOT NULL,
  behaviour TEXT COLLATE "C",
  check_due_at BIGINT,
  expires_at BIGINT,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX external_accounts_user ON external_accounts(organization_id, user_id, created_at);
CREATE INDEX external_accounts_fingerprint ON external_accounts(user_id, fingerprint);
CREATE INDEX external_accounts_check_due ON external_accounts(check_due_at) WHERE check_due_at IS NOT NULL;
CREATE INDEX external_accounts_expiry ON external_accounts(expires_at) WHERE expires_at IS NOT NULL AND status <> 'expired';
`
}, {
  name: '002-organization-permissions',
  sql: `
-- What an organization may do with external accounts and quotes (the organizationPermissions
-- fixture key), as JSON; no row means everything is allowed.
CREATE TABLE organization_permissions (
  organization_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  permissions TEXT NOT NULL
);
`,
  postgres: `
-- What an organization may do with external accounts and quotes (the organizationPermissions
-- fixture key), as JSON; no row means everything is allowed.
CREATE TABLE organization_permissions (
  organization_id TEXT COLLATE "C" PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  permissions TEXT COLLATE "C" NOT NULL
);
`
}, {
  name: '003-cards-added',
  sql: `
-- Every distinct card a user ever added (by the keyed digest of its number), kept when the card is
-- deleted: the organization's limit on unique cards counts them. The cards held before count too.
CREATE TABLE external_account_cards_added (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  fingerprint TEXT NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  added_at TEXT NOT NULL,
  PRIMARY KEY (user_id, fingerprint)
);
INSERT OR IGNORE INTO external_account_cards_added (user_id, fingerprint, organization_id, added_at)
  SELECT user_id, fingerprint, organization_id, created_at FROM external_accounts WHERE type = 'card';
`,
  postgres: `
CREATE TABLE external_account_cards_added (
  user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  fingerprint TEXT COLLATE "C" NOT NULL,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  added_at TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (user_id, fingerprint)
);
INSERT INTO external_account_cards_added (user_id, fingerprint, organization_id, added_at)
  SELECT user_id, fingerprint, organization_id, created_at FROM external_accounts WHERE type = 'card'
  ON CONFLICT DO NOTHING;
`
}, {
  name: '004-organization-indexes',
  // An organization's rows found by index: its reset and its deletion (the cascade from
  // `organizations`) read that organization's rows only, not every organization's. Here:
  // cards added.
  sql: `
CREATE INDEX external_account_cards_added_organization ON external_account_cards_added(organization_id);
`,
  postgres: `
CREATE INDEX external_account_cards_added_organization ON external_account_cards_added(organization_id);
`
}]
