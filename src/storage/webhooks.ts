// SQLite implementation of the webhooks store. Every statement is prepared once, here.
import type { Db } from './db.js'

export interface WebhooksStore {}

export function webhooksStore (_db: Db): WebhooksStore {
  return {}
}
