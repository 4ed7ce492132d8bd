export default {
  version: 4,
  name: 'webhook-rotation-retention',
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
`
}
