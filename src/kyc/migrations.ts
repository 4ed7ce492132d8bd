// The KYC area's tables: each user's process states, the reviews the service owes (by due time),
// each organization's KYC configuration, and KYB onboarding statuses set by the control API.
// Append new migrations to the list; never edit one that has shipped.
import type { Migration } from '../storage/migrate.js'

const USER_LISTS = `
CREATE INDEX users_recent ON users(created_at DESC, id);
CREATE INDEX users_organization_recent ON users(organization_id, created_at DESC, id);
`

export const migrations: Migration[] = [{
  name: '001-kyc',
  sql: `
-- One row per user and process once it left its initial state; state is JSON (status, type,
-- input, output, attempts, reason, reviewDueAt).
CREATE TABLE kyc_processes (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  process TEXT NOT NULL,
  state TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, process)
);
CREATE INDEX kyc_processes_organization ON kyc_processes(organization_id);
-- The users' phone numbers (declared at creation or through KYC), for phone_already_exists.
CREATE INDEX kyc_users_phone ON users(organization_id, json_extract(record, '$.phone.number'));

-- Reviews not yet completed: the scheduler completes those whose due time (ms, sandbox clock) has come.
CREATE TABLE kyc_reviews (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  process TEXT NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  due_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, process)
);
CREATE INDEX kyc_reviews_due ON kyc_reviews(due_at);

CREATE TABLE kyc_configs (
  organization_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  config TEXT NOT NULL
);

CREATE TABLE kyb_onboarding (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
  postgres: `
-- One row per user and process once it left its initial state; state is JSON (status, type,
-- input, output, attempts, reason, reviewDueAt).
CREATE TABLE kyc_processes (
  user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  process TEXT COLLATE "C" NOT NULL,
  state TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (user_id, process)
);
CREATE INDEX kyc_processes_organization ON kyc_processes(organization_id);
-- The users' phone numbers (declared at creation or through KYC), for phone_already_exists.
CREATE INDEX kyc_users_phone ON users(organization_id, ((record)::jsonb #>> '{phone,number}'));

-- Reviews not yet completed: the scheduler completes those whose due time (ms, sandbox clock) has come.
CREATE TABLE kyc_reviews (
  user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  process TEXT COLLATE "C" NOT NULL,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  due_at BIGINT NOT NULL,
  PRIMARY KEY (user_id, process)
);
CREATE INDEX kyc_reviews_due ON kyc_reviews(due_at);

CREATE TABLE kyc_configs (
  organization_id TEXT COLLATE "C" PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  config TEXT COLLATE "C" NOT NULL
);

CREATE TABLE kyb_onboarding (
  user_id TEXT COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  status TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);
`
}, {
  name: '002-organization-indexes',
  // An organization's rows found by index: its reset and its deletion (the cascade from
  // `organizations`) read that organization's rows only, not every organization's. Here:
  // reviews and business onboardings.
  sql: `
CREATE INDEX kyc_reviews_organization ON kyc_reviews(organization_id);
CREATE INDEX kyb_onboarding_organization ON kyb_onboarding(organization_id);
`,
  postgres: `
CREATE INDEX kyc_reviews_organization ON kyc_reviews(organization_id);
CREATE INDEX kyb_onboarding_organization ON kyb_onboarding(organization_id);
`
}, {
  name: '003-user-lists',
  // The control API's lists of users with their KYC state (an organization's, and the admin's of
  // every organization), newest first, read in these indexes' order: each read sorted all of the
  // organization's users, or every user of the sandbox.
  sql: USER_LISTS,
  postgres: USER_LISTS
}]
