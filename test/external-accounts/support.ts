// Shared pieces of the external accounts and quotes tests: the events recorded, the test cards.
import type { FastifyInstance } from 'fastify'

export interface RecordedEvent { type: string, data: Record<string, unknown> }

/** The events recorded so far whose type starts with `prefix`, in order. */
export async function eventsOf (app: FastifyInstance, prefix: string): Promise<RecordedEvent[]> {
  const rows = await app.storage.db.prepare<[string], { type: string, payload: string }>('SELECT type, payload FROM events WHERE type LIKE ? ORDER BY seq').all(`${prefix}%`)
  return rows.map(r => ({ type: r.type, data: (JSON.parse(r.payload) as { data: Record<string, unknown> }).data }))
}

export const card = (number: string, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ type: 'card', label: 'My card', number, securityCode: '123', expiryDate: { month: 12, year: 2030 }, ...extra })

export const ach = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'bank',
  asset: 'USD',
  network: 'ach',
  label: 'My checking account',
  address: { country: 'US', subdivision: 'US-CA', city: 'San Francisco', line1: '123 Main Street', postalCode: '94102' },
  routingNumber: '121000248',
  accountNumber: '9876543210',
  accountType: 'checking',
  ...extra
})
