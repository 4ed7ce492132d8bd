// Shared setup of the accounts and capabilities tests: the app under the reference's names, a user
// acting through the demo client, and calls checked against the app's own OpenAPI document.
import type { Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { accessToken, bearer, build, makeUser, onBehalfOf, UUID_RE } from '../helpers.js'
import { ownDocumentChecker } from '../catalogue/openapi-check.js'
import type { Config } from '../../src/config.js'

export const REQUEST_ID = 'x-uphold-request-id'
export const USER_IP = { 'x-uphold-user-ip': '47.174.97.164' }

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
export type Call = (method: Method, url: string, options?: { payload?: unknown, headers?: Record<string, string>, user?: string | null }) => Promise<LightMyRequestResponse>

export interface Setup {
  app: FastifyInstance
  userId: string
  /** An API call as the user (or as `user`, or as the client with `user: null`), checked against the document. */
  call: Call
  /** A new token for `call`: after the clock moved past the old one's lifetime. */
  renewToken: () => Promise<void>
}

/** Every KYC process, screening and risk last (identity and due diligence start them again). */
export const KYC_PROCESSES = [
  'profile', 'address', 'email', 'phone', 'identity', 'proof-of-address', 'customer-due-diligence', 'enhanced-due-diligence',
  'crypto-risk-assessment', 'self-categorization-statement', 'tax-details', 'screening', 'risk'
]

/** Forces every KYC process of the user to `status` through the sandbox control. */
export async function forceKyc (app: FastifyInstance, userId: string, status = 'ok', processes = KYC_PROCESSES): Promise<void> {
  for (const process of processes) {
    const res = await app.inject({ method: 'POST', url: `/_sandbox/users/${userId}/kyc/${process}`, payload: { status } })
    if (res.statusCode !== 200) throw new Error(`forcing ${process}: ${res.statusCode} ${res.body}`)
  }
}

/**
 * A user who can do everything the tests need: KYC done, the cooldown skipped and the vIBAN terms
 * accepted (the default user resides in GB).
 */
export async function ready ({ app, userId, call }: Setup): Promise<void> {
  await forceKyc(app, userId)
  if ((await call('PUT', '/core/assets/test-helpers/skip-assets-cooldowns')).statusCode !== 204) throw new Error('skip cooldowns')
  const accepted = await call('POST', '/core/terms-of-service/unique-account-number-viban/accept', { headers: USER_IP })
  if (accepted.statusCode !== 201) throw new Error(`accept: ${accepted.statusCode} ${accepted.body}`)
}

export async function setup (t: Test, overrides: Partial<Config> = {}): Promise<Setup> {
  const app = await build(t, { serviceName: 'uphold', partnerArea: 'topper', ...overrides })
  let token = await accessToken(app)
  const check = await ownDocumentChecker(app)
  const user = await makeUser(app)
  const call: Call = async (method, url, { payload, headers = {}, user: as = user.id } = {}) => {
    const res = await app.inject({ method, url, payload: payload as object, headers: { ...bearer(token), ...(as === null ? {} : onBehalfOf(as)), ...headers } })
    t.match(res.headers[REQUEST_ID], UUID_RE, `${method} ${url}: request id`)
    t.same(check(method, url, res), [], `${method} ${url} ${res.statusCode}: conforms to the app's own OpenAPI document`)
    return res
  }
  return { app, userId: user.id, call, renewToken: async () => { token = await accessToken(app) } }
}
