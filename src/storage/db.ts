// The database behind every store, on either backend: the embedded SQLite file (better-sqlite3,
// the default) or PostgreSQL (postgres.js, `DATABASE_URL`). Stores are written once against this
// interface: statements prepared once with `prepare`, run with `get`, `all` and `run`, all
// returning Promises; writes go through `write`, the group commit. Only SQL text the dialects
// disagree on differs, side by side (`{ sqlite, postgres }`).
//
// Which connection a statement runs on is carried by an AsyncContext (src/async-context.ts):
// inside a write, the write's transaction; outside, the pool (PostgreSQL) or the one connection
// (SQLite), where a read waits for a write in progress to commit, so it never sees what may still
// be rolled back. A queued write runs in its caller's context (its organization's clock).
import { AsyncContext, snapshot } from '../async-context.js'
import { aboutToBlock } from '../turn-batch.js'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type postgres from 'postgres'

export type Dialect = 'sqlite' | 'postgres'
/** SQL text, or one text per dialect where they disagree. */
export type SqlText = string | { sqlite: string, postgres: string }

type Params<P> = P extends unknown[] ? P : [P]

/** A statement prepared once; every call runs it on the caller's connection (see above). */
export interface Statement<P extends unknown[] | object = unknown[], R = unknown> {
  get (...params: Params<P>): Promise<R | undefined>
  all (...params: Params<P>): Promise<R[]>
  run (...params: Params<P>): Promise<{ changes: number }>
  /**
   * `run` for a write whose answer nobody reads (an insert of a new row): inside a write on
   * PostgreSQL it is sent without waiting for its answer, so the write's next statements, and the
   * group's next writes, follow it on the same connection (postgres.js sends the statements of one
   * turn in one socket write, and PostgreSQL runs them in order: later reads see it). The group waits
   * for every such answer before its COMMIT; one that fails fails the group, which then runs each
   * write again on its own (see GroupCommitDb), so the failure is its write's alone, as with `run`,
   * only without the write's own code seeing it: use it only where that code would not catch it.
   * Outside a write, and on SQLite (where every statement finishes before it returns), it is `run`.
   */
  runUnanswered (...params: Params<P>): Promise<void>
  /** Rows are their first column (`get` answers the value itself). */
  pluck (): this
}

export interface Db {
  readonly dialect: Dialect
  prepare<P extends unknown[] | object = unknown[], R = unknown> (sql: SqlText): Statement<P, R>
  /** Runs one or more statements without results (migrations, resets). */
  exec (sql: SqlText): Promise<void>
  /**
   * Runs `work` atomically in the next group commit (see `groupCommit`); settles after COMMIT.
   * `work` touches nothing but the database, and may run twice.
   */
  write<T> (work: () => T | Promise<T>): Promise<T>
  /** Whether the caller runs inside a write. */
  readonly inTransaction: boolean
  /** Runs `hook` after every group commit that committed. */
  afterCommit (hook: () => void): void
  /** Commits what is queued now (before closing). */
  flush (): Promise<void>
  ping (): Promise<boolean>
  close (): Promise<void>
  readonly open: boolean
}

/** A write that conflicts with a unique, foreign-key, not-null or check constraint. */
export const isConstraint = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return false
  return code.startsWith('SQLITE_CONSTRAINT') || (PostgresError !== undefined && err instanceof PostgresError && code.startsWith('23'))
}

/** The database cannot be reached (PostgreSQL away): the request is answered 503. */
export class StoreUnavailable extends Error {
  constructor (cause: unknown) {
    super('The database is unavailable', { cause })
    this.name = 'StoreUnavailable'
  }
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'CONNECTION_CLOSED',
  'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'])
/** Whether `err` says the database went away (rather than refusing a statement). */
export const isUnavailable = (err: unknown): boolean => {
  if (err instanceof StoreUnavailable) return true
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && UNAVAILABLE_CODES.has(code)
}

/** A queued write: its work, the context of its caller (it runs on its caller's clock), its promise's ends. */
interface Job { work: () => unknown, caller: <R>(work: () => R) => R, resolve: (value: unknown) => void, reject: (error: unknown) => void }
type Outcome = { ok: true, value: unknown } | { ok: false, error: unknown }

/**
 * What a write's transaction is, for the statements run inside it; `unanswered`: where the
 * write's runUnanswered statements wait for the group to await them (PostgreSQL only).
 */
interface Context { db: object, conn: unknown, unanswered: Array<Promise<unknown>> | undefined }
const context = new AsyncContext<Context>()

/**
 * The group commit, shared by both backends. Writes queued during one turn of the event loop are
 * committed together, in one transaction (one fsync on SQLite; one round of the global write lock
 * on PostgreSQL), and every promise settles after the COMMIT: an acknowledged write is as durable
 * as if it had been committed alone. One group runs at a time per process.
 *
 * Each write is atomic on its own: one that throws is undone and refused alone. Savepoints would
 * give that, but cost more than most writes (a page copy on SQLite, a round trip on PostgreSQL).
 * So a group runs without them, and only when something in it throws is it rolled back and run
 * again, each write in its own savepoint.
 */
abstract class GroupCommitDb {
  #queue: Job[] = []
  #scheduled = false
  #running: Promise<void> | undefined
  readonly #hooks: Array<() => void> = []

  /** Runs the jobs in one transaction; throws what made the transaction fail. */
  protected abstract runGroup (jobs: Job[], isolated: boolean): Promise<Outcome[]>

  get inTransaction (): boolean { return context.get()?.db === this }
  protected get running (): Promise<void> | undefined { return this.#running }
  /** Runs a job's work in its caller's context, inside the transaction `conn`. */
  protected inContext (conn: unknown, job: Job, unanswered?: Array<Promise<unknown>>): unknown {
    return job.caller(() => context.run({ db: this, conn, unanswered }, job.work))
  }

  protected connection (): unknown {
    const ctx = context.get()
    return ctx?.db === this ? ctx.conn : undefined
  }

  afterCommit (hook: () => void): void { this.#hooks.push(hook) }

  write<T> (work: () => T | Promise<T>): Promise<T> {
    // A write inside a write joins it: it is part of the caller's atomic work.
    if (this.inTransaction) {
      try {
        return Promise.resolve(work())
      } catch (error) {
        return Promise.reject(error)
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, caller: snapshot(), resolve: resolve as (value: unknown) => void, reject })
      this.#schedule()
    })
  }

  #schedule (): void {
    if (this.#scheduled || this.#running !== undefined) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#flushGroup().catch(() => {})
    })
  }

  async flush (): Promise<void> {
    while (this.#running !== undefined || this.#queue.length > 0) {
      if (this.#running !== undefined) await this.#running
      else await this.#flushGroup()
    }
  }

  async #flushGroup (): Promise<void> {
    if (this.#running !== undefined || this.#queue.length === 0) return
    const jobs = this.#queue
    this.#queue = []
    let done!: () => void
    this.#running = new Promise<void>(resolve => { done = resolve })
    let outcomes: Outcome[] | undefined
    let failure: unknown
    try {
      try {
        outcomes = await this.runGroup(jobs, false)
      } catch (error) {
        if (isUnavailable(error)) throw error
        outcomes = await this.runGroup(jobs, true)
      }
    } catch (error) {
      failure = isUnavailable(error) ? new StoreUnavailable(error) : error
    } finally {
      this.#running = undefined
      done()
    }
    if (outcomes === undefined) {
      for (const job of jobs) job.reject(failure)
    } else {
      for (const hook of this.#hooks) hook()
      jobs.forEach((job, i) => {
        const outcome = outcomes[i]
        if (outcome.ok) job.resolve(outcome.value)
        else job.reject(outcome.error)
      })
    }
    if (this.#queue.length > 0) this.#schedule()
  }
}

// ---------------------------------------------------------------------------------------------
// SQLite

class SqliteStatement<P extends unknown[] | object, R> implements Statement<P, R> {
  readonly #db: SqliteDb
  readonly #stmt: Database.Statement
  constructor (db: SqliteDb, stmt: Database.Statement) {
    this.#db = db
    this.#stmt = stmt
  }

  pluck (): this {
    this.#stmt.pluck()
    return this
  }

  get (...params: Params<P>): Promise<R | undefined> { return this.#db.gate(() => this.#stmt.get(...params) as R | undefined) }
  all (...params: Params<P>): Promise<R[]> { return this.#db.gate(() => this.#stmt.all(...params) as R[]) }
  run (...params: Params<P>): Promise<{ changes: number }> { return this.#db.gate(() => ({ changes: this.#stmt.run(...params).changes })) }
  runUnanswered (...params: Params<P>): Promise<void> { return this.#db.gate(() => { this.#stmt.run(...params) }) }
}

class SqliteDb extends GroupCommitDb implements Db {
  readonly dialect = 'sqlite' as const
  readonly raw: Database.Database
  constructor (path: string) {
    super()
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    const db = new Database(path)
    db.pragma('busy_timeout = 5000')
    // One process owns an SQLite database (replicas need PostgreSQL). Exclusive locking makes that
    // a rule, and spares every statement the file-lock system calls that sharing costs (the WAL
    // index lives in memory; there is no -shm file).
    db.pragma('locking_mode = EXCLUSIVE')
    db.pragma('journal_mode = WAL')
    // FULL: a write acknowledged with a 2xx survives a power cut, not just a process crash.
    db.pragma('synchronous = FULL')
    db.pragma('foreign_keys = ON')
    // 4 MiB of page cache (the driver's default is 16): the sandbox's hot pages are few, and under a
    // stream of inserts a large cache only fills with pages that are written once.
    db.pragma('cache_size = -4000')
    this.raw = db
  }

  get open (): boolean { return this.raw.open }

  /**
   * Runs a statement now: inside the write that runs, or outside any write. A read from outside
   * while a group runs (its statements interleave with other requests' at every await) waits for
   * its COMMIT, so it never sees a change that may still be rolled back.
   */
  gate<T> (run: () => T): Promise<T> {
    const running = this.running
    if (running !== undefined && !this.inTransaction) return running.then(() => this.gate(run))
    try {
      return Promise.resolve(run())
    } catch (error) {
      return Promise.reject(error)
    }
  }

  prepare<P extends unknown[] | object = unknown[], R = unknown> (sql: SqlText): Statement<P, R> {
    return new SqliteStatement<P, R>(this, this.raw.prepare(typeof sql === 'string' ? sql : sql.sqlite))
  }

  async exec (sql: SqlText): Promise<void> {
    await this.gate(() => this.raw.exec(typeof sql === 'string' ? sql : sql.sqlite))
  }

  protected async runGroup (jobs: Job[], isolated: boolean): Promise<Outcome[]> {
    const db = this.raw
    const outcomes: Outcome[] = []
    db.exec('BEGIN IMMEDIATE')
    try {
      for (const job of jobs) {
        if (!isolated) {
          outcomes.push({ ok: true, value: await this.inContext(db, job) })
          continue
        }
        db.exec('SAVEPOINT job')
        try {
          outcomes.push({ ok: true, value: await this.inContext(db, job) })
          db.exec('RELEASE job')
        } catch (error) {
          db.exec('ROLLBACK TO job')
          db.exec('RELEASE job')
          outcomes.push({ ok: false, error })
        }
      }
      // The COMMIT holds the event loop until the disk has the group: the answers this turn has
      // made already go to their sockets first.
      aboutToBlock()
      db.exec('COMMIT')
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK')
      throw error
    }
    return outcomes
  }

  async ping (): Promise<boolean> { return this.raw.open }

  async close (): Promise<void> {
    if (!this.raw.open) return
    await this.flush()
    this.raw.close()
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

type Sql = postgres.Sql<Record<string, never>>
type Conn = Sql | postgres.TransactionSql<Record<string, never>>

/** `?` and `@name` placeholders (better-sqlite3's) become `$n`; quoted text and identifiers are left alone. */
function toPostgres (text: string): { text: string, names: string[] | undefined } {
  let out = ''
  let n = 0
  const names: string[] = []
  let named = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1)
      const stop = end === -1 ? text.length : end + 1
      out += text.slice(i, stop)
      i = stop - 1
    } else if (c === '?') {
      out += `$${++n}`
    } else if (c === '@' && /[A-Za-z_]/.test(text[i + 1] ?? '')) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1))!
      named = true
      let index = names.indexOf(m[0])
      if (index === -1) index = names.push(m[0]) - 1
      out += `$${index + 1}`
      i += m[0].length
    } else if (c === ':' && text[i + 1] === ':') {
      out += '::'
      i++
    } else {
      out += c
    }
  }
  return { text: out, names: named ? names : undefined }
}

type Value = string | number | bigint | boolean | Buffer | null
// PostgreSQL text cannot hold NUL; SQLite's can. A NUL in a parameter (a hostile id in a path,
// say) becomes U+FFFD: a lookup then finds nothing, as on SQLite, instead of failing.
const bindText = (v: string): string => v.includes('\u0000') ? v.replaceAll('\u0000', '\uFFFD') : v
// An array (the statement casts it: `?::text[]`) goes as PostgreSQL's array literal, each element
// quoted: '{"a","b\\"c"}'. The driver would build it only from array types it reads from the
// server on each new connection (`fetch_types`); that read fails unhandled, and ends the process,
// when PostgreSQL ends the connection during it. So the driver reads none, and the literal is
// written here: its quoting is two characters.
const arrayLiteral = (values: unknown[]): string =>
  `{${values.map(v => v === null || v === undefined ? 'NULL' : `"${bindText(String(v)).replace(/["\\]/g, '\\$&')}"`).join(',')}}`
const bindValue = (v: unknown): Value => v === undefined ? null : typeof v === 'string' ? bindText(v) : Array.isArray(v) ? arrayLiteral(v) : v as Value

class PostgresStatement<P extends unknown[] | object, R> implements Statement<P, R> {
  readonly #db: PostgresDb
  readonly #text: string
  readonly #names: string[] | undefined
  #pluck = false
  constructor (db: PostgresDb, sql: string) {
    this.#db = db
    const { text, names } = toPostgres(sql)
    this.#text = text
    this.#names = names
  }

  pluck (): this {
    this.#pluck = true
    return this
  }

  #values (params: unknown[]): Value[] {
    if (this.#names === undefined) return params.map(bindValue)
    const named = (params[0] ?? {}) as Record<string, unknown>
    return this.#names.map(name => bindValue(named[name]))
  }

  async #query (params: unknown[]): Promise<postgres.RowList<Array<Record<string, unknown>>>> {
    return await this.#db.query(this.#text, this.#values(params))
  }

  #row (row: Record<string, unknown>): unknown {
    if (!this.#pluck) return row
    return Object.values(row)[0]
  }

  async get (...params: Params<P>): Promise<R | undefined> {
    const rows = await this.#query(params)
    return rows.length === 0 ? undefined : this.#row(rows[0]) as R
  }

  async all (...params: Params<P>): Promise<R[]> {
    const rows = await this.#query(params)
    return (this.#pluck ? rows.map(r => this.#row(r)) : [...rows]) as R[]
  }

  async run (...params: Params<P>): Promise<{ changes: number }> {
    const rows = await this.#query(params)
    return { changes: rows.count ?? 0 }
  }

  runUnanswered (...params: Params<P>): Promise<void> {
    const unanswered = this.#db.unanswered()
    if (unanswered === undefined) return this.run(...params).then(() => undefined)
    const sent = this.#query(params)
    // Awaited by the group before its COMMIT; until then a failure is not unhandled.
    sent.catch(() => {})
    unanswered.push(sent)
    return Promise.resolve()
  }
}

// The key of the one lock every write takes (pg_advisory_xact_lock): writes on PostgreSQL are as
// serialised across replicas as SQLite's are in one process, so a read that decides a write (a
// balance, a quote's single use, a conditional update) is never stale. Measured against row locks
// it costs little, because a group of writes takes it once (PHASE 3 notes: 1,525-1,567 grouped
// writes/s on three replicas against 1,475-1,739 with row locks and no global lock).
const WRITE_LOCK = 0x5a4e_d801

/**
 * How long a connection PostgreSQL closed waits before it connects again, in seconds, after the
 * `failures`-th connection of the process in a row closed on an error: 10 ms doubling, at most 1 s,
 * less up to half at random (replicas do not come back in step). postgres.js's own backoff grows as
 * 3^failures / 100 s up to 20 s, and counts a failure for every connection of the pool that a
 * restart, a failover or `pg_terminate_backend` ends, until one connects again. A request that meets
 * such a connection waits for it before it is answered: ending the connections in rounds under
 * writes, requests waited 5 to 20 s while PostgreSQL was up (`/_sandbox/health` with them). With
 * this one the longest wait measured was 1.2 s. A PostgreSQL that is down for good sees at most two
 * attempts a second from each connection of the pool.
 */
export const reconnectDelaySeconds = (failures: number): number => (0.5 + Math.random() / 2) * Math.min(0.01 * 2 ** failures, 1)

export interface PostgresOptions {
  url: string
  /** Connections of this process. */
  max?: number
  connectTimeoutSeconds?: number
}

class PostgresDb extends GroupCommitDb implements Db {
  readonly dialect = 'postgres' as const
  readonly sql: Sql
  #open = true
  constructor (driver: typeof postgres, options: PostgresOptions) {
    super()
    this.sql = driver(options.url, {
      max: options.max ?? 10,
      connect_timeout: options.connectTimeoutSeconds ?? 10,
      idle_timeout: 0,
      backoff: reconnectDelaySeconds,
      // No read of the server's array types on each new connection: see arrayLiteral.
      fetch_types: false,
      onnotice: () => {},
      // int8 (counts, millisecond instants) as a number, as SQLite answers them.
      types: { bigint: { to: 20, from: [20], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) } } as never,
      connection: { application_name: 'sandbox' }
    }) as unknown as Sql
  }

  get open (): boolean { return this.#open }

  /** Where the statements sent with runUnanswered inside the caller's write wait; undefined outside a write. */
  unanswered (): Array<Promise<unknown>> | undefined {
    const ctx = context.get()
    return ctx?.db === this ? ctx.unanswered : undefined
  }

  async query (text: string, values: Value[]): Promise<postgres.RowList<Array<Record<string, unknown>>>> {
    // Nothing new is sent once closing: the driver fails on a write to a connection it ended.
    if (!this.#open && this.connection() === undefined) throw new StoreUnavailable(new Error('the database is closed'))
    const conn = (this.connection() ?? this.sql) as Conn
    try {
      return await conn.unsafe(text, values as never[], { prepare: true })
    } catch (error) {
      throw isUnavailable(error) ? new StoreUnavailable(error) : error
    }
  }

  prepare<P extends unknown[] | object = unknown[], R = unknown> (sql: SqlText): Statement<P, R> {
    return new PostgresStatement<P, R>(this, typeof sql === 'string' ? sql : sql.postgres)
  }

  async exec (sql: SqlText): Promise<void> {
    const conn = (this.connection() ?? this.sql) as Conn
    try {
      await conn.unsafe(typeof sql === 'string' ? sql : sql.postgres)
    } catch (error) {
      throw isUnavailable(error) ? new StoreUnavailable(error) : error
    }
  }

  protected async runGroup (jobs: Job[], isolated: boolean): Promise<Outcome[]> {
    const outcomes: Outcome[] = []
    await this.sql.begin(async tx => {
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${WRITE_LOCK})`)
      // The group's statements sent unanswered (runUnanswered), awaited before the COMMIT; isolated,
      // each write's own, awaited inside its savepoint, so a failure undoes that write alone.
      const unanswered: Array<Promise<unknown>> = []
      for (const job of jobs) {
        if (!isolated) {
          outcomes.push({ ok: true, value: await this.inContext(tx, job, unanswered) })
          continue
        }
        try {
          const value = await tx.savepoint(async sp => {
            const own: Array<Promise<unknown>> = []
            const result = await this.inContext(sp, job, own)
            await Promise.all(own)
            return result
          })
          outcomes.push({ ok: true, value })
        } catch (error) {
          if (isUnavailable(error)) throw error
          outcomes.push({ ok: false, error })
        }
      }
      await Promise.all(unanswered)
    })
    return outcomes
  }

  async ping (): Promise<boolean> {
    try {
      await this.sql.unsafe('SELECT 1')
      return true
    } catch {
      return false
    }
  }

  async close (): Promise<void> {
    if (!this.#open) return
    this.#open = false
    try {
      await this.flush()
    } finally {
      await this.sql.end({ timeout: 5 })
    }
  }
}

export type { SqliteDb, PostgresDb }

export function openSqlite (path: string): SqliteDb { return new SqliteDb(path) }
// postgres.js, loaded by the first openPostgres: a start on SQLite does not load it, nor Node's TLS
// and performance modules it loads (about 10 ms of a start).
let PostgresError: typeof postgres.PostgresError | undefined

export async function openPostgres (options: PostgresOptions): Promise<PostgresDb> {
  const driver = (await import('postgres')).default
  PostgresError = driver.PostgresError
  return new PostgresDb(driver, options)
}

export interface GroupCommit {
  /** Runs `work` atomically in the next group commit; settles once that commit is durable. */
  <T>(work: () => T | Promise<T>): Promise<T>
  /** Commits what is queued, now: before the database closes. */
  flush (): Promise<void>
}

/** The database's group commit (see GroupCommitDb), as the stores call it. */
export function groupCommit (db: Db): GroupCommit {
  return Object.assign(<T>(work: () => T | Promise<T>): Promise<T> => db.write(work), { flush: () => db.flush() })
}

/** Runs `hook` after every group commit of the database that committed. */
export function afterCommit (db: Db, hook: () => void): void { db.afterCommit(hook) }
