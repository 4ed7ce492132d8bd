// Opens the SQLite database and applies the core's migrations; and the group commit, the one
// write path of the request paths.
import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { migrate } from './migrate.js'
import { migrations as coreMigrations } from './core-migrations.js'

export type Db = Database.Database

export function openDatabase (path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path)
  db.pragma('busy_timeout = 5000')
  // One process owns the database: its caches (client rows, verified secrets) assume that nobody
  // else writes it. Exclusive locking makes that a rule, and spares every statement the file-lock
  // system calls that sharing costs (the WAL index lives in memory; there is no -shm file).
  db.pragma('locking_mode = EXCLUSIVE')
  db.pragma('journal_mode = WAL')
  // FULL: a write acknowledged with a 2xx survives a power cut, not just a process crash.
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  // 4 MiB of page cache (the driver's default is 16): the sandbox's hot pages are few, and under a
  // stream of inserts a large cache only fills with pages that are written once.
  db.pragma('cache_size = -4000')
  migrate(db, coreMigrations.map(m => ({ ...m, name: `core/${m.name}` })))
  return db
}

type Outcome = { ok: true, value: unknown } | { ok: false, error: unknown }
interface Job { work: () => unknown, resolve: (value: unknown) => void, reject: (error: unknown) => void }

export interface GroupCommit {
  /**
   * Runs `work` (synchronous, atomic) in the next group commit; settles once that commit is on
   * disk. `work` touches nothing but the database: it may run twice (see below).
   */
  <T>(work: () => T): Promise<T>
  /** Commits what is queued, now: before the database closes. */
  flush (): void
}

const groupCommits = new WeakMap<Db, GroupCommit>()
const commitHooks = new WeakMap<Db, Array<() => void>>()

/** Runs `hook` after every group commit of the database that committed. */
export function afterCommit (db: Db, hook: () => void): void {
  let hooks = commitHooks.get(db)
  if (hooks === undefined) commitHooks.set(db, hooks = [])
  hooks.push(hook)
}

/**
 * The database's group commit. With synchronous=FULL every commit waits for the disk (an fsync,
 * milliseconds), so writes queued during one turn of the event loop are committed together, in
 * one transaction and one fsync. Every promise settles after the COMMIT, so an acknowledged write
 * is as durable as if it had been committed alone.
 *
 * Each write is atomic on its own: one that throws is undone and refused alone. Savepoints would
 * give that, but each costs a copy of every page it touches that an earlier write of the group
 * touched too, more than the write itself. So a group runs without them, and only when something
 * in it throws is it rolled back and run again, each write in its own savepoint.
 */
export function groupCommit (db: Db): GroupCommit {
  let commit = groupCommits.get(db)
  if (commit !== undefined) return commit
  let queue: Job[] = []
  /** Runs the jobs in one transaction; throws what made the transaction fail. */
  const run = (jobs: Job[], isolated: boolean): Outcome[] => {
    const outcomes: Outcome[] = []
    db.transaction(() => {
      for (const job of jobs) {
        if (!isolated) {
          outcomes.push({ ok: true, value: job.work() })
          continue
        }
        try {
          outcomes.push({ ok: true, value: db.transaction(job.work)() })
        } catch (error) {
          outcomes.push({ ok: false, error })
        }
      }
    }).immediate()
    return outcomes
  }
  const flush = (): void => {
    if (queue.length === 0) return
    const jobs = queue
    queue = []
    let outcomes: Outcome[]
    try {
      try {
        outcomes = run(jobs, false)
      } catch {
        outcomes = run(jobs, true)
      }
    } catch (error) {
      for (const job of jobs) job.reject(error)
      return
    }
    for (const hook of commitHooks.get(db) ?? []) hook()
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]
      if (outcome.ok) job.resolve(outcome.value)
      else job.reject(outcome.error)
    })
  }
  commit = Object.assign(<T>(work: () => T): Promise<T> => new Promise<T>((resolve, reject) => {
    if (queue.length === 0) setImmediate(flush)
    queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
  }), { flush })
  groupCommits.set(db, commit)
  return commit
}
