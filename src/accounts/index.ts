// The accounts area: a user's accounts (create, list, defaults, get, update, archive), the deposit
// methods that route external funds to them, accounts as owners of metadata and as sandbox entities.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { defineArea } from '../kit/area.js'
import { emptyBodyAsObject, noContent, operation } from '../kit/operation.js'
import { commaSeparated } from '../http/query.js'
import { pageOf, pageRows, pageWindow, paginationFor } from '../http/pagination.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import { Pagination } from '../../schemas/lists.js'
import {
  ACCOUNT_SCHEMAS, AccountAnswer, AccountListQuery, AccountParams, CreateAccountAnswer, CreateAccountRequest, DefaultAccountList,
  DefaultAccountsQuery, DepositMethodAnswer, DepositMethodQuery, UpdateAccountRequest
} from '../../schemas/accounts.js'
import { migrations } from './migrations.js'
import {
  accountNotFound, accountView, accountsOf, archiveAccount, createAccount, getDepositMethod, ownAccount, setupDepositMethod
} from './service.js'
import { accountsSandboxEntity } from './sandbox.js'

const TAG = 'Accounts'
const USERS = ['user:business', 'user:individual'] as const
const ACCOUNT_404 = '`entity_not_found` (`details.entity: "account"`): no such account of the acting user.'
const DEPOSIT_409 = '`asset_feature_not_available` (the account\'s asset cannot take it: `transfer` for its own asset, `buy` for another), ' +
  '`rail_feature_not_available` (the rail takes no deposits), `rail_constraint_violated` (`allowed-deposit-accounts`: only the default account of the asset) ' +
  'or `user_capability_failure` (`details.capability`: the deposit capability of the rail with its requirements and restrictions).'

/** The list answer, with the shared pagination links inlined (the schema has no `$id` here). */
const AccountPage = Type.Object({ accounts: Type.Array(Type.Ref('Account')), pagination: Type.Object(Pagination.properties, { description: 'Absolute links to other pages of the list, keeping every other query parameter.' }) })

async function accountsRoutes (app: FastifyInstance): Promise<void> {
  for (const schema of ACCOUNT_SCHEMAS) app.addSchema(schema)
  const headers = UserContextHeaders(app.config.serviceName)
  const accounts = accountsOf(app)

  operation(app, {
    id: 'listAccounts',
    method: 'GET',
    url: '/core/accounts',
    tag: TAG,
    scopes: ['core.accounts:read'],
    subjects: USERS,
    summary: 'List accounts',
    description: 'The acting user\'s accounts, newest first, filtered by `asset` (comma-separated). Archived accounts are left out. Balances are the ledger\'s.',
    querystring: AccountListQuery,
    headers,
    preValidation: commaSeparated('asset'),
    responses: { 200: { description: 'A page of accounts.', ...AccountPage } }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const page = pageOf(request.query)
    const { offset, limit } = pageWindow(page)
    const { items, hasNext } = pageRows(await accounts.list(organizationId, userId, request.query.asset, offset, limit), page)
    return { accounts: await Promise.all(items.map(a => accountView(app, a))), pagination: paginationFor(request, app.config.publicUrl, page, hasNext) }
  })

  operation(app, {
    id: 'createAccount',
    method: 'POST',
    url: '/core/accounts',
    tag: TAG,
    scopes: ['core.accounts:create'],
    subjects: USERS,
    summary: 'Create an account',
    description: 'Creates an account of the acting user in `asset`, labelled `label`, and emits `core.account.created`. The first account of an asset ' +
      'is the user\'s default account of it (`GET /core/accounts/defaults`). `metadata` over 1024 characters does not stop the creation: ' +
      'the account is created without it and `errors.metadata` holds the 413 body the metadata operations would answer.',
    headers,
    body: CreateAccountRequest,
    responses: {
      201: { description: 'Created; `errors` appears only when the metadata could not be stored.', ...CreateAccountAnswer },
      404: '`entity_not_found` (`details.entity: "asset"`): no such asset; (`"user"`) the acting user does not exist.',
      409: '`asset_not_supported`: no account can hold the asset.'
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    return reply.code(201).send(await createAccount(app, organizationId, userId, request.body))
  })

  operation(app, {
    id: 'listDefaultAccounts',
    method: 'GET',
    url: '/core/accounts/defaults',
    tag: TAG,
    scopes: ['core.accounts:read'],
    subjects: USERS,
    summary: 'List default accounts',
    description: 'The acting user\'s default account of each asset they hold one in, by asset code, filtered by `asset` (comma-separated): ' +
      'the oldest account of the asset that is not archived. The ledger creates one on first need, when funds arrive in an asset the user has no account of.',
    querystring: DefaultAccountsQuery,
    headers,
    preValidation: commaSeparated('asset'),
    responses: { 200: { description: 'The default accounts.', ...DefaultAccountList } }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const found = await accounts.defaults(organizationId, userId, request.query.asset)
    return { accounts: await Promise.all(found.map(a => accountView(app, a))) }
  })

  operation(app, {
    id: 'getAccount',
    method: 'GET',
    url: '/core/accounts/:accountId',
    tag: TAG,
    scopes: ['core.accounts:read'],
    subjects: USERS,
    summary: 'Get an account',
    description: 'One account of the acting user, archived or not.',
    params: AccountParams,
    headers,
    responses: { 200: { description: 'The account.', ...AccountAnswer }, 404: ACCOUNT_404 }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    return { account: await accountView(app, await ownAccount(app, organizationId, userId, request.params.accountId)) }
  })

  operation(app, {
    id: 'updateAccount',
    method: 'PATCH',
    url: '/core/accounts/:accountId',
    tag: TAG,
    scopes: ['core.accounts:update'],
    subjects: USERS,
    summary: 'Update an account',
    description: 'Changes the label of one account of the acting user.',
    params: AccountParams,
    headers,
    body: UpdateAccountRequest,
    responses: { 200: { description: 'The account as updated.', ...AccountAnswer }, 404: ACCOUNT_404 }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const account = await ownAccount(app, organizationId, userId, request.params.accountId)
    const label = request.body.label ?? account.label
    const updated = await accounts.updateLabel(organizationId, account.id, label, app.clock.iso())
    if (updated === undefined) throw accountNotFound()
    return { account: await accountView(app, updated) }
  })

  operation(app, {
    id: 'archiveAccount',
    method: 'DELETE',
    url: '/core/accounts/:accountId',
    tag: TAG,
    scopes: ['core.accounts:archive'],
    subjects: USERS,
    summary: 'Archive an account',
    description: 'Archives one account of the acting user and emits `core.account.archived`: lists leave it out from then on; `GET` still answers it. ' +
      'Funds arriving at it unarchive it (`core.account.unarchived`). An archived account is archived again without another event.',
    params: AccountParams,
    headers,
    responses: {
      204: noContent('Archived.'),
      404: ACCOUNT_404,
      409: '`account_has_balance` or `account_has_pending_transactions`: the ledger still holds something for the account.'
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    await archiveAccount(app, organizationId, userId, request.params.accountId)
    return reply.code(204).send()
  })

  operation(app, {
    id: 'getAccountDepositMethod',
    method: 'GET',
    url: '/core/accounts/:accountId/deposit-method',
    tag: TAG,
    scopes: ['core.accounts:deposit-method'],
    subjects: USERS,
    summary: 'Get an account\'s deposit method',
    description: 'The deposit method of the account for `type`, `asset` and `network`, once set up (`PUT`). The rail\'s checks come first.',
    params: AccountParams,
    querystring: DepositMethodQuery,
    headers,
    responses: {
      200: { description: 'The deposit method.', ...DepositMethodAnswer },
      404: '`entity_not_found`: no such account of the acting user (`"account"`), no rail for the type, asset and network (`"rail"`), ' +
        'or no deposit method set up for them yet (`"depositMethod"`).',
      409: DEPOSIT_409
    }
  }, async (request) => {
    const { organizationId, userId } = request.auth
    const account = await ownAccount(app, organizationId, userId, request.params.accountId)
    return { depositMethod: await getDepositMethod(app, account, request.query) }
  })

  operation(app, {
    id: 'setupAccountDepositMethod',
    method: 'PUT',
    url: '/core/accounts/:accountId/deposit-method',
    tag: TAG,
    scopes: ['core.accounts:deposit-method'],
    subjects: USERS,
    summary: 'Set up an account\'s deposit method',
    description: 'Issues the account\'s deposit details for `type`, `asset` and `network`: a crypto address of its own (with a destination tag or memo ' +
      'on the XRP Ledger and Stellar), or bank details of its own (FPS: sort code and account number; SEPA: an IBAN and BIC; US networks: a routing ' +
      'and account number shared by the account\'s US networks). 201 the first time, 200 with the same details after. Deposits to these details ' +
      '(`POST /core/accounts/test-helpers/...-deposits`) reach this account.',
    params: AccountParams,
    querystring: DepositMethodQuery,
    headers,
    preValidation: emptyBodyAsObject,
    responses: {
      200: { description: 'Already set up: the same details.', ...DepositMethodAnswer },
      201: { description: 'Set up now.', ...DepositMethodAnswer },
      404: '`entity_not_found`: no such account of the acting user (`"account"`), or no rail for the type, asset and network (`"rail"`).',
      409: DEPOSIT_409
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    const account = await ownAccount(app, organizationId, userId, request.params.accountId)
    const { created, depositMethod } = await setupDepositMethod(app, account, request.query)
    return reply.code(created ? 201 : 200).send({ depositMethod })
  })
}

export default defineArea({
  name: 'accounts',
  tags: [{ name: TAG, description: 'A user\'s accounts, one asset each, and the deposit methods that route external funds to them.' }],
  migrations,
  metadataEntities: [{
    segment: 'accounts',
    name: 'account',
    param: 'accountId',
    title: 'account',
    operation: 'Account',
    ownerOf: async (app, organizationId, id) => (await accountsOf(app).get(organizationId, id))?.userId
  }],
  sandboxEntities: [accountsSandboxEntity],
  // A deleted user's accounts go with them, their deposit methods and metadata too.
  removeUser: app => {
    const accounts = accountsOf(app)
    return async (organizationId, userId) => { await accounts.removeUserAccounts(organizationId, userId) }
  },
  plugin: accountsRoutes
})
