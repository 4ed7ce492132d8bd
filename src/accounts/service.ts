// Accounts as the API shows them: their views (balance from the ledger), creation with its checks
// and first metadata, the default account of an asset made on first need, archiving, and the
// deposit methods that route external funds back to an account.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ApiError, conflict, entityNotFound } from '../errors.js'
import { catalogueOf, findAsset } from '../catalogue/lookup.js'
import { metadataAtCreation, type CreationErrors } from '../metadata/revision.js'
import type { Rail } from '../../schemas/catalogue.js'
import type { Account, CreateAccountRequest, DepositMethod, DepositMethodQuery } from '../../schemas/accounts.js'
import { US_BANK_NETWORKS } from '../../schemas/accounts.js'
import { requireCapabilities, vibanTermsApply } from '../capabilities/service.js'
import type { CapabilityCode } from '../capabilities/evaluate.js'
import { accountsStore, type AccountRecord, type AccountsStore, type EventMaker, type StoredDepositMethod } from './store.js'
import { SANDBOX_BANK, cryptoAddress, fpsAccountNumber, paymentReference, seedBytes, sepaIban, usAccountNumber } from './details.js'

export const accountsOf = (app: FastifyInstance): AccountsStore => app.storage.store(accountsStore)

export const accountNotFound = (): ApiError => entityNotFound('account')

/** The account as the API and its events show it, with the ledger's balance. */
export async function accountView (app: FastifyInstance, a: AccountRecord): Promise<Account> {
  const { balance } = await app.areas.accountLedger(app, a.organizationId, a.id)
  return { id: a.id, ownerId: a.userId, label: a.label, asset: a.asset, balance, createdAt: a.createdAt, updatedAt: a.updatedAt }
}

/**
 * Events carry the account as the API shows it. Written inside the store's write, they cannot wait
 * for the ledger: the balance is that of an account the ledger has not touched in this write.
 */
export const accountEvents = (app: FastifyInstance): EventMaker => (type, a) => app.events.build(a.organizationId, type, {
  account: { id: a.id, ownerId: a.userId, label: a.label, asset: a.asset, balance: { total: '0', available: '0' }, createdAt: a.createdAt, updatedAt: a.updatedAt }
})

/** The acting user's account (archived or not); another user's, or another organization's, is 404. */
export async function ownAccount (app: FastifyInstance, organizationId: string, userId: string, accountId: string): Promise<AccountRecord> {
  const found = await accountsOf(app).get(organizationId, accountId)
  if (found === undefined || found.userId !== userId) throw accountNotFound()
  return found
}

/** 404 for an unknown asset, 409 `asset_not_supported` for one no account can hold (no features at all). */
async function accountAsset (app: FastifyInstance, code: string): Promise<void> {
  const asset = await findAsset(app, code)
  if (asset === undefined) throw entityNotFound('asset')
  if (asset.features.length === 0) throw conflict('asset_not_supported', 'The asset is not supported')
}

export async function createAccount (app: FastifyInstance, organizationId: string, userId: string, input: CreateAccountRequest): Promise<{ account: Account, errors?: CreationErrors }> {
  await accountAsset(app, input.asset)
  const now = app.clock.iso()
  const { metadata, errors } = metadataAtCreation(input.metadata, now)
  const record: AccountRecord = { id: randomUUID(), organizationId, userId, asset: input.asset, label: input.label, archivedAt: null, createdAt: now, updatedAt: now }
  const created = await accountsOf(app).create(record, accountEvents(app), metadata)
  // The guard saw the user a moment ago: it was deleted since.
  if (!created.ok) throw entityNotFound('user')
  const account = await accountView(app, created.account)
  return errors === undefined ? { account } : { account, errors }
}

/**
 * The user's default account of the asset, created on first need (labelled with the asset's name)
 * with its `core.account.created`. For the ledger (a deposit in an asset the user holds no account
 * of) and the sandbox. Undefined when the user does not exist.
 */
export async function defaultAccount (app: FastifyInstance, organizationId: string, userId: string, asset: string): Promise<AccountRecord | undefined> {
  const existing = await accountsOf(app).defaultOf(organizationId, userId, asset)
  if (existing !== undefined) return existing
  const now = app.clock.iso()
  const label = (await findAsset(app, asset))?.name ?? asset
  const made = await accountsOf(app).ensureDefault({ id: randomUUID(), organizationId, userId, asset, label, archivedAt: null, createdAt: now, updatedAt: now }, accountEvents(app))
  return made?.account
}

/**
 * Funds arrived at an account: an archived one is unarchived, with `core.account.unarchived`.
 * For the ledger to await inside the write that credits the account.
 */
export const unarchiveOnFunds = async (app: FastifyInstance, accountId: string): Promise<boolean> =>
  await accountsOf(app).unarchiveInWrite(accountId, app.clock.iso(), accountEvents(app))

export async function archiveAccount (app: FastifyInstance, organizationId: string, userId: string, accountId: string): Promise<void> {
  await ownAccount(app, organizationId, userId, accountId)
  const ledger = await app.areas.accountLedger(app, organizationId, accountId)
  if (ledger.balance.total !== '0' && !/^0(\.0*)?$/.test(ledger.balance.total)) throw conflict('account_has_balance', 'The account has balance and cannot be archived')
  if (await app.areas.accountPending(app, organizationId, accountId)) throw conflict('account_has_pending_transactions', 'The account has pending transactions and cannot be archived')
  const result = await accountsOf(app).archive(organizationId, accountId, app.clock.iso(), accountEvents(app))
  if (result === 'not-found') throw accountNotFound()
}

// ---- Deposit methods ----

const railNotFound = (): ApiError => entityNotFound('rail', 'A rail for the specified type, asset and network cannot be found')
export const depositMethodNotFound = (): ApiError => entityNotFound('depositMethod', 'A deposit method for the specified type, asset and network cannot be found')

/**
 * The rail a deposit method of the account uses, after its checks: 404 for no such rail; 409 when
 * the account's asset cannot take the deposit (`transfer` for its own asset, `buy` for another,
 * converted on arrival), when the rail takes no deposits, or when only the default account of the
 * asset may receive on it; then 409 `user_capability_failure` while the deposit's capabilities
 * have requirements or restrictions.
 */
export async function depositRail (app: FastifyInstance, account: AccountRecord, query: DepositMethodQuery): Promise<Rail> {
  const catalogue = await catalogueOf(app)
  const rail = catalogue.rails().find(r => r.type === query.type && r.asset === query.asset && r.network === query.network)
  if (rail === undefined) throw railNotFound()
  const feature = rail.asset === account.asset ? 'transfer' : 'buy'
  const asset = catalogue.asset(account.asset)
  if (asset === undefined || !asset.features.includes(feature)) {
    throw conflict('asset_feature_not_available', `The '${feature}' feature is not available for the account asset`, { context: 'path', property: 'accountId', feature })
  }
  if (!rail.features.includes('deposit')) throw conflict('rail_feature_not_available', 'The \'deposit\' feature is not available for the rail', { feature: 'deposit' })
  if (rail.constraints?.some(c => c.rule === 'allowed-deposit-accounts' && c.allowed === 'default-only') === true) {
    const fallback = await accountsOf(app).defaultOf(account.organizationId, account.userId, account.asset)
    if (fallback?.id !== account.id) {
      throw conflict('rail_constraint_violated', 'Deposits for this rail are only available to the default account', { rule: 'allowed-deposit-accounts' })
    }
  }
  await requireCapabilities(app, account.organizationId, account.userId, await depositCapabilities(app, account, rail))
  return rail
}

/**
 * The capabilities a deposit on the rail needs: `crypto-deposits` or `bank-deposits`, and for FPS
 * and SEPA details of their own, `unique-account-number-viban` where the vIBAN terms apply to the user.
 */
async function depositCapabilities (app: FastifyInstance, account: AccountRecord, rail: Rail): Promise<CapabilityCode[]> {
  if (rail.type === 'crypto') return ['crypto-deposits']
  const viban = (rail.network === 'fps' || rail.network === 'sepa') && await vibanTermsApply(app, account.organizationId, account.userId)
  return viban ? ['bank-deposits', 'unique-account-number-viban'] : ['bank-deposits']
}

const isUsNetwork = (network: string): boolean => (US_BANK_NETWORKS as readonly string[]).includes(network)

/** The family a rail's identifiers are unique in: one per crypto network, and one per bank scheme. */
export const depositFamily = (rail: Pick<Rail, 'type' | 'network'>): string =>
  rail.type === 'crypto' ? `crypto:${rail.network}` : isUsNetwork(rail.network) ? 'us' : rail.network

/** The details of a new deposit method on the rail, for attempt `attempt` (a clash is tried again with the next). */
function makeDetails (rail: Rail, account: AccountRecord, beneficiary: string, otherUsNetworks: string[]) {
  return async (attempt: number, reuse: (family: string) => Promise<string | undefined>): Promise<StoredDepositMethod> => {
    const seed = `${account.id}:${rail.network}:${attempt}`
    const family = depositFamily(rail)
    const base = { type: rail.type, asset: rail.asset, network: rail.network, family }
    if (rail.type === 'crypto') {
      const made = cryptoAddress(rail.network, seed) ?? { address: `sandbox${seedBytes(seed, 20).toString('hex')}`, formats: [] }
      const address = made.address
      const formats = made.formats.length > 0 ? made.formats : [{ format: 'pubkey-hash' as const, value: address }]
      const details = { network: rail.network, asset: rail.asset, address, addressFormats: formats, ...(made.reference === undefined ? {} : { reference: made.reference }) }
      return { ...base, identifier: address, details }
    }
    const bank = { network: rail.network, asset: rail.asset, beneficiary }
    if (rail.network === 'fps') {
      const accountNumber = fpsAccountNumber(seed)
      const { bankName, bankAddress, sortCode } = SANDBOX_BANK.gb
      return { ...base, identifier: sortCode + accountNumber, details: { ...bank, bankName, bankAddress, sortCode, accountNumber, reference: paymentReference(seed) } }
    }
    if (rail.network === 'sepa') {
      const iban = sepaIban(seed)
      const { bankName, bankAddress, bic } = SANDBOX_BANK.eu
      return { ...base, identifier: iban, details: { ...bank, bankName, bankAddress, bic, iban, reference: paymentReference(seed) } }
    }
    // The US networks of an account share one account number.
    const accountNumber = await reuse('us') ?? usAccountNumber(seed)
    const { bankName, bankAddress, routingNumber } = SANDBOX_BANK.us
    return {
      ...base,
      identifier: accountNumber,
      details: { ...bank, bankName, bankAddress, routingNumber, accountNumber, accountType: 'checking', secondaryNetworks: otherUsNetworks }
    }
  }
}

/** The bank networks this server can issue details for. */
const issuable = (rail: Rail): boolean => rail.type === 'crypto' || rail.network === 'fps' || rail.network === 'sepa' || isUsNetwork(rail.network)

export const depositMethodView = (m: StoredDepositMethod): DepositMethod => ({ type: m.type as DepositMethod['type'], status: 'ok', details: m.details as DepositMethod['details'] })

export async function getDepositMethod (app: FastifyInstance, account: AccountRecord, query: DepositMethodQuery): Promise<DepositMethod> {
  await depositRail(app, account, query)
  const stored = await accountsOf(app).depositMethod(account.id, query.type, query.asset, query.network)
  if (stored === undefined) throw depositMethodNotFound()
  return depositMethodView(stored)
}

export async function setupDepositMethod (app: FastifyInstance, account: AccountRecord, query: DepositMethodQuery): Promise<{ created: boolean, depositMethod: DepositMethod }> {
  const rail = await depositRail(app, account, query)
  if (!issuable(rail)) throw railNotFound()
  const user = await app.storage.users.get(account.organizationId, account.userId)
  const fullName = user?.record.fullName
  const beneficiary = typeof fullName === 'string' ? fullName : SANDBOX_BANK.beneficiary
  const otherUsNetworks = isUsNetwork(rail.network)
    ? (await catalogueOf(app)).rails().filter(r => r.type === 'bank' && r.asset === rail.asset && r.network !== rail.network && isUsNetwork(r.network) && r.features.includes('deposit')).map(r => r.network)
    : []
  const { created, method } = await accountsOf(app).setupDepositMethod(account, query, makeDetails(rail, account, beneficiary, otherUsNetworks), app.clock.iso())
  return { created, depositMethod: depositMethodView(method) }
}
