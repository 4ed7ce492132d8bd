// The files area's tables: file records and their uploaded bytes. Append new migrations to the
// list; never edit one that has shipped.
import type { Migration } from '../storage/migrate.js'

export const migrations: Migration[] = [{
  name: '001-files',
  sql: `
-- A file of a user: created pending by core.create-file, uploaded once its bytes arrive through
-- the upload target. A user's deletion takes its files (and their bytes) with it.
CREATE TABLE files (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  category TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER,
  created_at TEXT NOT NULL,
  uploaded_at TEXT
);
CREATE INDEX files_user ON files(organization_id, user_id);

-- The bytes of an uploaded file, apart from its record so reading a record never loads them.
CREATE TABLE file_contents (
  file_id TEXT PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  bytes BLOB NOT NULL
);
`,
  postgres: `
-- A file of a user: created pending by core.create-file, uploaded once its bytes arrive through
-- the upload target. A user's deletion takes its files (and their bytes) with it.
CREATE TABLE files (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  status TEXT COLLATE "C" NOT NULL,
  category TEXT COLLATE "C" NOT NULL,
  content_type TEXT COLLATE "C" NOT NULL,
  size BIGINT,
  created_at TEXT COLLATE "C" NOT NULL,
  uploaded_at TEXT COLLATE "C"
);
CREATE INDEX files_user ON files(organization_id, user_id);

-- The bytes of an uploaded file, apart from its record so reading a record never loads them.
CREATE TABLE file_contents (
  file_id TEXT COLLATE "C" PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  bytes BYTEA NOT NULL
);
`
}, {
  name: '002-files-user',
  // A user's deletion cascades to its files: found by index (files_user starts with the organization).
  sql: `
CREATE INDEX files_user_id ON files(user_id);
`,
  postgres: `
CREATE INDEX files_user_id ON files(user_id);
`
}, {
  name: '003-organization-indexes',
  // An organization's rows found by index: its reset and its deletion (the cascade from
  // `organizations`) read that organization's rows only, not every organization's. Here:
  // a file's contents.
  sql: `
CREATE INDEX file_contents_organization ON file_contents(organization_id);
`,
  postgres: `
CREATE INDEX file_contents_organization ON file_contents(organization_id);
`
}]
