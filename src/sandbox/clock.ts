// The sandbox clocks: read one, move it, freeze it. The global clock, and each organization's own
// on top of it (src/clock.ts): token and link expiry, timestamps, due work and prices follow them.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ClockChange, OrganizationQuery } from '../../schemas/sandbox.js'
import { entityNotFound } from '../errors.js'
import { callerOrganization, control, ref } from '../kit/operation.js'

export default async function clock (app: FastifyInstance): Promise<void> {
  const state = (organizationId: string | undefined): { now: string, frozen: boolean, organizationId: string | null } => {
    const own = app.clock.of(organizationId)
    return { now: own.iso(), frozen: own.frozen, organizationId: organizationId ?? null }
  }

  /** The clock a request reads or moves: its organization's, or (undefined) the global one. */
  const clockOf = async (request: FastifyRequest, named: string | undefined): Promise<string | undefined> => {
    const organizationId = callerOrganization(request, named)
    if (organizationId !== undefined && named !== undefined && await app.storage.organizations.get(organizationId) === undefined) throw entityNotFound('organization')
    return organizationId
  }

  control(app, {
    id: 'sandboxGetClock',
    method: 'GET',
    url: '/_sandbox/clock',
    summary: 'Read the clock',
    description: 'Sandbox time and whether it stands still, for the caller\'s clock: an organization\'s control token reads its organization\'s clock; ' +
        'the admin token reads the global clock, or an organization\'s with `?organizationId=`.',
    acts: 'organization',
    querystring: OrganizationQuery,
    responses: { 200: ref('SandboxClock', 'The clock.') }
  }, async (request) => state(await clockOf(request, request.query.organizationId)))

  control(app, {
    id: 'sandboxSetClock',
    method: 'POST',
    url: '/_sandbox/clock',
    summary: 'Change the clock',
    description: 'Exactly one of: `{ "advanceSeconds": 601 }` moves time (an access token of 600 s is then expired); ' +
        '`{ "now": "2030-01-01T00:00:00Z" }` jumps to an instant; `{ "frozen": true }` stops time (false restarts it from where it stood); ' +
        '`{ "real": true }` goes back to the machine\'s time. A frozen clock stays frozen when advanced or set. Answers the new state once what fell due (KYC reviews) is done.\n\n' +
        'Each organization has its own clock: the global clock plus the organization\'s offset, or an instant it stands still at. ' +
        'An organization\'s control token (or the admin token with `?organizationId=`) moves that organization\'s clock only: its tokens, quotes, ' +
        'settlements, reviews, prices and events follow it, and no other organization\'s. `{ "real": true }` puts it back on the global clock. ' +
        'The admin token without an organization moves the global clock, and every organization\'s with it (a frozen one by the same amount).',
    acts: 'organization',
    querystring: OrganizationQuery,
    body: ClockChange,
    responses: { 200: ref('SandboxClock', 'The clock after the change.') }
  }, async (request) => {
    const change = request.body
    const organizationId = await clockOf(request, request.query.organizationId)
    if (organizationId !== undefined) {
      const { now, ...rest } = change
      const position = app.clock.positionAfter(organizationId, { ...rest, ...(now === undefined ? {} : { now: Date.parse(now) }) })
      await app.sharedState.moveOrganizationClock(organizationId, position)
    } else if (change.advanceSeconds !== undefined) app.clock.advance(change.advanceSeconds)
    else if (change.now !== undefined) app.clock.set(Date.parse(change.now))
    else if (change.frozen !== undefined) app.clock.freeze(change.frozen)
    else app.clock.real()
    // What the move made due (KYC reviews, ...) is written before the answer.
    await app.clock.settle()
    return state(organizationId)
  })
}
