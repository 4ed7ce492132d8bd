// Sandbox state: reset, fixtures, organizations and the entities that carry metadata.
import type { FastifyInstance } from 'fastify'
import { randomUUID } from 'node:crypto'
import {
  EntityCreate, EntityParams, OrganizationList, ResetRequest
} from '../../schemas/sandbox.js'
import { errorResponse } from '../../schemas/common.js'
import { ApiError, conflict, entityNotFound, requestInvalid } from '../errors.js'
import { callerOrganization, callerSees, control, emptyBodyAsObject, noContent, ref } from '../kit/operation.js'
import { applySeed, checkFixture, entityRecord, loadFixture, type Seed } from './fixtures.js'
import { fixtureDocumentSchema, fixtureSummarySchema, globalKeysOf } from '../kit/fixtures.js'

export interface StateOptions {
  /** The SEED_FILE loaded at start, brought back by a full reset. */
  seed?: Seed
}

export default async function state (app: FastifyInstance, { seed }: StateOptions): Promise<void> {
  control(app, {
    id: 'sandboxReset',
    method: 'POST',
    url: '/_sandbox/reset',
    preValidation: emptyBodyAsObject,
    summary: 'Reset the sandbox',
    description: 'Without a body (or with `{}`): deletes every organization, client, user, entity, metadata, event, webhook endpoint and message, ' +
        'then brings back the start state: the demo client (same id, secret and organization) and the SEED_FILE given at start, if any. ' +
        'It also removes every fault rule and sets the clock back to real time. The signing key is kept, but tokens issued before are revoked ' +
        '(their clients are gone or created anew). The request log is kept, so the reset itself can be seen in it.\n\n' +
        'With `{ "organizationId" }`: deletes that organization and everything in it only; the clock, fault rules and other organizations ' +
        'are untouched. Resetting the demo organization creates the demo client again. Answers 204 even when the organization did not exist.\n\n' +
        'With an organization\'s control token (scope `sandbox:control`): its own organization\'s data only, with or without `{ "organizationId" }` ' +
        '(naming another is 404): its users and everything they own, its entities, metadata, events, webhook endpoints and messages, its fault rules, ' +
        'its pinned prices and its clock (back on the global clock). Its clients (and their tokens) and the organization are kept.',
    acts: 'organization',
    body: ResetRequest,
    responses: { 204: noContent('The sandbox is reset.') }
  }, async (request, reply) => {
    const named = request.body?.organizationId
    const organizationId = callerOrganization(request, named)
    const own = request.control?.admin === false
    await app.storage.admin.reset(organizationId, { keepClients: own })
    // Each area drops what it remembers and brings back what must exist (the demo client).
    await app.areas.reset(app, organizationId)
    if (organizationId === undefined && seed !== undefined) await applySeed(app, seed)
    return reply.code(204).send()
  })

  control(app, {
    id: 'sandboxLoadFixture',
    method: 'POST',
    url: '/_sandbox/fixtures',
    summary: 'Load a fixture',
    description: 'Creates organizations, users, clients, entities (accounts, files, external accounts, transactions) and metadata in one go. ' +
        'Everything is checked before anything is written: the schema first, then every reference (an organization, user or entity must exist in the fixture ' +
        'or already in the sandbox; user ids, client ids, entity ids and e-mails per organization must be new; metadata at most 1024 characters). ' +
        'Any problem answers 400 `request_invalid` listing each bad path (`users.2.email`) with the rule broken ' +
        '(`unique`, `exists`, `match`, `scope`, `maxLength` or a schema rule) and nothing is loaded; otherwise everything is loaded in one transaction.\n\n' +
        'Defaults: `organizationId` of users and clients is the demo organization; a user\'s `primaryCitizenship` and `address.country` default to each other, ' +
        'else `US`; ids not given are random UUIDs (give ids for users and entities other items refer to). An organization that already exists is kept as it is. ' +
        'Metadata replaces any metadata the entity had. Loading a fixture records no events, so no webhook is sent. The same document is accepted by SEED_FILE.\n\n' +
        'With an organization\'s control token (scope `sandbox:control`): items default to its organization, and nothing of another organization exists ' +
        'for them (naming one is an `exists` violation); the keys that act on every organization (`organizations` and the catalogue\'s: `assets`, `networks`, ' +
        '`rails`, `countries`) answer 403 `forbidden`.',
    acts: 'organization',
    // Composed of every area's fixture keys.
    body: fixtureDocumentSchema(app.areas),
    responses: {
      201: { description: 'Loaded: what was created, with the ids given or generated, in fixture order.', ...fixtureSummarySchema(app.areas) },
      409: errorResponse('Data written while the fixture was loading conflicts with it (`fixture_conflict`); nothing was loaded.')
    }
  }, async (request, reply) => {
    const organizationId = request.control?.admin === false ? request.control.organizationId : undefined
    if (organizationId !== undefined) {
      const global = globalKeysOf(app.areas, request.body as Record<string, unknown>)
      if (global.length > 0) throw new ApiError(403, 'forbidden', 'This control acts on every organization: use the admin token', { keys: global })
    }
    const checked = await checkFixture(app, request.body, organizationId)
    if (!checked.ok) throw requestInvalid('body', checked.violations)
    return reply.code(201).send(await loadFixture(app, checked))
  })

  control(app, {
    id: 'sandboxListOrganizations',
    method: 'GET',
    url: '/_sandbox/organizations',
    summary: 'List organizations',
    description: 'Every organization in the sandbox, oldest first.',
    acts: 'global',
    responses: { 200: { description: 'The organizations.', ...OrganizationList } }
  }, async () => ({ organizations: await app.storage.organizations.list() }))

  control(app, {
    id: 'sandboxCreateEntity',
    method: 'POST',
    url: '/_sandbox/entities/:entity',
    summary: 'Create an entity',
    // Each area that holds an entity type says what it makes (SandboxEntity.description).
    description: `Creates an entity (${app.areas.sandboxEntities().map(e => `\`${e.segment}\``).join(', ')}) owned by a user, in the user's organization, ` +
        'so its metadata can be used (`/core/<entity>/<id>/metadata`), as a real record of the area that holds its type: ' +
        app.areas.sandboxEntities().map(e => e.description).join('; ') + '. ' +
        'An organization\'s control token creates entities for its own users only (another organization\'s user is 404).',
    acts: 'organization',
    params: EntityParams,
    body: EntityCreate,
    responses: {
      201: ref('SandboxEntity', 'Created.'),
      404: errorResponse('The user does not exist (`entity_not_found`, `details.entity: "user"`), or an account\'s `asset` (`"asset"`).'),
      409: errorResponse('An entity with this id exists (`entity_already_exists`).')
    }
  }, async (request, reply) => {
    const { entity } = request.params
    const { userId } = request.body
    const organizationId = await app.storage.admin.userOrganization(userId)
    if (organizationId === undefined || !callerSees(request, organizationId)) throw entityNotFound('user')
    const id = request.body.id ?? randomUUID()
    const exists = (): ApiError => conflict('entity_already_exists', 'An entity with this id already exists')
    if (await app.storage.admin.entity(id) !== undefined || await app.areas.findSandboxEntity(app, id) !== undefined) throw exists()
    // On the user's organization's clock, whoever asks (the admin too).
    return await app.clock.within(organizationId, async () => {
      const createdAt = app.clock.iso()
      // A type an area holds (files) is created as a real record of that area.
      const owned = app.areas.sandboxEntity(entity)
      if (owned !== undefined) {
        const asset = request.body.asset
        if (!await owned.create(app, { id, organizationId, userId, createdAt, ...(asset === undefined ? {} : { asset }) })) throw exists()
      } else if (await app.storage.entities.create(entityRecord(entity, id, userId, organizationId, createdAt)) === undefined) {
        throw exists()
      }
      return reply.code(201).send({ id, type: entity, userId, organizationId, createdAt })
    })
  })
}
