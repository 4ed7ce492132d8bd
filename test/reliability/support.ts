// Support for the reliability tests: every route the app serves, the envelope rule every answer
// must follow, a listening server, and a webhook receiver on loopback.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { basic, UUID_RE } from '../helpers.js'
import { sourceServerArgs } from '../server-args.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface Server { child: ChildProcess, base: string, exited: Promise<void> }

/**
 * Starts the server from its sources (test/server-args.ts) in a child process on the database file
 * (with `env` on top of a silent, loopback, seedless configuration) and resolves with its URL, read
 * from the start banner.
 */
export async function startServer (databasePath: string, env: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, sourceServerArgs(), {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_PATH: databasePath,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SANDBOX_ADMIN_TOKEN: '',
      SEED_FILE: '',
      PUBLIC_URL: '',
      ...env
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
  let output = ''
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 30 s: ${output}`)), 30_000)
    const read = (chunk: Buffer): void => {
      output += chunk.toString()
      const match = /listening on (http:\/\/[^\s]+)/.exec(output)
      if (match !== null) { clearTimeout(timer); resolve(match[1]) }
    }
    child.stdout!.on('data', read)
    child.stderr!.on('data', read)
    child.once('exit', code => { clearTimeout(timer); reject(new Error(`server exited with ${String(code)}: ${output}`)) })
  })
  return { child, base, exited }
}

/** A client-credentials access token from a listening server. */
export async function clientToken (base: string, clientId: string, secret: string): Promise<string> {
  const res = await fetch(`${base}/core/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials'
  })
  if (res.status !== 200) throw new Error(`token: ${res.status}`)
  return ((await res.json()) as { access_token: string }).access_token
}

export interface Route { method: string, path: string }

/**
 * Every route of the app with each of its methods, read from `printRoutes`: hidden routes (the
 * portal, the docs) included, which the OpenAPI document leaves out.
 */
export function routesOf (app: FastifyInstance): Route[] {
  const stack: string[] = []
  const routes: Route[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (m === null) continue
    stack.length = m[1].length / 4
    stack.push(m[2])
    const path = stack.join('')
    for (const method of m[3]?.split(', ') ?? []) routes.push({ method, path })
  }
  return routes
}

/** The OpenAPI paths as router paths (`{id}` → `:id`), each with its methods and documented statuses. */
export function documentedRoutes (app: FastifyInstance): Array<Route & { statuses: string[] }> {
  const doc = app.swagger() as { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> }
  return Object.entries(doc.paths).flatMap(([path, operations]) => Object.entries(operations).map(([method, op]) => ({
    method: method.toUpperCase(),
    path: path.replace(/\{([^}]+)\}/g, ':$1'),
    statuses: Object.keys(op.responses ?? {})
  })))
}

export interface Answer {
  method: string
  /** The request URL as sent (path and query). */
  url: string
  status: number
  headers: Record<string, unknown>
  body: string
}

const TOKEN_PATH = '/core/oauth2/token'
// Pages for people: their refusals (an unknown or expired management link) are HTML too.
const HTML_PATHS = [/^\/webhooks\/portal\/[^/]*$/, /^\/_sandbox\/?$/, /^\/docs(\/|$)/]

const pathOf = (url: string): string => url.split(/[?#]/)[0]

/**
 * What is wrong with an answer, or undefined: no 5xx; the request-id header, a UUID; 204, 304 and
 * HEAD answers empty; errors in the envelope of their route: OAuth `{ error, error_description }`
 * on the token endpoint (a POST to it; 429 aside), `{ code, message, details? }` elsewhere; HTML only from pages.
 */
export function envelopeProblem (a: Answer, serviceName = 'service'): string | undefined {
  if (a.status >= 500) return `a ${a.status}`
  if (a.status < 100) return `status ${a.status}`
  const id = a.headers[`x-${serviceName}-request-id`]
  if (typeof id !== 'string' || !UUID_RE.test(id)) return `request id header ${String(id)}`
  if (a.status === 204 || a.status === 304 || a.method === 'HEAD') {
    return a.body === '' ? undefined : `a ${a.status} to ${a.method} with a body`
  }
  const type = String(a.headers['content-type'] ?? '')
  if (type.startsWith('text/html')) {
    return HTML_PATHS.some(re => re.test(pathOf(a.url))) ? undefined : `HTML from ${pathOf(a.url)}`
  }
  if (a.status < 400) {
    if (!type.includes('json')) return undefined
    try { JSON.parse(a.body) } catch (err) {
      const at = Number(/position (\d+)/.exec(String(err))?.[1] ?? 0)
      return `a 2xx JSON answer that does not parse (${String(err)}; near ${JSON.stringify(a.body.slice(Math.max(0, at - 80), at + 40))})`
    }
    return undefined
  }
  if (!type.startsWith('application/json')) return `an error of content type ${type}`
  let body: Record<string, unknown>
  try {
    body = JSON.parse(a.body) as Record<string, unknown>
  } catch {
    return 'an error body that does not parse'
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'an error body that is no object'
  const keys = Object.keys(body)
  if (a.method === 'POST' && pathOf(a.url) === TOKEN_PATH && a.status !== 429) {
    if (typeof body.error !== 'string' || typeof body.error_description !== 'string') return 'an OAuth error without error and error_description'
    return keys.every(k => ['error', 'error_description', 'error_uri'].includes(k)) ? undefined : `OAuth error with ${keys.join(', ')}`
  }
  if (typeof body.code !== 'string' || typeof body.message !== 'string') return 'an error without code and message'
  if (body.details !== undefined && (body.details === null || typeof body.details !== 'object')) return 'details that are no object'
  return keys.every(k => ['code', 'message', 'details'].includes(k)) ? undefined : `an error with ${keys.join(', ')}`
}

/** Listens on a free loopback port; returns the base URL. */
export async function listen (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

export interface Delivery { headers: IncomingHttpHeaders, body: string }

export interface Receiver {
  url: string
  deliveries: Delivery[]
  close (): Promise<void>
}

/** A webhook receiver on loopback that answers 204 and keeps what it got. */
export async function receiver (t: { teardown: (fn: () => unknown) => void }): Promise<Receiver> {
  const deliveries: Delivery[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(204).end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const close = (): Promise<void> => new Promise(resolve => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
  t.teardown(close)
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, deliveries, close }
}

/** Polls until `probe` gives a value; fails after `ms` (the dispatcher and child processes work in the background). */
export async function until<T> (probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}
