// The setup the API areas' tests share: the app under the reference's names, a user acting
// through the demo client, and calls checked against the app's own OpenAPI document.
import type { Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { accessToken, bearer, build, makeUser, onBehalfOf, UUID_RE } from './helpers.js'
import { ownDocumentChecker } from './catalogue/openapi-check.js'
import type { Config } from '../src/config.js'

export const REQUEST_ID = 'x-uphold-request-id'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
export type Call = (method: Method, url: string, options?: { payload?: unknown, headers?: Record<string, string>, user?: string | null }) => Promise<LightMyRequestResponse>

export interface Setup {
  app: FastifyInstance
  /** The token `call` sends (until `renewToken`). */
  token: string
  userId: string
  /** An API call as the user (or as `user`, or as the client with `user: null`), checked against the document. */
  call: Call
  /** A new token for `call`: after the clock moved past the old one's lifetime. */
  renewToken: () => Promise<void>
}

/**
 * `checks: 'throw'`: each call's checks throw instead of asserting, for a property test whose number
 * of calls varies from run to run (its assertions stay the same in number, and fast-check shrinks
 * a history whose calls fail them).
 */
export async function setup (t: Test, overrides: Partial<Config> = {}, { checks = 'assert' }: { checks?: 'assert' | 'throw' } = {}): Promise<Setup> {
  const app = await build(t, { serviceName: 'uphold', partnerArea: 'topper', ...overrides })
  let token = await accessToken(app)
  const check = await ownDocumentChecker(app)
  const user = await makeUser(app)
  const call: Call = async (method, url, { payload, headers = {}, user: as = user.id } = {}) => {
    const res = await app.inject({ method, url, payload: payload as object, headers: { ...bearer(token), ...(as === null ? {} : onBehalfOf(as)), ...headers } })
    const id = res.headers[REQUEST_ID]
    const problems = check(method, url, res)
    if (checks === 'assert') {
      t.match(id, UUID_RE, `${method} ${url}: request id`)
      t.same(problems, [], `${method} ${url} ${res.statusCode}: conforms to the app's own OpenAPI document`)
    } else {
      if (typeof id !== 'string' || !UUID_RE.test(id)) throw new Error(`${method} ${url}: request id ${String(id)}`)
      if (problems.length > 0) throw new Error(`${method} ${url} ${res.statusCode}: does not conform to the app's own OpenAPI document: ${JSON.stringify(problems)}`)
    }
    return res
  }
  return { app, token, userId: user.id, call, renewToken: async () => { token = await accessToken(app) } }
}
