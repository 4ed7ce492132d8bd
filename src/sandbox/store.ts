// The sandbox area's store: which seed files this database has loaded.
import { groupCommit, type Db } from '../storage/db.js'

export interface SeedsStore {
  /** Whether a seed file with this digest was loaded into this database (a full reset forgets it). */
  loaded (digest: string): Promise<boolean>
  markLoaded (digest: string, at: string): Promise<void>
}

export function seedsStore (db: Db): SeedsStore {
  const loaded = db.prepare<[string], { digest: string }>('SELECT digest FROM sandbox_seeds WHERE digest = ?')
  const mark = db.prepare('INSERT INTO sandbox_seeds (digest, loaded_at) VALUES (?, ?) ON CONFLICT DO NOTHING')
  const write = groupCommit(db)
  return {
    async loaded (digest) { return await loaded.get(digest) !== undefined },
    async markLoaded (digest, at) { await write(async () => { await mark.run(digest, at) }) }
  }
}
