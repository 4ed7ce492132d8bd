// The entity types that carry metadata (spec: the areas with metadata read and write scopes), in
// the API's own words: the path segment, the name errors use, the scopes.
import type { FastifyInstance } from 'fastify'
import { entityNotFound } from '../errors.js'
import type { AuthContext } from '../auth/guard.js'
import type { MetadataRef } from '../storage/metadata.js'

export interface MetadataEntity {
  /** Path segment, and the `type` of non-user entities in storage (`storage.entities`). */
  segment: 'users' | 'accounts' | 'files' | 'external-accounts' | 'transactions'
  /** `details.entity` of a 404, as in "The <name> cannot be found". */
  name: string
  /** The path parameter naming one entity. */
  param: string
  /** Words for summaries: "Get <title> metadata". */
  title: string
  /** Prefix of operation ids: `get<Operation>Metadata`. */
  operation: string
}

export const METADATA_ENTITIES: readonly MetadataEntity[] = [
  { segment: 'users', name: 'user', param: 'userId', title: 'user', operation: 'User' },
  { segment: 'accounts', name: 'account', param: 'accountId', title: 'account', operation: 'Account' },
  { segment: 'files', name: 'file', param: 'fileId', title: 'file', operation: 'File' },
  { segment: 'external-accounts', name: 'external-account', param: 'externalAccountId', title: 'external account', operation: 'ExternalAccount' },
  { segment: 'transactions', name: 'transaction', param: 'transactionId', title: 'transaction', operation: 'Transaction' }
]

export const readScope = (e: MetadataEntity): string => `core.${e.segment}.metadata:read`
export const writeScope = (e: MetadataEntity): string => `core.${e.segment}.metadata:write`

/**
 * The metadata an acting user may reach: their own user (`me` or their id), or an entity of their
 * organization that they own. Anything else is 404, so foreign ids reveal nothing.
 */
export async function resolveMetadataRef (app: FastifyInstance, auth: AuthContext, entity: MetadataEntity, entityId: string): Promise<MetadataRef> {
  const { organizationId, userId } = auth
  if (entity.segment === 'users') return ownUserRef(auth, entityId)
  const found = await app.storage.entities.get(organizationId, entity.segment, entityId)
  if (found === undefined || found.userId !== userId) throw entityNotFound(entity.name)
  return { organizationId, entity: entity.segment, entityId: found.id }
}

/** The acting user's own metadata (`me` or their id), found with no read; any other user is 404. */
export function ownUserRef ({ organizationId, userId }: AuthContext, entityId: string): MetadataRef {
  const id = entityId === 'me' ? userId : entityId
  // The guard has checked that the acting user exists, whether named by X-On-Behalf-Of or bound to the token.
  if (userId === null || id !== userId) throw entityNotFound('user')
  return { organizationId, entity: 'users', entityId: userId }
}
