// What the metadata tests share: an app with a user to act as, requests the way an integrator
// sends them, and the ETag computed independently of the server's code.
import { createHash } from 'node:crypto'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { accessToken, bearer, build, makeUser, onBehalfOf } from '../helpers.js'

interface Teardown { teardown: (fn: () => unknown) => void }

/** `"<sha256 hex of JSON.stringify(value)>"`, as the decisions define the ETag. */
export const etag = (value: unknown): string => `"${createHash('sha256').update(JSON.stringify(value)).digest('hex')}"`

export interface MetadataFixture {
  app: FastifyInstance
  token: string
  userId: string
  /** Authorization and X-On-Behalf-Of for the fixture's user. */
  headers: Record<string, string>
  /** A request on /core/users/me/metadata (or `url`) as the fixture's user. */
  send: (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', opts?: { url?: string, headers?: Record<string, string>, payload?: unknown, contentType?: string }) => Promise<LightMyRequestResponse>
  /** What storage holds for the user's metadata. */
  stored: (entityId?: string, entity?: string) => Promise<unknown>
}

export async function metadataFixture (t: Teardown, app?: FastifyInstance): Promise<MetadataFixture> {
  app ??= await build(t)
  const token = await accessToken(app)
  const user = await makeUser(app)
  const headers = { ...bearer(token), ...onBehalfOf(user.id) }
  const a = app
  return {
    app,
    token,
    userId: user.id,
    headers,
    send: (method, opts = {}) => {
      const extra: Record<string, string> = {}
      if (opts.payload !== undefined) extra['content-type'] = opts.contentType ?? (method === 'PATCH' ? 'application/json-patch+json' : 'application/json')
      return a.inject({
        method,
        url: opts.url ?? '/core/users/me/metadata',
        headers: { ...headers, ...extra, ...opts.headers },
        ...(opts.payload === undefined ? {} : { payload: typeof opts.payload === 'string' ? opts.payload : JSON.stringify(opts.payload) })
      })
    },
    stored: async (entityId = user.id, entity = 'users') =>
      (await a.storage.metadata.get({ organizationId: user.organizationId, entity, entityId }))?.value
  }
}
