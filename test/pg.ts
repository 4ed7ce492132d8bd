// PostgreSQL for the suite (SANDBOX_TEST_BACKEND=postgres): every app a test builds gets a database
// of its own, copied (CREATE DATABASE ... TEMPLATE) from a template that holds every migration,
// made once per run of the suite and named by a digest of the migrations, so a new migration makes
// a new template. TEST_DATABASE_URL names a server where the suite may create databases (the
// throwaway cluster of scripts/pg-cluster.sh in CI).
import { createHash, randomUUID } from 'node:crypto'
import postgres from 'postgres'
import { openStorage } from '../src/storage/index.js'
import { AreaRegistry } from '../src/kit/area.js'
import { areas } from '../src/areas.js'
import { migrations as coreMigrations } from '../src/storage/core-migrations.js'

interface Teardown { teardown: (fn: () => unknown) => void }

const serverUrl = (): string => {
  const url = process.env.TEST_DATABASE_URL
  if (url === undefined || url === '') throw new Error('SANDBOX_TEST_BACKEND=postgres needs TEST_DATABASE_URL (a server where the suite may create databases)')
  return url
}

const withDatabase = (url: string, name: string): string => {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

let admin: postgres.Sql | undefined
const adminSql = (): postgres.Sql => (admin ??= postgres(serverUrl(), { max: 2, onnotice: () => {}, idle_timeout: 1 }))

let template: Promise<string> | undefined

/** The template database with every migration applied, made once (under a lock: test files run in parallel). */
async function templateName (): Promise<string> {
  const registry = new AreaRegistry(areas)
  const all = [...coreMigrations, ...registry.migrations()]
  const digest = createHash('sha256').update(JSON.stringify(all.map(m => [m.name, m.postgres]))).digest('hex').slice(0, 16)
  const name = `sandbox_template_${digest}`
  const sql = adminSql()
  // CREATE DATABASE cannot run in a transaction: the lock is a session lock on a reserved connection.
  const conn = await sql.reserve()
  try {
    await conn`SELECT pg_advisory_lock(4242)`
    const [exists] = await conn`SELECT 1 FROM pg_database WHERE datname = ${name}`
    if (exists === undefined) {
      const building = `${name}_b${process.pid}`
      await conn.unsafe(`DROP DATABASE IF EXISTS "${building}"`)
      await conn.unsafe(`CREATE DATABASE "${building}"`)
      const storage = await openStorage({ databasePath: ':memory:', databaseUrl: withDatabase(serverUrl(), building) })
      await storage.migrate(registry.migrations())
      await storage.close()
      await conn.unsafe(`ALTER DATABASE "${building}" RENAME TO "${name}"`)
    }
    await conn`SELECT pg_advisory_unlock(4242)`
  } finally {
    conn.release()
  }
  return name
}

/** A new database copied from the template, dropped when the test ends; answers its URL. */
export async function testDatabase (t: Teardown): Promise<string> {
  template ??= templateName()
  const from = await template
  const name = `sandbox_test_${randomUUID().replace(/-/g, '').slice(0, 20)}`
  await adminSql().unsafe(`CREATE DATABASE "${name}" TEMPLATE "${from}"`)
  // Registered first, so it runs after the app's own teardown (tap runs teardowns in reverse).
  t.teardown(async () => {
    await adminSql().unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {})
  })
  return withDatabase(serverUrl(), name)
}
