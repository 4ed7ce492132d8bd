// Accounts made by the sandbox: `POST /_sandbox/entities/accounts` (in USD, or its `asset`) and the
// `entities` fixture key with type `accounts` (in USD) create real accounts of this area, labelled
// "Sandbox account", with their `core.account.created` (none from a fixture, which records no
// events). They own metadata like any account, and the accounts operations answer them.
import type { FastifyInstance } from 'fastify'
import type { SandboxEntity, SandboxEntityInput } from '../kit/area.js'
import type { AccountRecord } from './store.js'
import { entityNotFound } from '../errors.js'
import { findAsset } from '../catalogue/lookup.js'
import { accountEvents, accountsOf } from './service.js'

export const SANDBOX_ACCOUNT_ASSET = 'USD'

const record = (e: SandboxEntityInput): AccountRecord => ({
  id: e.id,
  organizationId: e.organizationId,
  userId: e.userId,
  asset: e.asset ?? SANDBOX_ACCOUNT_ASSET,
  label: 'Sandbox account',
  archivedAt: null,
  createdAt: e.createdAt,
  updatedAt: e.createdAt
})

export const accountsSandboxEntity: SandboxEntity = {
  segment: 'accounts',
  description: 'an account is a real account of the accounts area, in `asset` (default USD), labelled `Sandbox account`, that the accounts operations answer',
  async find (app: FastifyInstance, id: string) {
    const account = await accountsOf(app).find(id)
    return account === undefined ? undefined : { organizationId: account.organizationId, userId: account.userId }
  },
  async create (app, entity) {
    if (entity.asset !== undefined && await findAsset(app, entity.asset) === undefined) throw entityNotFound('asset')
    return (await accountsOf(app).create(record(entity), accountEvents(app))).ok
  },
  async fixtureRow (app, entity) {
    await accountsOf(app).fixtureRow(record(entity))
  }
}
