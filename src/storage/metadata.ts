// SQLite implementation of the metadata store. Every statement is prepared once, here.
import type { Db } from './db.js'

export interface MetadataStore {}

export function metadataStore (_db: Db): MetadataStore {
  return {}
}
