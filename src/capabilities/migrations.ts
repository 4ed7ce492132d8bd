// The capabilities area's tables: terms of service accepted through the API, and financial-
// promotions cooldowns. Append new migrations to the list; never edit one that has shipped.
import type { Migration } from '../storage/migrate.js'

export const migrations: Migration[] = [{
  name: '001-capabilities',
  sql: `
-- Terms accepted through core.accept-terms-of-service (the general terms are accepted when the user
-- is created, and read from the user).
CREATE TABLE terms_acceptances (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  code TEXT NOT NULL,
  accepted_at TEXT NOT NULL,
  ip TEXT NOT NULL,
  PRIMARY KEY (user_id, code)
);

-- A user's financial-promotions cooldown: the assets and features it holds back until ends_at
-- (ms, sandbox clock); ended_at once the clock passed it or the test helper skipped it.
CREATE TABLE cooldowns (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  assets TEXT NOT NULL,
  features TEXT NOT NULL,
  ends_at INTEGER NOT NULL,
  ended_at TEXT
);
CREATE INDEX cooldowns_running ON cooldowns(ends_at) WHERE ended_at IS NULL;
`,
  postgres: `
-- Terms accepted through core.accept-terms-of-service (the general terms are accepted when the user
-- is created, and read from the user).
CREATE TABLE terms_acceptances (
  user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  code TEXT COLLATE "C" NOT NULL,
  accepted_at TEXT COLLATE "C" NOT NULL,
  ip TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (user_id, code)
);

-- A user's financial-promotions cooldown: the assets and features it holds back until ends_at
-- (ms, sandbox clock); ended_at once the clock passed it or the test helper skipped it.
CREATE TABLE cooldowns (
  user_id TEXT COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  assets TEXT COLLATE "C" NOT NULL,
  features TEXT COLLATE "C" NOT NULL,
  ends_at BIGINT NOT NULL,
  ended_at TEXT COLLATE "C"
);
CREATE INDEX cooldowns_running ON cooldowns(ends_at) WHERE ended_at IS NULL;
`
}, {
  // How far the cooldown follower has read the users table (by rowid): each new user is looked at
  // once, so a cooldown starts with its user, not when it is first read.
  name: '002-cooldown-scan',
  sql: 'CREATE TABLE cooldown_scan (id INTEGER PRIMARY KEY CHECK (id = 1), last_user_rowid INTEGER NOT NULL)',
  postgres: 'CREATE TABLE cooldown_scan (id BIGINT PRIMARY KEY CHECK (id = 1), last_user_rowid BIGINT NOT NULL)'
}, {
  name: '003-organization-indexes',
  // An organization's rows found by index: its reset and its deletion (the cascade from
  // `organizations`) read that organization's rows only, not every organization's. Here:
  // terms accepted and cooldowns.
  sql: `
CREATE INDEX terms_acceptances_organization ON terms_acceptances(organization_id);
CREATE INDEX cooldowns_organization ON cooldowns(organization_id);
`,
  postgres: `
CREATE INDEX terms_acceptances_organization ON terms_acceptances(organization_id);
CREATE INDEX cooldowns_organization ON cooldowns(organization_id);
`
}]
