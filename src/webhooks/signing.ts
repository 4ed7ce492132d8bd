// Standard Webhooks signing (https://www.standardwebhooks.com): secrets, message ids and the
// `webhook-signature` header, so any Standard Webhooks library verifies our deliveries.
import { createHmac, randomBytes } from 'node:crypto'

const SECRET_PREFIX = 'whsec_'
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A new signing secret: `whsec_` and 24 random bytes in base64 (the HMAC key). */
export const newSecret = (): string => SECRET_PREFIX + randomBytes(24).toString('base64')

/** A message id, sent as `webhook-id`: `msg_` and 27 random letters and digits. */
export const newMessageId = (): string =>
  'msg_' + Array.from(randomBytes(27), b => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('')

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the secret's decoded bytes. */
export function sign (secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')
  const digest = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
  return `v1,${digest}`
}
