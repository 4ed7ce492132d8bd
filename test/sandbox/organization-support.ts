// Support for the tests of organizations driving their own sandbox: calls made with `inject` (on one
// app, or spread over replicas) in the shape of test/transactions/http-support.ts, so its journey
// steps (a ready user, accounts, an FPS deposit, a trade) run without a listening server; and an
// organization made through the control API, with a client holding `sandbox:control` and every
// scope of the Core API.
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { allScopes } from '../../src/auth/scopes.js'
import { basic, userIp } from '../helpers.js'
import type { Answer, Http } from '../transactions/http-support.js'

/** The admin token the apps of these tests are built with (SANDBOX_ADMIN_TOKEN). */
export const ADMIN_TOKEN = 'organization-tests-admin-token'
export const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }

/** Where a call goes: one app's `inject`, or a round robin over replicas. */
export type Call = (options: InjectOptions) => Promise<LightMyRequestResponse>

const answer = (res: LightMyRequestResponse): Answer => ({ status: res.statusCode, body: res.body === '' ? undefined : res.json() })

/** Calls with a Bearer token (as the client, or on behalf of `user`), through `call`. */
export function injectHttp (call: Call, token: string, serviceName = 'service'): Http {
  let bearer = token
  return {
    async call (method, url, { user, body, headers = {} } = {}) {
      return answer(await call({
        method: method as InjectOptions['method'],
        url,
        headers: {
          authorization: `Bearer ${bearer}`,
          ...(user === undefined ? {} : { 'x-on-behalf-of': `user ${user}` }),
          ...headers
        },
        ...(body === undefined ? {} : { payload: body as object })
      }))
    },
    context: { ...userIp(serviceName), [`x-${serviceName}-user-agent`]: 'organization-tests/1.0' },
    setToken (next) { bearer = next }
  }
}

/** An admin call to the control API. */
export async function asAdmin (call: Call, method: 'GET' | 'POST' | 'DELETE', url: string, body?: object): Promise<Answer> {
  return answer(await call({ method, url, headers: admin, ...(body === undefined ? {} : { payload: body }) }))
}

export interface Organization {
  organizationId: string
  clientId: string
  clientSecret: string
  /** A fresh client-credentials token of the organization's client (every scope it holds), asked through `via`. */
  token: (via?: Call) => Promise<string>
}

/**
 * An organization with one client holding `sandbox:control` and every Core API scope, made by the
 * admin with `POST /_sandbox/clients` (the organization is created with it).
 */
export async function organization (call: Call, organizationId: string, partnerArea = 'partner'): Promise<Organization> {
  const made = await asAdmin(call, 'POST', '/_sandbox/clients', { organizationId, name: `org ${organizationId.slice(0, 8)}`, scopes: Object.keys(allScopes(partnerArea)) })
  if (made.status !== 201) throw new Error(`client: ${made.status} ${JSON.stringify(made.body)}`)
  const { clientId, clientSecret } = made.body as { clientId: string, clientSecret: string }
  return {
    organizationId,
    clientId,
    clientSecret,
    token: async (via = call) => {
      const res = await via({
        method: 'POST',
        url: '/core/oauth2/token',
        headers: { authorization: basic(clientId, clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials'
      })
      if (res.statusCode !== 200) throw new Error(`token: ${res.statusCode} ${res.body}`)
      return res.json().access_token as string
    }
  }
}
