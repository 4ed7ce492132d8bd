// The sandbox clock: read it, move it, freeze it. Token expiry, link expiry, timestamps and
// webhook retry schedules all follow it.
import type { FastifyInstance } from 'fastify'
import { ClockChange } from '../../schemas/sandbox.js'
import { control, ref } from '../kit/operation.js'

export default async function clock (app: FastifyInstance): Promise<void> {
  const state = (): { now: string, frozen: boolean } => ({ now: app.clock.iso(), frozen: app.clock.frozen })

  control(app, {
    id: 'sandboxGetClock',
    method: 'GET',
    url: '/_sandbox/clock',
    summary: 'Read the clock',
    description: 'Sandbox time and whether it stands still.',
    responses: { 200: ref('SandboxClock', 'The clock.') }
  }, async () => state())

  control(app, {
    id: 'sandboxSetClock',
    method: 'POST',
    url: '/_sandbox/clock',
    summary: 'Change the clock',
    description: 'Exactly one of: `{ "advanceSeconds": 601 }` moves time (an access token of 600 s is then expired); ' +
        '`{ "now": "2030-01-01T00:00:00Z" }` jumps to an instant; `{ "frozen": true }` stops time (false restarts it from where it stood); ' +
        '`{ "real": true }` goes back to the machine\'s time. A frozen clock stays frozen when advanced or set. Answers the new state once what fell due (KYC reviews) is done.',
    body: ClockChange,
    responses: { 200: ref('SandboxClock', 'The clock after the change.') }
  }, async (request) => {
    const change = request.body
    if (change.advanceSeconds !== undefined) app.clock.advance(change.advanceSeconds)
    else if (change.now !== undefined) app.clock.set(Date.parse(change.now))
    else if (change.frozen !== undefined) app.clock.freeze(change.frozen)
    else app.clock.real()
    // What the move made due (KYC reviews, ...) is written before the answer.
    await app.clock.settle()
    return state()
  })
}
