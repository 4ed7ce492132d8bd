// Events the API records (`core.user.created`, ...). They are written to the outbox in the same
// transaction as the change that caused them; the bus only wakes whoever delivers them (after this
// replica's commits that recorded events, and on PostgreSQL shortly after another replica's).
import { EventEmitter } from 'node:events'
import { randomUUID } from 'node:crypto'
import type { NewEvent } from './storage/index.js'
import type { Clock } from './clock.js'

export class EventBus extends EventEmitter {
  readonly #clock: Clock
  constructor (clock: Clock) {
    super()
    this.#clock = clock
  }

  /** Builds an event in the envelope webhooks deliver: `{ id, type, createdAt, data }`. */
  build (organizationId: string, type: string, data: Record<string, unknown>): NewEvent {
    const id = randomUUID()
    // On the organization's own clock, whoever records it (a request, due work, a control).
    const createdAt = this.#clock.of(organizationId).iso()
    return { id, organizationId, type, createdAt, payload: { id, type, createdAt, data } }
  }

  /** Tells the deliverer that new events are in the outbox. */
  recorded (): void {
    this.emit('recorded')
  }
}
