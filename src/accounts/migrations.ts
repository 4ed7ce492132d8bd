// The accounts area's tables: accounts and their deposit methods. Append new migrations to the
// list; never edit one that has shipped.
import type { Migration } from '../storage/migrate.js'

export const migrations: Migration[] = [{
  name: '001-accounts',
  sql: `
-- An account of a user in one asset. The default account of an asset is the user's oldest account
-- in it that is not archived. Archived accounts stay (their history is the ledger's) but lists
-- leave them out.
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  asset TEXT NOT NULL,
  label TEXT NOT NULL,
  archived_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
-- Lists (newest first) and defaults (oldest first) of a user read this index.
CREATE INDEX accounts_user ON accounts(organization_id, user_id, created_at, id);
CREATE INDEX accounts_user_asset ON accounts(user_id, asset, created_at, id);

-- A deposit method of an account: its details as answered, and what routes funds back to it.
-- \`family\` is the rail family the identifier is unique in (\`crypto:<network>\`, \`fps\`, \`sepa\`,
-- \`us\`); \`identifier\` the address, IBAN, sort code and account number, or US account number.
-- One identifier belongs to one account: the US networks of an account share theirs.
CREATE TABLE deposit_methods (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  asset TEXT NOT NULL,
  network TEXT NOT NULL,
  family TEXT NOT NULL,
  identifier TEXT NOT NULL,
  details TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (account_id, type, asset, network)
);
CREATE INDEX deposit_methods_route ON deposit_methods(family, identifier);
`,
  postgres: `
-- An account of a user in one asset. The default account of an asset is the user's oldest account
-- in it that is not archived. Archived accounts stay (their history is the ledger's) but lists
-- leave them out.
CREATE TABLE accounts (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  asset TEXT COLLATE "C" NOT NULL,
  label TEXT COLLATE "C" NOT NULL,
  archived_at TEXT COLLATE "C",
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);
-- Lists (newest first) and defaults (oldest first) of a user read this index.
CREATE INDEX accounts_user ON accounts(organization_id, user_id, created_at, id);
CREATE INDEX accounts_user_asset ON accounts(user_id, asset, created_at, id);

-- A deposit method of an account: its details as answered, and what routes funds back to it.
-- \`family\` is the rail family the identifier is unique in (\`crypto:<network>\`, \`fps\`, \`sepa\`,
-- \`us\`); \`identifier\` the address, IBAN, sort code and account number, or US account number.
-- One identifier belongs to one account: the US networks of an account share theirs.
CREATE TABLE deposit_methods (
  account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  type TEXT COLLATE "C" NOT NULL,
  asset TEXT COLLATE "C" NOT NULL,
  network TEXT COLLATE "C" NOT NULL,
  family TEXT COLLATE "C" NOT NULL,
  identifier TEXT COLLATE "C" NOT NULL,
  details TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (account_id, type, asset, network)
);
CREATE INDEX deposit_methods_route ON deposit_methods(family, identifier);
`
}, {
  name: '002-organization-indexes',
  // An organization's rows found by index: its reset and its deletion (the cascade from
  // `organizations`) read that organization's rows only, not every organization's. Here:
  // deposit methods.
  sql: `
CREATE INDEX deposit_methods_organization ON deposit_methods(organization_id);
`,
  postgres: `
CREATE INDEX deposit_methods_organization ON deposit_methods(organization_id);
`
}]
