// `npm run replicas`: the replicas topology without Docker, for anyone to try on one machine: a
// throwaway PostgreSQL (scripts/pg-cluster.sh), three sandbox processes on it, and a round-robin
// proxy on PORT (default 8080) that skips a replica whose last health check failed. Ctrl-C stops
// everything and removes the database.
//
// The proxy is a few lines of node:http rather than a dependency: it only forwards, in turn, to
// local processes, adds X-Forwarded-For (the replicas run with TRUST_PROXY=1) and checks health;
// docker/compose.replicas.yaml puts a real proxy (Caddy) in front instead.
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { request, createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { imageMallocEnv } from './image-env.js'
import { stopWithParent } from './stop-with-parent.cjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const count = Number(process.env.REPLICAS ?? 3)
const port = Number(process.env.PORT ?? 8080)
// PostgreSQL on PG_PORT, or on the cluster script's first free port.
const pgPort = process.env.PG_PORT ? [process.env.PG_PORT] : []

const dir = mkdtempSync(join(tmpdir(), 'sandbox-replicas-'))
const url = execFileSync(join(root, 'scripts/pg-cluster.sh'), ['start', dir, ...pgPort], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop()
execFileSync('psql', [url, '-qc', 'CREATE DATABASE sandbox'], { stdio: 'inherit' })
const databaseUrl = url.replace(/\/postgres$/, '/sandbox')

// The node flags of `npm start` (package.json), so each replica runs as `npm start` does.
const nodeFlags = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start.split(' ').slice(1, -1)

const replicas = []
for (let i = 0; i < count; i++) {
  const replicaPort = port + 1 + i
  const child = spawn(process.execPath, [...nodeFlags, join(root, 'scripts/start.cjs')], {
    env: {
      // As the image sets it (docs/behaviour.md, "A client secret's derivation"); yours wins.
      ...imageMallocEnv(root),
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(replicaPort),
      HOST: '127.0.0.1',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      TRUST_PROXY: '127.0.0.1',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn'
    },
    stdio: ['ignore', i === 0 ? 'inherit' : 'ignore', 'inherit']
  })
  replicas.push({ port: replicaPort, child, healthy: true })
}

// Health: every second, each replica's /_sandbox/health; a failing one is skipped until it answers.
setInterval(() => {
  for (const r of replicas) {
    const req = request({ host: '127.0.0.1', port: r.port, path: '/_sandbox/health', timeout: 1000 }, res => {
      r.healthy = res.statusCode === 200
      res.resume()
    })
    req.on('error', () => { r.healthy = false })
    req.on('timeout', () => req.destroy())
    req.end()
  }
}, 1000).unref()

let next = 0
const proxy = createServer((req, res) => {
  const healthy = replicas.filter(r => r.healthy)
  const target = (healthy.length > 0 ? healthy : replicas)[next++ % Math.max(1, healthy.length || replicas.length)]
  const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ')
  const upstream = request({ host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': forwarded } }, up => {
    res.writeHead(up.statusCode ?? 502, up.headers)
    up.pipe(res)
  })
  upstream.on('error', () => {
    target.healthy = false
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ code: 'bad_gateway', message: `replica on port ${target.port} did not answer` }))
  })
  req.pipe(upstream)
})
proxy.listen(port, '127.0.0.1', () => {
  process.stdout.write(`\n  ${count} replicas on PostgreSQL (${databaseUrl}) behind http://127.0.0.1:${port}` +
    `\n  replicas: ${replicas.map(r => `http://127.0.0.1:${r.port}`).join(', ')}\n  Ctrl-C stops everything.\n\n`)
})

let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  proxy.close()
  for (const r of replicas) r.child.kill('SIGTERM')
  setTimeout(() => {
    execFileSync(join(root, 'scripts/pg-cluster.sh'), ['stop', dir], { stdio: 'inherit' })
    process.exit(0)
  }, 1500)
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
// Stopped with npm, a SIGTERM sent to npm alone included (stop-with-parent.cjs says why).
stopWithParent('replicas', stop)
