// KYC sharing sessions: which shareable processes a user still misses, and a short-lived token of
// that user that can update exactly those.
import type { FastifyInstance } from 'fastify'
import { entityNotFound, tokenRevoked } from '../errors.js'
import { operationNotAllowed } from '../http/user-context.js'
import { SHARED_PROCESSES } from '../../schemas/kyc.js'
import type { IssuedToken } from '../auth/tokens.js'
import { kycStore } from '../kyc/store.js'

export const SESSION_TTL_SECONDS = 600

export interface Session {
  processes: Array<typeof SHARED_PROCESSES[number]>
  userToken?: IssuedToken
}

export async function createSession (app: FastifyInstance, organizationId: string, clientId: string, userId: string): Promise<Session> {
  const snapshot = await app.storage.store(kycStore).read(organizationId, userId)
  if (snapshot === undefined) throw entityNotFound('user')
  if (!snapshot.config.kycSharing) throw operationNotAllowed(['permission-denied'], 'KYC Sharing is not configured for your organization')
  const processes = SHARED_PROCESSES.filter(p => !['ok', 'exempt'].includes(snapshot.processes[p].status))
  if (processes.length === 0) return { processes }
  const client = await app.clients.get(clientId)
  // The guard admitted the client a moment ago; it may have been deleted since.
  if (client === undefined) throw tokenRevoked()
  const scopes = processes.map(p => `core.kyc.${p}:update`)
  const userToken = await app.tokens.issue({ ...client, userId, refreshTokens: false }, scopes, undefined, SESSION_TTL_SECONDS)
  return { processes, userToken }
}
