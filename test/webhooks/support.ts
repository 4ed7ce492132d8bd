// Test support for webhooks: a real HTTP receiver on 127.0.0.1, a bounded wait for what the
// dispatcher does in the background, and shortcuts for links and endpoints.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { accessToken, bearer } from '../helpers.js'

export interface Received {
  headers: IncomingHttpHeaders
  body: string
}

export interface Answer { status: number, body?: string, delayMs?: number }

export interface Receiver {
  url: string
  received: Received[]
  /** Resolves once `count` requests have arrived. */
  waitFor (count: number): Promise<Received[]>
}

interface Teardown { teardown: (fn: () => unknown) => void }

/**
 * A receiver answering each request with `answer(n)` (n from 0); 200 "ok" by default. With `tls`
 * (a key and certificate, PEM), over https.
 */
export async function startReceiver (t: Teardown, answer: (n: number) => Answer = () => ({ status: 200, body: 'ok' }), ports: number[] = [0], tls?: { key: string, cert: string }): Promise<Receiver> {
  const received: Received[] = []
  const timers = new Set<NodeJS.Timeout>()
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const n = received.length
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      const { status, body = '', delayMs = 0 } = answer(n)
      const send = (): void => { res.writeHead(status, { 'content-type': 'text/plain' }).end(body) }
      if (delayMs === 0) send()
      else {
        const timer = setTimeout(() => { timers.delete(timer); if (!res.destroyed) send() }, delayMs)
        timers.add(timer)
      }
    })
  }
  const server = tls === undefined ? createServer(handle) : createHttpsServer(tls, handle)
  await listenOnFirstFree(server, ports)
  t.teardown(() => {
    for (const timer of timers) clearTimeout(timer)
    server.closeAllConnections()
    return new Promise(resolve => server.close(() => resolve(undefined)))
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}/hooks`,
    received,
    waitFor: count => until(() => received.length >= count ? received.slice() : undefined, `${count} deliveries`)
  }
}

async function listenOnFirstFree (server: ReturnType<typeof createServer> | ReturnType<typeof createHttpsServer>, ports: number[]): Promise<void> {
  for (const port of ports) {
    const error = await new Promise<Error | undefined>(resolve => {
      server.once('error', resolve)
      server.listen(port, '127.0.0.1', () => { server.off('error', resolve); resolve(undefined) })
    })
    if (error === undefined) return
  }
  throw new Error(`none of the ports ${ports.join(', ')} is free`)
}

/** Polls `probe` until it returns a value (the dispatcher works in the background); fails after 10 s. */
export async function until<T> (probe: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

export interface Link { url: string, path: string, token: string, expiresAt: string }

/** A management link of the client's organization (the demo client by default). */
export async function managementLink (app: FastifyInstance, client: { clientId?: string, secret?: string } = {}): Promise<Link> {
  const token = await accessToken(app, { ...client, scope: 'core.webhooks:management-link' })
  const res = await app.inject({ method: 'POST', url: '/core/webhooks/management-link', headers: bearer(token) })
  if (res.statusCode !== 201) throw new Error(`management link: ${res.statusCode} ${res.body}`)
  const { url, expiresAt } = res.json().managementLink as { url: string, expiresAt: string }
  const path = new URL(url).pathname
  return { url, path, token: path.split('/').pop()!, expiresAt }
}

/** Adds an endpoint through the portal's API. */
export async function addEndpoint (app: FastifyInstance, link: Link, body: Record<string, unknown>): Promise<{ id: string, secret: string, url: string }> {
  const res = await app.inject({ method: 'POST', url: `${link.path}/api/endpoints`, payload: body })
  if (res.statusCode !== 201) throw new Error(`add endpoint: ${res.statusCode} ${res.body}`)
  return res.json().endpoint
}

/** POST identify-user as the given client (the demo client by default). */
export async function identify (app: FastifyInstance, email: string, client: { clientId?: string, secret?: string } = {}, country = 'GB') {
  const token = await accessToken(app, { ...client, scope: `${app.config.partnerArea}.kyc-sharing:identify-user` })
  return app.inject({ method: 'POST', url: `/${app.config.partnerArea}/kyc-sharing/identify-user`, headers: bearer(token), payload: { email, country } })
}

export interface MessageJson {
  id: string
  organizationId: string
  endpointId: string
  eventId: string
  eventType: string
  payload: { id: string, type: string, createdAt: string, data: Record<string, unknown> }
  status: 'pending' | 'delivered' | 'failed'
  nextAttemptAt: string | null
  createdAt: string
  attempts: Array<{ id: string, attemptedAt: string, url: string, statusCode: number | null, error: string | null, durationMs: number, responseBody: string }>
}

/** The messages the portal shows for a link. */
export async function portalMessages (app: FastifyInstance, link: Link): Promise<MessageJson[]> {
  const res = await app.inject({ method: 'GET', url: `${link.path}/api/messages` })
  if (res.statusCode !== 200) throw new Error(`messages: ${res.statusCode} ${res.body}`)
  return res.json().messages
}

/** Waits until the message list has a message with `count` attempts, and returns that list. */
export function untilAttempts (app: FastifyInstance, link: Link, count: number): Promise<MessageJson[]> {
  return until(async () => {
    const messages = await portalMessages(app, link)
    return messages.some(m => m.attempts.length >= count) ? messages : undefined
  }, `${count} attempts`)
}
