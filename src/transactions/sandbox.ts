// Transactions made by the sandbox: `POST /_sandbox/entities/transactions` and the `entities`
// fixture key with type `transactions` create a real completed deposit of 100.00 USD (from a wire
// transfer) into the user's default USD account, made on first need: the ledger's postings and
// the account's balance move with it, and the transactions operations answer it. Through the
// control API it carries its events (`core.transaction.created`, `.status-changed`, the account's
// `balance-changed`, and `core.account.created` for a new account); a fixture records none.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { SandboxEntity, SandboxEntityInput } from '../kit/area.js'
import { accountsOf, defaultAccount } from '../accounts/service.js'
import { deposit, depositRecord, ledgerOf } from './service.js'

export const SANDBOX_DEPOSIT = { asset: 'USD', amount: '100.00', originNode: { type: 'bank-address', network: 'wire' } } as const
const ACCOUNT_LABEL = 'US Dollar'

const input = (e: SandboxEntityInput) => ({
  id: e.id,
  organizationId: e.organizationId,
  userId: e.userId,
  asset: SANDBOX_DEPOSIT.asset,
  amount: SANDBOX_DEPOSIT.amount,
  originNode: { ...SANDBOX_DEPOSIT.originNode }
})

export const transactionsSandboxEntity: SandboxEntity = {
  segment: 'transactions',
  description: 'a transaction is a real completed deposit of 100.00 USD (from a wire transfer) into the user\'s default USD account (made on first need), ' +
    'with its postings and events, that the transactions operations answer',
  async find (app: FastifyInstance, id: string) {
    const t = await ledgerOf(app).get(undefined, id)
    return t === undefined ? undefined : { organizationId: t.organizationId, userId: t.userId }
  },
  async create (app, entity) {
    if (await ledgerOf(app).get(undefined, entity.id) !== undefined) return false
    const account = await defaultAccount(app, entity.organizationId, entity.userId, SANDBOX_DEPOSIT.asset)
    if (account === undefined) return false
    await deposit(app, { ...input(entity), accountId: account.id })
    return true
  },
  async fixtureRow (app, entity) {
    const account = await accountsOf(app).fixtureDefault({
      id: randomUUID(),
      organizationId: entity.organizationId,
      userId: entity.userId,
      asset: SANDBOX_DEPOSIT.asset,
      label: ACCOUNT_LABEL,
      archivedAt: null,
      createdAt: entity.createdAt,
      updatedAt: entity.createdAt
    })
    const record = depositRecord(input(entity), account, entity.createdAt)
    await ledgerOf(app).fixtureDeposit({ record, parties: [{ userId: account.userId, accountId: account.id }] }, Date.parse(entity.createdAt))
  }
}
