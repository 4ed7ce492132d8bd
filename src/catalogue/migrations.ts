// The catalogue area's tables: fixture entries, pinned prices and the version token. Append new
// migrations to the list; never edit one that has shipped.
import type { Migration } from '../storage/migrate.js'
import { catalogueMigration } from './store.js'

export const migrations: Migration[] = [catalogueMigration]
