// The request log's routes: read it (filtered, newest first) and clear it.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { RequestLogQuery, RequestLogView } from '../../schemas/sandbox.js'
import { callerOrganization, control, noContent } from '../kit/operation.js'
import { OrganizationQuery } from '../../schemas/sandbox.js'

export default async function log (app: FastifyInstance): Promise<void> {
  /** The clients whose requests the caller sees: an organization's (its control token, or the admin's `organizationId`), else every one. */
  const clientsOf = async (request: FastifyRequest, named: string | undefined): Promise<string[] | undefined> => {
    const organizationId = callerOrganization(request, named)
    if (organizationId === undefined) return undefined
    return (await app.storage.clients.list(organizationId)).map(c => c.id)
  }

  control(app, {
    id: 'sandboxListRequests',
    method: 'GET',
    url: '/_sandbox/requests',
    summary: 'Read the request log',
    description: 'The most recent requests, newest first: method, path, status, duration, request id, client, sandbox time, ' +
        'and the headers and bodies of request and answer. Credentials are masked (`Authorization` keeps its scheme only, cookies are dropped, ' +
        'fields such as `client_secret`, `access_token`, `refresh_token`, `clientSecret` and `secret` read `[redacted]`), card numbers keep their last ' +
        'four digits at most (valid or not: a card\'s `number`, any run of 12 to 19 digits in a request about external accounts) and bodies longer than ' +
        '4096 characters are cut. The log is bounded by REQUEST_LOG_SIZE (oldest dropped); a reset does not empty it. REQUEST_LOG_SIZE=0 turns it off: nothing is recorded, and it reads empty with `capacity: 0`. On SQLite it is in memory ' +
        '(a restart empties it); on PostgreSQL it is in the database, shared by every replica (each request served by any of them). ' +
        'Not logged: reads of the control API (`GET /_sandbox/...`: the dashboard, health, clock, clients, ...) and the log\'s own routes. ' +
        'Filters combine: `method`, `path` (exact, or with `*` for any characters), `status` (`404` or `4xx`), `clientId`, `limit` (default 100).\n\n' +
        'Paging: `offset` skips that many of the matching entries, newest first (default 0), so `limit=20&offset=20` is the second page of 20; ' +
        'requests logged between two reads shift the pages by as many entries.\n\n' +
        'An organization\'s control token (or the admin\'s `organizationId`) reads only the requests made by that organization\'s clients ' +
        '(with their tokens, or at the token endpoint); `total` then counts those.',
    acts: 'organization',
    querystring: RequestLogQuery,
    responses: { 200: { description: 'The log.', ...RequestLogView } }
  }, async (request) => {
    const { organizationId, ...filter } = request.query
    const clientIds = await clientsOf(request, organizationId)
    if (clientIds === undefined) return { requests: await app.requestLog.list(filter), total: await app.requestLog.size(), capacity: app.requestLog.capacity }
    const requests = await app.requestLog.list({ ...filter, clientIds })
    const total = filter.limit === undefined || requests.length >= filter.limit ? (await app.requestLog.list({ clientIds, limit: app.requestLog.capacity })).length : requests.length
    return { requests, total, capacity: app.requestLog.capacity }
  })

  control(app, {
    id: 'sandboxClearRequests',
    method: 'DELETE',
    url: '/_sandbox/requests',
    summary: 'Clear the request log',
    description: 'Empties the request log. An organization\'s control token (or the admin\'s `?organizationId=`) forgets only its own clients\' requests.',
    acts: 'organization',
    querystring: OrganizationQuery,
    responses: { 204: noContent('Cleared.') }
  }, async (request, reply) => {
    await app.requestLog.clear(await clientsOf(request, request.query.organizationId))
    return reply.code(204).send()
  })
}
