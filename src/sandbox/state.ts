// Sandbox state: reset, fixtures, organizations and the entities that carry metadata.
import type { FastifyInstance } from 'fastify'
import { randomUUID } from 'node:crypto'
import {
  EntityCreate, EntityParams, FixtureDocument, OrganizationList, ResetRequest, type EntityType
} from '../../schemas/sandbox.js'
import { errorResponse } from '../../schemas/common.js'
import { conflict, entityNotFound, requestInvalid, type ApiError } from '../errors.js'
import { ensureDemoClient } from '../app.js'
import { adminConfig, control, emptyBodyAsObject, invalid, noContent, ref } from './route.js'
import { applySeed, checkFixture, entityRecord, loadFixture, type Seed } from './fixtures.js'

export interface StateOptions {
  /** The SEED_FILE loaded at start, brought back by a full reset. */
  seed?: Seed
}

export default async function state (app: FastifyInstance, { seed }: StateOptions): Promise<void> {
  app.post<{ Body: ResetRequest | undefined }>('/_sandbox/reset', {
    config: adminConfig,
    preValidation: emptyBodyAsObject,
    schema: control({
      summary: 'Reset the sandbox',
      operationId: 'sandboxReset',
      description: 'Without a body (or with `{}`): deletes every organization, client, user, entity, metadata, event, webhook endpoint and message, ' +
        'then brings back the start state: the demo client (same id, secret and organization) and the SEED_FILE given at start, if any. ' +
        'It also removes every fault rule and sets the clock back to real time. The signing key is kept, but tokens issued before are revoked ' +
        '(their clients are gone or created anew). The request log is kept, so the reset itself can be seen in it.\n\n' +
        'With `{ "organizationId" }`: deletes that organization and everything in it only; the clock, fault rules and other organizations ' +
        'are untouched. Resetting the demo organization creates the demo client again. Answers 204 even when the organization did not exist.',
      body: ResetRequest,
      response: { 204: noContent('The sandbox is reset.'), 400: invalid }
    })
  }, async (request, reply) => {
    const organizationId = request.body?.organizationId
    await app.storage.admin.reset(organizationId)
    app.clients.forget()
    if (organizationId === undefined) {
      app.faults.clear()
      app.clock.real()
    }
    await ensureDemoClient(app)
    if (organizationId === undefined && seed !== undefined) await applySeed(app, seed)
    app.clients.forget()
    // Areas that keep something in memory (webhook delivery timers, ...) can drop it.
    app.events.emit('reset', { organizationId: organizationId ?? null })
    return reply.code(204).send()
  })

  app.post('/_sandbox/fixtures', {
    config: adminConfig,
    schema: control({
      summary: 'Load a fixture',
      operationId: 'sandboxLoadFixture',
      description: 'Creates organizations, users, clients, entities (accounts, files, external accounts, transactions) and metadata, ' +
        'and adds or changes catalogue entries (`assets`, `networks`, `rails`, `countries`), in one go. ' +
        'Everything is checked before anything is written: the schema first, then every reference (an organization, user or entity must exist in the fixture ' +
        'or already in the sandbox; user ids, client ids, entity ids and e-mails per organization must be new; metadata at most 1024 characters). ' +
        'Any problem answers 400 `request_invalid` listing each bad path (`users.2.email`) with the rule broken ' +
        '(`unique`, `exists`, `match`, `scope`, `maxLength` or a schema rule) and nothing is loaded; otherwise everything is loaded in one transaction.\n\n' +
        'Defaults: `organizationId` of users and clients is the demo organization; a user\'s `primaryCitizenship` and `address.country` default to each other, ' +
        'else `US`; ids not given are random UUIDs (give ids for users and entities other items refer to). An organization that already exists is kept as it is. ' +
        'Metadata replaces any metadata the entity had. Loading a fixture records no events, so no webhook is sent. The same document is accepted by SEED_FILE.',
      body: FixtureDocument,
      response: {
        201: ref('SandboxFixtureSummary', 'Loaded: what was created, with the ids given or generated, in fixture order.'),
        400: invalid,
        409: errorResponse('Data written while the fixture was loading conflicts with it (`fixture_conflict`); nothing was loaded.')
      }
    })
  }, async (request, reply) => {
    const checked = await checkFixture(app, request.body)
    if (!checked.ok) throw requestInvalid('body', checked.violations)
    return reply.code(201).send(await loadFixture(app, checked))
  })

  app.get('/_sandbox/organizations', {
    config: adminConfig,
    schema: control({
      summary: 'List organizations',
      operationId: 'sandboxListOrganizations',
      description: 'Every organization in the sandbox, oldest first.',
      response: { 200: { description: 'The organizations.', ...OrganizationList } }
    })
  }, async () => ({ organizations: await app.storage.organizations.list() }))

  app.post<{ Params: { entity: EntityType }, Body: { userId: string, id?: string } }>('/_sandbox/entities/:entity', {
    config: adminConfig,
    schema: control({
      summary: 'Create an entity',
      operationId: 'sandboxCreateEntity',
      description: 'Creates an account, file, external account or transaction owned by a user, in the user\'s organization, ' +
        'so its metadata can be used (`/core/<entity>/<id>/metadata`). The sandbox keeps only its id, owner and creation time.',
      params: EntityParams,
      body: EntityCreate,
      response: {
        201: ref('SandboxEntity', 'Created.'),
        400: invalid,
        404: errorResponse('The user does not exist (`entity_not_found`, `details.entity: "user"`).'),
        409: errorResponse('An entity with this id exists (`entity_already_exists`).')
      }
    })
  }, async (request, reply) => {
    const { entity } = request.params
    const { userId } = request.body
    const organizationId = await app.storage.admin.userOrganization(userId)
    if (organizationId === undefined) throw entityNotFound('user')
    const id = request.body.id ?? randomUUID()
    const exists = (): ApiError => conflict('entity_already_exists', 'An entity with this id already exists')
    if (await app.storage.admin.entity(id) !== undefined) throw exists()
    const created = await app.storage.entities.create(entityRecord(entity, id, userId, organizationId, app.clock.iso())).catch((err: { code?: string }) => {
      throw err.code?.startsWith('SQLITE_CONSTRAINT') === true ? exists() : err
    })
    return reply.code(201).send({ id: created.id, type: entity, userId, organizationId, createdAt: created.createdAt })
  })
}
