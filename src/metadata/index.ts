// The metadata area: GET, PUT, PATCH and DELETE on /core/<entity>/<entityId>/metadata for every
// entity type that carries metadata. One route per entity type and method, so each operation in
// the OpenAPI document names its own scope.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { requestInvalid } from '../errors.js'
import { operation, type UserAuth } from '../kit/operation.js'
import { ETagHeader, JsonPatch, Metadata, MetadataBody, metadataHeaders } from '../../schemas/metadata.js'
import { parseTagCondition, type Preconditions } from './conditional.js'
import { ownUserRef, readScope, resolveMetadataRef, writeScope, type MetadataEntity } from './entities.js'
import { defineArea } from '../kit/area.js'
import { metadataFixture } from './fixtures.js'
import { deleteMetadata, patchMetadata, readMetadata, readOutcome, setMetadata, type ReadOutcome } from './service.js'
import type { MetadataRevision } from '../storage/metadata.js'

const JSON_PATCH = 'application/json-patch+json'

/** If-Match and If-None-Match of a request (the schema has checked their syntax already). */
function preconditionsOf (request: FastifyRequest): Preconditions {
  const conditions: Preconditions = {}
  for (const [header, key] of [['if-match', 'ifMatch'], ['if-none-match', 'ifNoneMatch']] as const) {
    const value = request.headers[header]
    if (value === undefined) continue
    const parsed = typeof value === 'string' ? parseTagCondition(value) : undefined
    if (parsed === undefined) throw requestInvalid('headers', [{ property: header, rule: 'pattern' }])
    conditions[key] = parsed
  }
  return conditions
}

const responses = {
  403: 'The token lacks the scope (`token_insufficient_scopes`), or acts for no user (`token_subject_not_allowed`): send `X-On-Behalf-Of: user <uuid>`.',
  404: (e: MetadataEntity) => `\`entity_not_found\`: the ${e.title} does not exist for the acting user (\`details.entity: "${e.name}"\`), or it has no metadata (\`details.entity: "metadata"\`).`,
  412: '`precondition_failed`: If-Match does not match the current revision (strong comparison; any If-Match when no metadata exists), or If-None-Match matches it. Nothing was changed.',
  413: '`content_too_large`: the metadata would be over 1024 characters (`details.threshold: { unit: "characters", limit: "1024" }`), or the body is over the server\'s body limit (`unit: "bytes"`).',
  415: '`media_type_unsupported`: the body is not of an accepted content type.'
}

const withEtag = (description: string) => ({ description, headers: ETagHeader })

/** `{ metadata }` of a revision, from its JSON text: no parse and no serialization of the value. */
const sendRevision = (reply: FastifyReply, status: number, revision: MetadataRevision): FastifyReply =>
  reply.code(status).header('etag', revision.etag).type('application/json; charset=utf-8').send(`{"metadata":${revision.json ?? JSON.stringify(revision.value)}}`)

/** Answers a read. Returns nothing: a handler that returns the reply has Fastify wait on it (it is a thenable). */
function sendRead (reply: FastifyReply, outcome: ReadOutcome): void {
  if (outcome.status === 304) reply.code(304).header('etag', outcome.etag).send()
  else sendRevision(reply, 200, outcome.revision)
}

async function metadataRoutes (app: FastifyInstance): Promise<void> {
  // JSON Patch bodies parse as JSON does, refusing `__proto__` and `constructor.prototype` alike;
  // a text/plain body is no metadata and no patch, so it is 415 rather than a string to validate.
  // Fastify's default JSON parser is its callback form: it answers through `done`, returning nothing.
  const json = app.getDefaultJsonParser('error', 'error') as (request: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void) => void
  app.addContentTypeParser(JSON_PATCH, { parseAs: 'string' }, json)
  app.removeContentTypeParser(['text/plain', 'application/json'])
  // A DELETE has no body: clients that send `Content-Type: application/json` on every request pass.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body: string, done) => {
    if (body === '' && request.method === 'DELETE') done(null, undefined)
    else json(request, body, done)
  })
  const workLimit = 8 * app.config.bodyLimitBytes

  for (const e of app.areas.metadataEntities()) {
    const url = `/core/${e.segment}/:${e.param}/metadata`
    const params = Type.Object({
      [e.param]: Type.String({
        minLength: 1,
        description: e.ownerOf === undefined
          ? 'The acting user\'s id, or `me`.'
          : `The ${e.title} id; the ${e.title} must belong to the acting user.`
      })
    })
    const read = { tag: 'Metadata', scopes: [readScope(e)], subjects: ['user' as const], params }
    const write = { tag: 'Metadata', scopes: [writeScope(e)], subjects: ['user' as const], params, headers: metadataHeaders(false) }
    const who = e.ownerOf === undefined
      ? 'The user must be the acting user (`me` names them).'
      : `The ${e.title} must belong to the acting user; any other id, including one of another organization, is 404.`
    const common = 'A client token acts for a user with `X-On-Behalf-Of: user <uuid>`. Authentication, scope and 404 answers come before preconditions (RFC 9110 13.2.1).'
    const ref = (request: { auth: UserAuth, params: Record<string, string> }) =>
      resolveMetadataRef(app, request.auth, e, request.params[e.param])

    operation(app, {
      ...read,
      id: `get${e.operation}Metadata`,
      method: 'GET',
      url,
      summary: `Get ${e.title} metadata`,
      description: `Returns the metadata of the ${e.title} as \`{ metadata }\`, with its revision in \`ETag\`. ${who} ${common} ` +
          'If-None-Match (weak comparison, lists, `*`) that matches: 304 with the `ETag` and no body. If-Match is evaluated too (strong comparison): failing, 412.',
      headers: metadataHeaders(true),
      responses: {
        200: { ...withEtag('The metadata.'), ...MetadataBody },
        304: { ...withEtag('Not modified: If-None-Match matches the current revision. No body.'), type: 'null' },
        403: responses[403],
        404: responses[404](e),
        412: responses[412]
      }
    }, (request, reply) => {
      if (e.ownerOf !== undefined) return ref(request).then(target => readMetadata(app, target, preconditionsOf(request))).then(outcome => sendRead(reply, outcome))
      // The usual read, of the acting user's own metadata with its revision in memory, answers at
      // once; the user's reference needs no read. Not waiting on a promise is a few percent of a 304's cost.
      const target = ownUserRef(request.auth, request.params[e.param])
      const current = app.storage.metadata.cached(target)
      if (current === undefined) return readMetadata(app, target, preconditionsOf(request)).then(outcome => sendRead(reply, outcome))
      sendRead(reply, readOutcome(current, preconditionsOf(request)))
    })

    operation(app, {
      ...write,
      id: `set${e.operation}Metadata`,
      method: 'PUT',
      url,
      summary: `Set ${e.title} metadata`,
      description: `Creates (201) or entirely replaces (200) the metadata of the ${e.title}; the body is the metadata object itself (at least one member). ${who} ${common} ` +
          'The size limit is checked before the preconditions. `If-None-Match: *` creates only (412 when metadata exists); If-None-Match also takes entity-tag lists (RFC 9110). ' +
          'If-Match (strong comparison, lists, `*`) replaces only that revision; with no metadata stored, any If-Match is 412. Concurrent writers with the same If-Match: exactly one succeeds; without preconditions each succeeds, the last one\'s value stays.',
      body: Metadata,
      responses: {
        200: { ...withEtag('Replaced.'), ...MetadataBody },
        201: { ...withEtag('Created.'), ...MetadataBody },
        403: responses[403],
        404: `\`entity_not_found\`: the ${e.title} does not exist for the acting user (\`details.entity: "${e.name}"\`).`,
        412: responses[412],
        413: responses[413],
        415: responses[415]
      }
    }, async (request, reply) => {
      const target = await ref(request)
      const { created, revision } = await setMetadata(app, target, preconditionsOf(request), request.body)
      return sendRevision(reply, created ? 201 : 200, revision)
    })

    operation(app, {
      ...write,
      id: `update${e.operation}Metadata`,
      method: 'PATCH',
      url,
      summary: `Update ${e.title} metadata`,
      description: `Applies a JSON Patch (RFC 6902; all six operations) to the metadata of the ${e.title}, atomically: if any operation fails, nothing changes and the answer is 422 ` +
          '`json_patch_failed` with `details: { operation: { index, op, path }, reason }`. Members an operation does not define are ignored (RFC 6902 section 4). ' +
          'Paths are JSON Pointers (RFC 6901); one that is not (e.g. `/a~2`) is 400. Every lookup is of own members, so `/constructor` or `/toString` name nothing until added. ' +
          'The result must be an object with at least one member (else 422, reported on the last operation), within the size limit (else 413), and without a `__proto__` member, which no body may carry (else 422). ' +
          `No metadata yet: 404. ${who} ${common} Content type \`${JSON_PATCH}\` (\`application/json\` is accepted too); any other is 415 with \`Accept-Patch\`.`,
      body: JsonPatch,
      consumes: [JSON_PATCH, 'application/json'],
      responses: {
        200: { ...withEtag('Patched.'), ...MetadataBody },
        403: responses[403],
        404: responses[404](e),
        412: responses[412],
        413: responses[413],
        415: responses[415],
        422: '`json_patch_failed`: an operation does not apply, or the result is not a metadata object. `details: { operation: { index, op, path }, reason }`.'
      },
      // RFC 5789 3.1: a 415 names the patch formats the resource accepts.
      onSend: async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        if (reply.statusCode === 415) reply.header('accept-patch', JSON_PATCH)
        return payload
      }
    }, async (request, reply) => {
      const target = await ref(request)
      const revision = await patchMetadata(app, target, preconditionsOf(request), request.body, workLimit)
      return sendRevision(reply, 200, revision)
    })

    operation(app, {
      ...write,
      id: `delete${e.operation}Metadata`,
      method: 'DELETE',
      url,
      summary: `Delete ${e.title} metadata`,
      description: `Removes all metadata of the ${e.title}: 204 with no body and no \`ETag\` (no revision remains). No metadata: 404. ` +
          `If-Match and If-None-Match as for PUT. ${who} ${common}`,
      responses: {
        204: { description: 'Deleted.', type: 'null' },
        403: responses[403],
        404: responses[404](e),
        412: responses[412]
      }
    }, async (request, reply) => {
      await deleteMetadata(app, await ref(request), preconditionsOf(request))
      return reply.code(204).send()
    })
  }
}

export default defineArea({
  name: 'metadata',
  tags: [{ name: 'Metadata', description: 'Custom JSON metadata on entities, with ETags and JSON Patch.' }],
  fixtures: [metadataFixture],
  plugin: metadataRoutes
})
