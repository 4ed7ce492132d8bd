// The acting user: reading it (core.get-user) and deleting it (core.delete-user). The user is the
// stored record, as creation and the KYC updates wrote it; a deletion takes the user's metadata,
// entities and every area's rows of the user with it, and records `core.user.deleted`.
import type { FastifyInstance } from 'fastify'
import { ApiError, conflict, entityNotFound } from '../errors.js'

/** The acting user as the API shows it. */
export async function getUser (app: FastifyInstance, organizationId: string, userId: string): Promise<{ user: Record<string, unknown> }> {
  const found = await app.storage.users.get(organizationId, userId)
  // The guard saw the user; a deletion may have come in between.
  if (found === undefined) throw entityNotFound('user')
  return { user: found.record }
}

export const userHasBalance = (): ApiError => conflict('user_has_balance', 'The user has balance and cannot be deleted')
export const userHasPendingTransactions = (): ApiError => conflict('user_has_pending_transactions', 'The user has pending transactions and cannot be deleted')

/**
 * Deletes the acting user unless the ledger says they hold a balance or pending transactions
 * (409), and records `core.user.deleted` with the user as it was, in the same write.
 */
export async function deleteUser (app: FastifyInstance, organizationId: string, userId: string): Promise<void> {
  const found = await app.storage.users.get(organizationId, userId)
  if (found === undefined) throw entityNotFound('user')
  const holdings = await app.areas.userHoldings(app, organizationId, userId)
  if (holdings.hasBalance) throw userHasBalance()
  if (holdings.hasPendingTransactions) throw userHasPendingTransactions()
  const event = app.events.build(organizationId, 'core.user.deleted', { user: found.record })
  if (!await app.storage.users.delete(organizationId, userId, [event], removalsOf(app))) throw entityNotFound('user')
}

const removals = new WeakMap<FastifyInstance, ReturnType<FastifyInstance['areas']['userRemovals']>>()

/** The areas' removals of a user's rows, made once per app. */
function removalsOf (app: FastifyInstance): ReturnType<FastifyInstance['areas']['userRemovals']> {
  let made = removals.get(app)
  if (made === undefined) removals.set(app, made = app.areas.userRemovals(app))
  return made
}
