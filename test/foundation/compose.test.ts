// The compose files, parsed (no Docker engine runs here: `docker compose config` is what this
// stands for): the replicas topology holds PostgreSQL, sandbox replicas on it with one secret and
// one public URL, and a proxy on 8080 that balances on the health route.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

interface Service {
  image?: string
  build?: { context: string, dockerfile: string }
  environment?: Record<string, string>
  ports?: string[]
  volumes?: string[]
  deploy?: { replicas?: number }
  depends_on?: Record<string, { condition: string }> | string[]
  healthcheck?: { test: string[] }
}

t.test('compose.replicas.yaml: PostgreSQL, three replicas of the sandbox on it, a proxy on 8080', async t => {
  const doc = parse(read('docker/compose.replicas.yaml')) as { services: Record<string, Service>, volumes: Record<string, unknown> }
  t.same(Object.keys(doc.services).sort(), ['postgres', 'proxy', 'sandbox'])

  const pg = doc.services.postgres
  t.match(pg.image, /^postgres:(1[5-9]|[2-9]\d)/, 'PostgreSQL 15 or later')
  t.ok(pg.healthcheck?.test.includes('pg_isready'), 'PostgreSQL has a health check the replicas wait for')
  t.match(pg.environment?.POSTGRES_INITDB_ARGS, /--locale=C/, 'binary text order, as SQLite')
  t.ok(pg.volumes?.some(v => v.endsWith(':/var/lib/postgresql/data')), 'its data on a volume')

  const sandbox = doc.services.sandbox
  t.equal(sandbox.deploy?.replicas, 3)
  t.same(sandbox.build, { context: '..', dockerfile: 'Dockerfile' })
  t.match(sandbox.environment?.DATABASE_URL, /^postgres:\/\/[^@]+@postgres:5432\/\w+$/, 'every replica on the one database')
  for (const shared of ['SANDBOX_CLIENT_SECRET', 'PUBLIC_URL', 'SANDBOX_ADMIN_TOKEN', 'TRUST_PROXY']) {
    t.ok(sandbox.environment?.[shared] !== undefined, `${shared} is set, the same for every replica`)
  }
  t.same((sandbox.depends_on as Record<string, { condition: string }>).postgres, { condition: 'service_healthy' })
  t.equal(sandbox.ports, undefined, 'replicas are reached through the proxy only')

  const proxy = doc.services.proxy
  t.match(proxy.image, /^(caddy|haproxy|nginx)/)
  t.ok(proxy.ports?.some(p => /(^|:)8080$/.test(p.replace(/^\$\{PORT:-(\d+)\}/, '$1'))), 'the proxy listens on 8080')
  const mount = proxy.volumes?.[0].split(':')[0] ?? ''
  const caddyfile = read(`docker/${mount.replace(/^\.\//, '')}`)
  t.match(caddyfile, /dynamic a \{\s*name sandbox\s*port 8080/, 'finds every replica of the service, so --scale needs no change')
  t.match(caddyfile, /health_uri \/_sandbox\/health/, 'balances on the health route')
  t.match(caddyfile, /lb_policy round_robin/)
})

t.test('compose.yaml: the single-process sandbox on its SQLite volume', async t => {
  const doc = parse(read('docker/compose.yaml')) as { services: Record<string, Service> }
  t.same(Object.keys(doc.services), ['sandbox'])
  t.ok(doc.services.sandbox.volumes?.some(v => v.endsWith(':/data')))
  t.equal(doc.services.sandbox.environment?.DATABASE_URL, undefined, 'SQLite, the default')
})
