// The scopes of an entity type that carries metadata, and who may reach an entity's metadata. The
// entity types themselves are declared by the areas that own them (`metadataEntities`).
import type { FastifyInstance } from 'fastify'
import { entityNotFound } from '../errors.js'
import type { AuthContext } from '../auth/guard.js'
import type { MetadataRef } from '../storage/metadata.js'
import type { MetadataEntity } from '../kit/area.js'

export type { MetadataEntity }

export const readScope = (e: MetadataEntity): string => `core.${e.segment}.metadata:read`
export const writeScope = (e: MetadataEntity): string => `core.${e.segment}.metadata:write`

/**
 * The metadata an acting user may reach: their own user (`me` or their id), or an entity of their
 * organization that they own. Anything else is 404, so foreign ids reveal nothing.
 */
export async function resolveMetadataRef (app: FastifyInstance, auth: AuthContext, entity: MetadataEntity, entityId: string): Promise<MetadataRef> {
  const { organizationId, userId } = auth
  if (entity.ownerOf === undefined) return ownUserRef(auth, entityId)
  const owner = await entity.ownerOf(app, organizationId, entityId)
  if (owner === undefined || owner !== userId) throw entityNotFound(entity.name)
  return { organizationId, entity: entity.segment, entityId }
}

/** The acting user's own metadata (`me` or their id), found with no read; any other user is 404. */
export function ownUserRef ({ organizationId, userId }: AuthContext, entityId: string): MetadataRef {
  const id = entityId === 'me' ? userId : entityId
  // The guard has checked that the acting user exists, whether named by X-On-Behalf-Of or bound to the token.
  if (userId === null || id !== userId) throw entityNotFound('user')
  return { organizationId, entity: 'users', entityId: userId }
}
