// Test support for KYC: a user to verify, calls made as that user (the demo client acting on its
// behalf), every answer checked against the app's own OpenAPI response schema, and the events.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { accessToken, bearer, build, DEMO_ORG, generalTerms, onBehalfOf, userIp } from '../helpers.js'
import type { Config } from '../../src/config.js'
import type { BuildOptions } from '../../src/app.js'
import { ownDocumentChecker } from '../catalogue/openapi-check.js'

/** The app under the reference's names (`uphold`, `topper`), so answers are checked as the reference's are. */
export const buildKyc = (t: { teardown: (fn: () => unknown) => void }, overrides: Partial<Config> = {}, options: Partial<BuildOptions> = {}): Promise<FastifyInstance> =>
  build(t, { serviceName: 'uphold', partnerArea: 'topper', ...overrides }, options)

interface Assert { same: (found: unknown, wanted: unknown, message: string) => unknown }

export interface Caller {
  app: FastifyInstance
  userId: string
  /** A request as the user; the answer is checked against the document. */
  call: (method: 'GET' | 'PATCH' | 'POST' | 'DELETE', url: string, payload?: unknown, headers?: Record<string, string>) => Promise<LightMyRequestResponse>
  patch: (process: string, payload: unknown, headers?: Record<string, string>) => Promise<LightMyRequestResponse>
  overview: (detailed?: string) => Promise<Record<string, any>>
  /** POST /_sandbox/... (the admin control API), answer checked too. */
  control: (method: 'GET' | 'POST', url: string, payload?: unknown) => Promise<LightMyRequestResponse>
}

/** Creates an individual user through POST /core/users and answers a caller acting as it. */
export async function kycUser (t: Assert, app: FastifyInstance, user: Record<string, unknown> = {}): Promise<Caller> {
  const check = await ownDocumentChecker(app)
  const token = await accessToken(app)
  const country = (user.address as { country?: string } | undefined)?.country ?? 'PT'
  const created = await app.inject({
    method: 'POST',
    url: '/core/users',
    headers: { ...bearer(token), ...userIp(app.config.serviceName) },
    payload: { email: `user-${Math.random().toString(36).slice(2)}@example.com`, termsOfService: generalTerms(country), primaryCitizenship: 'PT', address: { country: 'PT' }, ...user }
  })
  if (created.statusCode !== 201) throw new Error(`create user: ${created.statusCode} ${created.body}`)
  const userId = created.json().user.id as string
  const checked = (method: string, url: string, res: LightMyRequestResponse): LightMyRequestResponse => {
    t.same(check(method, url, res), [], `${method} ${url} ${res.statusCode} matches the document`)
    return res
  }
  const caller: Caller = {
    app,
    userId,
    call: async (method, url, payload, headers = {}) =>
      checked(method, url, await app.inject({ method, url, headers: { ...bearer(token), ...onBehalfOf(userId), ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) })),
    patch: (process, payload, headers) => caller.call('PATCH', `/core/kyc/processes/${process}`, payload, headers),
    overview: async (detailed) => {
      const res = await caller.call('GET', `/core/kyc${detailed === undefined ? '' : `?detailed=${detailed}`}`)
      if (res.statusCode !== 200) throw new Error(`overview: ${res.statusCode} ${res.body}`)
      return res.json()
    },
    control: async (method, url, payload) =>
      checked(method, url, await app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) }))
  }
  return caller
}

export const DEMO = DEMO_ORG

/** The KYC events recorded so far for the user, in order, as `<process>:<status>`. */
export async function kycEvents (app: FastifyInstance, userId: string): Promise<string[]> {
  const rows = await app.storage.db.prepare<[], { type: string, payload: string }>("SELECT type, payload FROM events WHERE type LIKE 'core.ky%' ORDER BY seq").all()
  return rows.map(r => ({ type: r.type, data: JSON.parse(r.payload).data as { userId: string, status: string } }))
    .filter(e => e.data.userId === userId)
    .map(e => `${e.type.split('.')[2]}:${e.data.status}`)
}

/** Moves the sandbox clock through the control API (which waits for the reviews that fell due). */
export async function advance (app: FastifyInstance, seconds: number): Promise<void> {
  const res = await app.inject({ method: 'POST', url: '/_sandbox/clock', payload: { advanceSeconds: seconds } })
  if (res.statusCode !== 200) throw new Error(`clock: ${res.statusCode} ${res.body}`)
}

export const PROFILE = {
  input: {
    fullName: 'Maria Silva',
    birthdate: '1990-05-17',
    address: { city: 'Lisboa', line1: 'Rua Augusta 10', postalCode: '1100-053' }
  }
}

/**
 * A file of the user, through the files area's store (created, then uploaded unless told not to).
 */
export async function userFile (app: FastifyInstance, userId: string, opts: { uploaded?: boolean, organizationId?: string } = {}): Promise<string> {
  const { filesStore } = await import('../../src/files/store.js')
  const files = app.storage.store(filesStore)
  const id = randomUUID()
  const organizationId = opts.organizationId ?? DEMO_ORG
  const created = await files.create({ id, organizationId, userId, status: 'pending', category: 'image', contentType: 'image/png', size: null, createdAt: app.clock.iso(), uploadedAt: null }, 100)
  if (!created.ok) throw new Error(`file: ${created.reason}`)
  if (opts.uploaded !== false) await files.upload(organizationId, id, Buffer.from('png'), app.clock.iso())
  return id
}
