// The ledger and transactions area's tables. Append new migrations to the list; never edit one
// that has shipped.
import type { Migration } from '../storage/migrate.js'

const RECENT_TRANSACTIONS = `
CREATE INDEX transactions_recent ON transactions(created_ms, id);
`

// A user's statement reads the user's transactions completed in a period, newest first. It read every
// party row of the user, then each transaction's status and completion time, and sorted them all
// (21 ms a page for a user of 21 000 transactions). Each party now keeps its transaction's
// completion time (set in the write that completes it: a completed transaction is final), and the
// page is read in this index's order.
const COMPLETED_INDEX = `
CREATE INDEX transaction_parties_completed ON transaction_parties(organization_id, user_id, completed_at DESC, transaction_id DESC)
  WHERE completed_at IS NOT NULL;
`

// The portfolio's balances at an instant (the start of a history or of a performance period, the
// end of a statement's month) read each account's last posting at or before it through this index,
// where they read the user's whole history. It takes the place of (account_id, seq), which no
// statement read.
const POSTINGS_BY_ACCOUNT_TIME = `
DROP INDEX ledger_postings_account;
CREATE INDEX ledger_postings_account_at ON ledger_postings(account_id, at, seq);
`

const OPEN_BY_ACCOUNT = `
-- Transactions in progress (processing or on hold) by the account funds move from and to.
CREATE INDEX transactions_open_origin ON transactions(origin_account_id) WHERE status IN ('processing', 'on-hold');
CREATE INDEX transactions_open_destination ON transactions(destination_account_id) WHERE status IN ('processing', 'on-hold');
`

const ORGANIZATION_INDEXES = `
CREATE INDEX ledger_balances_organization ON ledger_balances(organization_id, account_id);
CREATE INDEX ledger_postings_organization ON ledger_postings(organization_id, seq);
CREATE INDEX ledger_unsettled_organization ON ledger_unsettled(organization_id);
CREATE INDEX transactions_organization ON transactions(organization_id, created_ms, id);
CREATE INDEX transaction_rfis_organization ON transaction_rfis(organization_id);
`

export const migrations: Migration[] = [{
  name: '001-ledger',
  sql: `
-- A double-entry ledger. Every movement of funds is a set of postings of one transaction that sum
-- to zero per asset, in each of the two columns: \`total\` (what the account holds) and
-- \`available\` (what it may spend: total less holds and unsettled funds). Amounts are decimal
-- strings. Accounts are the users' accounts (by id) and the organization's system accounts
-- (\`system:<organizationId>:<kind>:<asset>\`: world, exchange, fees, holds, unsettled), which
-- take the other side of every posting and may go negative; user accounts never do.
--
-- The running balance of each account, updated in the same SQLite transaction as its postings.
-- user_id is null for system accounts.
CREATE TABLE ledger_balances (
  account_id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT,
  asset TEXT NOT NULL,
  total TEXT NOT NULL,
  available TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX ledger_balances_user ON ledger_balances(user_id) WHERE user_id IS NOT NULL;

-- One posting: the change of both columns of one account, and the balance it left (the history
-- the portfolio's read models use). at is ms on the sandbox clock.
CREATE TABLE ledger_postings (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  transaction_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  user_id TEXT,
  asset TEXT NOT NULL,
  total TEXT NOT NULL,
  available TEXT NOT NULL,
  total_after TEXT NOT NULL,
  available_after TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX ledger_postings_account ON ledger_postings(account_id, seq);
CREATE INDEX ledger_postings_user ON ledger_postings(user_id, at, seq) WHERE user_id IS NOT NULL;
CREATE INDEX ledger_postings_transaction ON ledger_postings(transaction_id);

-- Funds credited but not yet settled (ACH deposits): they count in total, not in available,
-- until settle_at (ms on the sandbox clock); settled_at is set when they become available.
CREATE TABLE ledger_unsettled (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  account_id TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  asset TEXT NOT NULL,
  amount TEXT NOT NULL,
  reason TEXT NOT NULL,
  settle_at INTEGER NOT NULL,
  settled_at INTEGER
);
CREATE INDEX ledger_unsettled_due ON ledger_unsettled(settle_at) WHERE settled_at IS NULL;
CREATE INDEX ledger_unsettled_account ON ledger_unsettled(account_id) WHERE settled_at IS NULL;

-- A transaction: what the API shows of it that never changes (body, JSON: origin, destination,
-- denomination, fees, quotedAt) and its state. quote_id is unique: a quote commits once.
-- origin_account_id is the account funds are held from; destination_account_id the account
-- credited on completion. settle_at (ms) is when a processing transaction completes by itself;
-- null while it waits for something (3-D Secure, an RFI, the control API).
CREATE TABLE transactions (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  quote_id TEXT UNIQUE,
  status TEXT NOT NULL,
  reason TEXT,
  body TEXT NOT NULL,
  origin_account_id TEXT,
  destination_account_id TEXT,
  hold_amount TEXT,
  settle_at INTEGER,
  authorization TEXT,
  return_url TEXT,
  withdrawal_key TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT,
  created_ms INTEGER NOT NULL
);
CREATE INDEX transactions_due ON transactions(settle_at) WHERE settle_at IS NOT NULL;
CREATE INDEX transactions_pending ON transactions(user_id, status) WHERE status IN ('processing', 'on-hold');
CREATE INDEX transactions_withdrawal ON transactions(withdrawal_key) WHERE withdrawal_key IS NOT NULL;

-- Who sees a transaction in their lists: the user who made it and the owner of each account it
-- moves funds from or to, with that account. Lists read these indexes, newest first.
CREATE TABLE transaction_parties (
  transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (transaction_id, user_id, account_id)
);
CREATE INDEX transaction_parties_user ON transaction_parties(organization_id, user_id, created_at DESC, transaction_id DESC);
CREATE INDEX transaction_parties_account ON transaction_parties(account_id, created_at DESC, transaction_id DESC);

-- A request for information about a transaction (travel rule): status pending until answered
-- (ok), expired or failed; data is the answer, JSON.
CREATE TABLE transaction_rfis (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  data TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX transaction_rfis_transaction ON transaction_rfis(transaction_id, created_at);
`,
  postgres: `
-- A double-entry ledger. Every movement of funds is a set of postings of one transaction that sum
-- to zero per asset, in each of the two columns: \`total\` (what the account holds) and
-- \`available\` (what it may spend: total less holds and unsettled funds). Amounts are decimal
-- strings. Accounts are the users' accounts (by id) and the organization's system accounts
-- (\`system:<organizationId>:<kind>:<asset>\`: world, exchange, fees, holds, unsettled), which
-- take the other side of every posting and may go negative; user accounts never do.
--
-- The running balance of each account, updated in the same SQLite transaction as its postings.
-- user_id is null for system accounts.
CREATE TABLE ledger_balances (
  account_id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT COLLATE "C",
  asset TEXT COLLATE "C" NOT NULL,
  total TEXT COLLATE "C" NOT NULL,
  available TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX ledger_balances_user ON ledger_balances(user_id) WHERE user_id IS NOT NULL;

-- One posting: the change of both columns of one account, and the balance it left (the history
-- the portfolio's read models use). at is ms on the sandbox clock.
CREATE TABLE ledger_postings (
  seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  transaction_id TEXT COLLATE "C" NOT NULL,
  account_id TEXT COLLATE "C" NOT NULL,
  user_id TEXT COLLATE "C",
  asset TEXT COLLATE "C" NOT NULL,
  total TEXT COLLATE "C" NOT NULL,
  available TEXT COLLATE "C" NOT NULL,
  total_after TEXT COLLATE "C" NOT NULL,
  available_after TEXT COLLATE "C" NOT NULL,
  at BIGINT NOT NULL
);
CREATE INDEX ledger_postings_account ON ledger_postings(account_id, seq);
CREATE INDEX ledger_postings_user ON ledger_postings(user_id, at, seq) WHERE user_id IS NOT NULL;
CREATE INDEX ledger_postings_transaction ON ledger_postings(transaction_id);

-- Funds credited but not yet settled (ACH deposits): they count in total, not in available,
-- until settle_at (ms on the sandbox clock); settled_at is set when they become available.
CREATE TABLE ledger_unsettled (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  account_id TEXT COLLATE "C" NOT NULL,
  transaction_id TEXT COLLATE "C" NOT NULL,
  asset TEXT COLLATE "C" NOT NULL,
  amount TEXT COLLATE "C" NOT NULL,
  reason TEXT COLLATE "C" NOT NULL,
  settle_at BIGINT NOT NULL,
  settled_at BIGINT
);
CREATE INDEX ledger_unsettled_due ON ledger_unsettled(settle_at) WHERE settled_at IS NULL;
CREATE INDEX ledger_unsettled_account ON ledger_unsettled(account_id) WHERE settled_at IS NULL;

-- A transaction: what the API shows of it that never changes (body, JSON: origin, destination,
-- denomination, fees, quotedAt) and its state. quote_id is unique: a quote commits once.
-- origin_account_id is the account funds are held from; destination_account_id the account
-- credited on completion. settle_at (ms) is when a processing transaction completes by itself;
-- null while it waits for something (3-D Secure, an RFI, the control API).
CREATE TABLE transactions (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT COLLATE "C" NOT NULL,
  kind TEXT COLLATE "C" NOT NULL,
  quote_id TEXT COLLATE "C" UNIQUE,
  status TEXT COLLATE "C" NOT NULL,
  reason TEXT COLLATE "C",
  body TEXT COLLATE "C" NOT NULL,
  origin_account_id TEXT COLLATE "C",
  destination_account_id TEXT COLLATE "C",
  hold_amount TEXT COLLATE "C",
  settle_at BIGINT,
  "authorization" TEXT COLLATE "C",
  return_url TEXT COLLATE "C",
  withdrawal_key TEXT COLLATE "C",
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  completed_at TEXT COLLATE "C",
  created_ms BIGINT NOT NULL
);
CREATE INDEX transactions_due ON transactions(settle_at) WHERE settle_at IS NOT NULL;
CREATE INDEX transactions_pending ON transactions(user_id, status) WHERE status IN ('processing', 'on-hold');
CREATE INDEX transactions_withdrawal ON transactions(withdrawal_key) WHERE withdrawal_key IS NOT NULL;

-- Who sees a transaction in their lists: the user who made it and the owner of each account it
-- moves funds from or to, with that account. Lists read these indexes, newest first.
CREATE TABLE transaction_parties (
  transaction_id TEXT COLLATE "C" NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  organization_id TEXT COLLATE "C" NOT NULL,
  user_id TEXT COLLATE "C" NOT NULL,
  account_id TEXT COLLATE "C" NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (transaction_id, user_id, account_id)
);
CREATE INDEX transaction_parties_user ON transaction_parties(organization_id, user_id, created_at DESC, transaction_id DESC);
CREATE INDEX transaction_parties_account ON transaction_parties(account_id, created_at DESC, transaction_id DESC);

-- A request for information about a transaction (travel rule): status pending until answered
-- (ok), expired or failed; data is the answer, JSON.
CREATE TABLE transaction_rfis (
  id TEXT COLLATE "C" PRIMARY KEY,
  organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  transaction_id TEXT COLLATE "C" NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  type TEXT COLLATE "C" NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  data TEXT COLLATE "C",
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX transaction_rfis_transaction ON transaction_rfis(transaction_id, created_at);
`
}, {
  name: '002-rfi-expiry',
  sql: `
-- Pending RFIs by age: the clock expires those older than RFI_EXPIRY_SECONDS.
CREATE INDEX transaction_rfis_pending ON transaction_rfis(created_at) WHERE status = 'pending';
`,
  postgres: `
-- Pending RFIs by age: the clock expires those older than RFI_EXPIRY_SECONDS.
CREATE INDEX transaction_rfis_pending ON transaction_rfis(created_at) WHERE status = 'pending';
`
}, {
  name: '003-organization-indexes',
  // An organization's rows found by index: its reset and its deletion read that organization's
  // rows only. The control API's lists of an organization's transactions (newest first) and its
  // ledger check (balances by account, postings in order) read them in the index's order.
  sql: ORGANIZATION_INDEXES,
  postgres: ORGANIZATION_INDEXES
}, {
  name: '004-open-transactions-by-account',
  // An account's check for transactions in progress (archiving refuses such an account) read every
  // transaction the account ever had, through its parties; it now reads its open ones only. A
  // transaction's parties' accounts are its origin and destination accounts.
  sql: OPEN_BY_ACCOUNT,
  postgres: OPEN_BY_ACCOUNT
}, {
  name: '005-recent-transactions',
  // The admin's list of every organization's transactions, newest first (the control API and the
  // dashboard), read in this index's order: it sorted the whole table for each read.
  sql: RECENT_TRANSACTIONS,
  postgres: RECENT_TRANSACTIONS
}, {
  name: '006-statement-by-completion',
  sql: `
ALTER TABLE transaction_parties ADD COLUMN completed_at TEXT;
UPDATE transaction_parties SET completed_at = (SELECT t.completed_at FROM transactions t
  WHERE t.id = transaction_parties.transaction_id AND t.status = 'completed');
${COMPLETED_INDEX}`,
  postgres: `
ALTER TABLE transaction_parties ADD COLUMN completed_at TEXT COLLATE "C";
UPDATE transaction_parties p SET completed_at = t.completed_at FROM transactions t
  WHERE t.id = p.transaction_id AND t.status = 'completed';
${COMPLETED_INDEX}`
}, {
  name: '007-postings-by-account-time',
  sql: POSTINGS_BY_ACCOUNT_TIME,
  postgres: POSTINGS_BY_ACCOUNT_TIME
}]
