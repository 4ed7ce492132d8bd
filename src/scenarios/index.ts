// The scenarios area: sandbox controls that set up what a demo or a test needs in one call, made
// of the other areas' operations and services (a funded user ready to use; a year of history).
// Not part of the real service.
import type { FastifyInstance } from 'fastify'
import { FundedUser, FundedUserRequest, History, HistoryRequest } from '../../schemas/scenarios.js'
import { defineArea } from '../kit/area.js'
import { callerOrganization, control, emptyBodyAsObject } from '../kit/operation.js'
import { fundedUser } from './funded-user.js'
import { demoHistory, type DemoRequest } from './history.js'

async function scenarioControls (app: FastifyInstance): Promise<void> {
  control(app, {
    id: 'sandboxFundedUser',
    method: 'POST',
    url: '/_sandbox/scenarios/funded-user',
    summary: 'Create a funded user',
    description: 'Creates an individual user as `POST /core/users` would (same checks and 409s, `core.user.created`), forces every KYC process ' +
      '`ok` (as `POST /_sandbox/users/{userId}/kyc` does, with its events), then for each asset of `assets`, in order, makes the user\'s default ' +
      'account of that asset (`core.account.created`) and credits it with a completed deposit through the ledger (a wire transfer, or a simulated ' +
      'transfer on the asset\'s network for a crypto asset: `core.transaction.created`, `.status-changed`, `core.account.balance-changed`). ' +
      'Every asset and amount is checked before anything is made. Act for the user with `X-On-Behalf-Of: user <userId>`. ' +
      'An organization\'s control token makes the user in its own organization (naming another is 404), on its clock.',
    acts: 'organization',
    body: FundedUserRequest,
    responses: {
      201: { description: 'The user and its accounts with their balances.', ...FundedUser },
      404: '`entity_not_found`: an asset the catalogue does not have (`details.entity: "asset"`).',
      409: '`transaction_amount_invalid` (`details.property: "assets.<code>"`): an amount of zero or with more decimals than the asset has; ' +
        'or any 409 of `POST /core/users` about the user.'
    }
  }, async (request, reply) => {
    const organizationId = callerOrganization(request, request.body.organizationId) ?? app.config.demoClient.organizationId
    return reply.code(201).send(await app.clock.within(organizationId, async () => await fundedUser(app, { ...request.body, organizationId })))
  })

  control(app, {
    id: 'sandboxHistory',
    method: 'POST',
    url: '/_sandbox/scenarios/history',
    summary: 'Create a user with a year of history',
    description: 'Makes, in the demo organization, a user with `weeks` weeks of history (52 by default) through the API, as `npm run demo:history` ' +
      'does against a running sandbox: the clock frozen and moved back `weeks` weeks, the user created there and made ready (KYC ok, cooldowns ' +
      'skipped, vIBAN terms accepted), GBP, BTC and ETH accounts, then every week a BTC purchase, every other week an ETH purchase, every fourth ' +
      'week a GBP 1000 FPS deposit, every eighth a BTC sale, each settled by moving the clock. Last the clock goes back to where it was. ' +
      'The portfolio, its history and the monthly statements then have a year to show. It moves the whole sandbox\'s clock and takes a few ' +
      'seconds: run it on a sandbox of its own. Its requests are made with the demo client (SANDBOX_CLIENT_ID and SANDBOX_CLIENT_SECRET) and ' +
      'appear in the request log. It moves the global clock, so it takes the admin token.',
    acts: 'global',
    body: HistoryRequest,
    preValidation: emptyBodyAsObject,
    responses: {
      201: { description: 'The user, its accounts by asset, when the history starts and how many transactions it holds.', ...History }
    }
  }, async (request, reply) => {
    const { clientId, clientSecret } = app.config.demoClient
    const inject: DemoRequest = async (method, path, { body, headers = {} } = {}) => {
      const res = await app.inject({ method: method as 'GET', url: path, headers, ...(body === undefined ? {} : { payload: body as string }) })
      return { status: res.statusCode, json: res.body === '' ? undefined : res.json() }
    }
    const history = await demoHistory({
      request: inject,
      weeks: request.body.weeks,
      serviceName: app.config.serviceName,
      clientId,
      clientSecret,
      adminToken: app.config.adminToken,
      log: line => { request.log.info(line) }
    })
    return reply.code(201).send(history)
  })
}

export default defineArea({
  name: 'scenarios',
  plugin: scenarioControls
})
