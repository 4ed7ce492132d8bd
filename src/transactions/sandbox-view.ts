// GET /_sandbox/ledger: the dashboard's view of the ledger (not part of the real service): each
// user's accounts with their balances, and the newest transactions with their status. The
// dashboard links each pending transaction to POST /_sandbox/transactions/{transactionId}/status,
// and a transaction on hold to the control that expires its pending request for information.
import type { FastifyInstance } from 'fastify'
import { LedgerView, LedgerViewQuery } from '../../schemas/ledger-view.js'
import { callerOrganization, control } from '../kit/operation.js'
import { accountsOf } from '../accounts/service.js'
import { findAsset } from '../catalogue/lookup.js'
import { ledgerOf } from './service.js'
import type { TransactionRecord } from './store.js'

const USERS = 200
const ACCOUNTS = 100
const TRANSACTIONS = 200

/** One side of a transaction as the view shows it: the asset, the amount and what kind of node. */
const side = (s: TransactionRecord['body']['origin'], accountId: string | null): { asset: string, amount: string, type: string, accountId?: string } => ({
  asset: s.asset,
  amount: s.amount,
  type: typeof s.node.type === 'string' ? s.node.type : 'unknown',
  ...(accountId === null ? {} : { accountId })
})

/**
 * What the dashboard calls a transaction. A trade is a committed quote between two accounts of the
 * same user in different assets: `buy <asset>` when the destination's asset is not fiat (crypto or
 * a stablecoin; bought with fiat or with another crypto asset), `sell <asset>` when only the
 * origin's is not fiat, `exchange <from> → <to>` between two fiat currencies. Otherwise its kind
 * (`transfer`, `deposit`).
 */
async function labelOf (app: FastifyInstance, t: TransactionRecord): Promise<string> {
  const { origin, destination } = t.body
  if (t.kind !== 'transfer' || origin.asset === destination.asset || t.originAccountId === null || t.destinationAccountId === null) return t.kind
  const to = await accountsOf(app).get(t.organizationId, t.destinationAccountId)
  if (to?.userId !== t.userId) return t.kind
  const fiat = async (code: string): Promise<boolean> => (await findAsset(app, code))?.type === 'fiat'
  if (!await fiat(destination.asset)) return `buy ${destination.asset}`
  if (!await fiat(origin.asset)) return `sell ${origin.asset}`
  return `exchange ${origin.asset} → ${destination.asset}`
}

export async function ledgerView (app: FastifyInstance): Promise<void> {
  control(app, {
    id: 'sandboxLedgerView',
    method: 'GET',
    url: '/_sandbox/ledger',
    summary: 'List users\' accounts and transactions',
    description: `The newest ${USERS} users (of \`organizationId\`, or of every organization), newest first, with their accounts (at most ${ACCOUNTS} each) and balances, ` +
      `and the newest ${TRANSACTIONS} transactions with their status. The dashboard shows them, with the control actions of each pending transaction. ` +
      'An organization\'s control token sees its own organization only.',
    acts: 'organization',
    querystring: LedgerViewQuery,
    responses: { 200: { description: 'The users\' accounts and the transactions.', ...LedgerView } }
  }, async (request) => {
    const organizationId = callerOrganization(request, request.query.organizationId)
    const accounts = accountsOf(app)
    const ledger = ledgerOf(app)
    const users = []
    for (const user of await app.storage.users.recent(organizationId, USERS)) {
      const own = await accounts.list(user.organizationId, user.id, undefined, 0, ACCOUNTS)
      users.push({
        id: user.id,
        organizationId: user.organizationId,
        email: user.email,
        accounts: await Promise.all(own.map(async a => ({ id: a.id, label: a.label, asset: a.asset, archived: a.archivedAt !== null, balance: await ledger.balance(a.id) })))
      })
    }
    const pendingRfi = async (t: TransactionRecord): Promise<string | undefined> =>
      t.status === 'on-hold' ? (await ledger.rfis(t.id)).find(r => r.status === 'pending')?.id : undefined
    const transactions = await Promise.all((await ledger.recent(organizationId, TRANSACTIONS)).map(async t => ({
      id: t.id,
      organizationId: t.organizationId,
      userId: t.userId,
      kind: t.kind,
      label: await labelOf(app, t),
      status: t.status,
      ...(t.reason === null ? {} : { reason: t.reason }),
      ...await pendingRfi(t).then(id => id === undefined ? {} : { pendingRequestForInformation: id }),
      origin: side(t.body.origin, t.originAccountId),
      destination: side(t.body.destination, t.destinationAccountId),
      createdAt: t.createdAt,
      updatedAt: t.updatedAt
    })))
    return { users, transactions }
  })
}
