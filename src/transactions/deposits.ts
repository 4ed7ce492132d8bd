// core.simulate-bank-deposit and core.simulate-crypto-deposit: funds arriving from outside at the
// details of one of the acting user's deposit methods. The details find the account (FPS and SEPA:
// the payment `reference` picks the account, else the user's default account of the asset), the
// engine's `deposit()` credits it at once as a completed transaction with its events, and ACH funds
// stay unsettled (in the total, not available) for ACH_SETTLEMENT_SECONDS.
import { randomBytes, randomInt } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { composeIBAN, electronicFormatIBAN, isValidIBAN } from 'ibantools'
import { ApiError, conflict, entityNotFound } from '../errors.js'
import { operation } from '../kit/operation.js'
import { catalogueOf } from '../catalogue/lookup.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import { crossMid } from '../catalogue/prices.js'
import { validateAddress } from '../catalogue/addresses.js'
import { Decimal, cut } from '../money/decimal.js'
import { accountsOf, defaultAccount, depositFamily } from '../accounts/service.js'
import type { AccountRecord } from '../accounts/store.js'
import { SANDBOX_BANK } from '../accounts/details.js'
import { UserContextHeaders } from '../../schemas/headers.js'
import {
  BankDepositAnswer, CryptoDepositAnswer, SimulateBankDepositRequest, SimulateCryptoDepositRequest,
  type BankDeposit, type CryptoDeposit
} from '../../schemas/deposits.js'
import { deposit, type DepositInput } from './service.js'

const USERS = ['user:business', 'user:individual'] as const
/** The least a deposit may be: 10 of a fiat asset; 10 of a crypto asset's smallest units. */
export const MINIMUM_DEPOSIT = 10
/** How many addresses a crypto deposit may come from: one, but more on UTXO networks. */
const UTXO_NETWORKS = new Set(['bitcoin', 'litecoin', 'dogecoin', 'bitcoin-cash'])
const MAX_UTXO_REMITTERS = 20

const depositMethodNotFound = (): ApiError => entityNotFound('depositMethod', 'The account deposit method cannot be found')
const railNotFound = (): ApiError => entityNotFound('rail', 'A rail for the specified type, asset and network cannot be found')
const assetNotSupported = (): ApiError => conflict('asset_not_supported', 'The asset is not supported', { context: 'body', property: 'asset' })
const remitterIsRecipient = (): ApiError => conflict('remitter_and_recipient_cannot_match', 'The remitter and recipient cannot match')
const belowMinimum = (): ApiError => conflict('transaction_amount_invalid', 'The amount minimum limit was not met', {
  context: 'body', property: 'amount', rule: 'minimum-limit-not-met', threshold: { value: MINIMUM_DEPOSIT }
})
const tooPrecise = (decimals: number): ApiError => conflict('transaction_amount_invalid', 'The amount has more decimal places than the asset allows', {
  context: 'body', property: 'amount', rule: 'decimal-places-exceeded', threshold: { value: decimals }
})
const addressInvalid = (property: string): ApiError => conflict('crypto_address_invalid', 'The crypto address is invalid', { context: 'body', property })

// ---- Random remitters: what a bank would show of a sender the request left out ----

const randomDigits = (count: number): string => Array.from({ length: count }, () => String(randomInt(10))).join('')
const randomLetters = (count: number): string => Array.from({ length: count }, () => String.fromCharCode(65 + randomInt(26))).join('')

/** A US routing number with a valid ABA check digit. */
export function randomRoutingNumber (): string {
  const first = randomDigits(8)
  const w = [3, 7, 1, 3, 7, 1, 3, 7]
  const sum = first.split('').reduce((acc, d, i) => acc + Number(d) * w[i]!, 0)
  return first + String((10 - (sum % 10)) % 10)
}

/** A German IBAN with valid check digits. */
function randomIban (): string {
  const iban = composeIBAN({ countryCode: 'DE', bban: randomDigits(18) })
  if (iban === null) throw new Error('could not compose an IBAN')
  return iban
}

const nonZero = (digits: number): string => String(1 + randomInt(9)) + randomDigits(digits - 1)

/** The acting user's name: the individual's full name, the business's name, else the e-mail address. */
async function userName (app: FastifyInstance, organizationId: string, userId: string): Promise<string> {
  const user = await app.storage.users.get(organizationId, userId)
  const record = user?.record ?? {}
  const name = typeof record.fullName === 'string' ? record.fullName : typeof record.name === 'string' ? record.name : user?.email
  return name ?? 'Sandbox User'
}

// ---- Checks shared by both helpers ----

/** 409 when the amount has more decimals than the asset, or is below the minimum (`smallest` units of it). */
function checkAmount (amount: string, decimals: number, minimum: Decimal): void {
  const value = new Decimal(amount)
  if (value.decimalPlaces() > decimals) throw tooPrecise(decimals)
  if (value.lt(minimum)) throw belowMinimum()
}

/**
 * What the account receives of a deposit in `asset`: the deposit itself, or its value in the
 * account's asset at the mid rate of the moment (cut down to the account's decimals).
 */
function creditOf (catalogue: Catalogue, account: AccountRecord, asset: string, amount: string, now: number): DepositInput['credit'] {
  if (account.asset === asset) return undefined
  const forward = crossMid(catalogue, asset, account.asset, now)
  const backward = crossMid(catalogue, account.asset, asset, now)
  const decimals = catalogue.asset(account.asset)?.decimals
  if (forward === undefined || backward === undefined || decimals === undefined) throw assetNotSupported()
  const credited = cut(new Decimal(amount).times(forward), decimals, 'receive')
  if (credited.isZero()) throw belowMinimum()
  return { asset: account.asset, amount: credited.toFixed(decimals), originRate: backward, destinationRate: forward }
}

const amountText = (catalogue: Catalogue, asset: string, amount: string): string => new Decimal(amount).toFixed(catalogue.asset(asset)?.decimals ?? 2)

// ---- Bank deposits ----

type BankRequest = SimulateBankDepositRequest

/** The bank rail of the request: FPS and SEPA name their asset, the US networks are in their rail's (USD). */
function bankRail (catalogue: Catalogue, body: BankRequest) {
  const rails = catalogue.rails().filter(r => r.type === 'bank' && r.network === body.network && r.features.includes('deposit'))
  if (body.network === 'fps' || body.network === 'sepa') {
    const rail = rails.find(r => r.asset === body.asset)
    if (rail === undefined) throw assetNotSupported()
    return rail
  }
  const rail = rails[0]
  if (rail === undefined) throw depositMethodNotFound()
  return rail
}

/** Whether the sender's account, as given, is the deposit details themselves. */
function remitterMatches (body: BankRequest): boolean {
  switch (body.network) {
    case 'fps': return body.remitter?.sortCode === body.sortCode && body.remitter.accountNumber === body.accountNumber.padStart(8, '0')
    case 'sepa': return body.remitter?.iban === body.iban
    case 'wire': return false
    default: return body.remitter?.accountNumber === body.accountNumber &&
      (body.remitter.routingNumber === undefined || body.remitter.routingNumber === SANDBOX_BANK.us.routingNumber)
  }
}

/** The family and identifier the request's details are stored under (`src/accounts/service.ts`). */
function routeOf (body: BankRequest): { family: string, identifier: string } | undefined {
  if (body.network === 'fps') return { family: 'fps', identifier: body.sortCode + body.accountNumber.padStart(8, '0') }
  if (body.network === 'sepa') return { family: 'sepa', identifier: electronicFormatIBAN(body.iban) ?? body.iban }
  if (body.network === 'ach' && body.routingNumber !== SANDBOX_BANK.us.routingNumber) return undefined
  return { family: depositFamily({ type: 'bank', network: body.network }), identifier: body.accountNumber }
}

/**
 * The account a bank deposit reaches. The details must be one of the acting user's deposit
 * methods (another user's are not found). FPS and SEPA: the payment reference picks the user's
 * account whose method carries it, and without one the funds reach the user's default account of
 * the asset (made when there is none). The US networks have no reference: their account number
 * is the account's own.
 */
async function bankRecipient (app: FastifyInstance, organizationId: string, userId: string, body: BankRequest, asset: string): Promise<AccountRecord> {
  const route = routeOf(body)
  const accounts = accountsOf(app)
  const routed = route === undefined ? undefined : await accounts.routeDeposit(route.family, route.identifier)
  if (routed === undefined || routed.organizationId !== organizationId || routed.userId !== userId) throw depositMethodNotFound()
  if (body.network !== 'fps' && body.network !== 'sepa') return routed
  if (body.reference !== undefined) {
    const referenced = await accounts.routeReference(organizationId, userId, body.network, body.reference)
    if (referenced === undefined) throw depositMethodNotFound()
    return referenced
  }
  const fallback = await defaultAccount(app, organizationId, userId, asset)
  if (fallback === undefined) throw depositMethodNotFound()
  return fallback
}

/** The request as answered: the asset and every remitter field filled in. */
function bankEcho (body: BankRequest, name: string, asset: string): BankDeposit {
  switch (body.network) {
    case 'fps': {
      const remitter = { name: body.remitter?.name ?? name, sortCode: body.remitter?.sortCode ?? randomDigits(6), accountNumber: body.remitter?.accountNumber ?? randomDigits(8) }
      return { network: 'fps', sortCode: body.sortCode, accountNumber: body.accountNumber, ...(body.reference === undefined ? {} : { reference: body.reference }), asset: body.asset, amount: body.amount, remitter }
    }
    case 'sepa': {
      const remitter = { name: body.remitter?.name ?? name, bic: body.remitter?.bic ?? `${randomLetters(4)}DE${randomLetters(2)}`, iban: body.remitter?.iban ?? randomIban() }
      return { network: 'sepa', iban: body.iban, ...(body.reference === undefined ? {} : { reference: body.reference }), asset: body.asset, amount: body.amount, remitter }
    }
    case 'ach': {
      const r = body.remitter
      const remitter = {
        name: r?.name ?? name,
        accountNumber: r?.accountNumber ?? nonZero(10),
        routingNumber: r?.routingNumber ?? randomRoutingNumber(),
        secCode: r?.secCode ?? 'WEB' as const,
        transactionType: r?.transactionType ?? 'Push' as const,
        serviceType: r?.serviceType ?? 'SameDay' as const
      }
      return { network: 'ach', accountNumber: body.accountNumber, routingNumber: body.routingNumber, asset, amount: body.amount, remitter }
    }
    case 'wire':
      return { network: 'wire', accountNumber: body.accountNumber, amount: body.amount, asset, remitter: body.remitter ?? { name } }
    case 'fednow':
    case 'rtp': {
      const r = body.remitter
      const remitter = { name: r?.name ?? name, accountNumber: r?.accountNumber ?? nonZero(10), routingNumber: r?.routingNumber ?? randomRoutingNumber() }
      return { network: body.network, accountNumber: body.accountNumber, asset, amount: body.amount, remitter }
    }
  }
}

export async function simulateBankDeposit (app: FastifyInstance, organizationId: string, userId: string, body: BankRequest): Promise<BankDeposit> {
  const catalogue = await catalogueOf(app)
  const rail = bankRail(catalogue, body)
  checkAmount(body.amount, rail.decimals, new Decimal(MINIMUM_DEPOSIT))
  if (body.network === 'sepa' && body.remitter?.iban !== undefined && !isValidIBAN(body.remitter.iban)) {
    throw conflict('invalid_number', 'The remitter IBAN is invalid', { context: 'body', property: 'remitter.iban' })
  }
  if (remitterMatches(body)) throw remitterIsRecipient()
  const account = await bankRecipient(app, organizationId, userId, body, rail.asset)
  const echo = bankEcho(body, await userName(app, organizationId, userId), rail.asset)
  await deposit(app, {
    organizationId,
    userId,
    accountId: account.id,
    originNode: { type: 'bank-address', network: body.network },
    asset: rail.asset,
    amount: amountText(catalogue, rail.asset, body.amount),
    unsettled: body.network === 'ach',
    credit: creditOf(catalogue, account, rail.asset, body.amount, app.clock.now())
  })
  return echo
}

// ---- Crypto deposits ----

export async function simulateCryptoDeposit (app: FastifyInstance, organizationId: string, userId: string, body: SimulateCryptoDepositRequest): Promise<CryptoDeposit> {
  const catalogue = await catalogueOf(app)
  const rail = catalogue.rails().find(r => r.type === 'crypto' && r.network === body.network && r.asset === body.asset)
  const network = catalogue.network(body.network)
  if (rail === undefined || network === undefined) throw railNotFound()
  if (!rail.features.includes('deposit')) throw conflict('rail_feature_not_available', 'The \'deposit\' feature is not available for the rail', { feature: 'deposit' })
  checkAmount(body.amount, rail.decimals, new Decimal(MINIMUM_DEPOSIT).times(new Decimal(10).pow(-rail.decimals)))
  if (!validateAddress(network, body.address).isValid) throw addressInvalid('address')
  const senders = body.remitter?.addresses ?? []
  const limit = UTXO_NETWORKS.has(body.network) ? MAX_UTXO_REMITTERS : 1
  if (senders.length > limit) {
    throw conflict('crypto_address_invalid', `The number of addresses must be less than or equal to ${limit}`, { context: 'body', property: 'remitter.addresses', threshold: { limit } })
  }
  if (senders.some(a => !validateAddress(network, a).isValid)) throw addressInvalid('remitter.addresses')
  if (senders.includes(body.address)) throw remitterIsRecipient()

  // The address is one of the acting user's deposit methods, for this asset, with its reference.
  const accounts = accountsOf(app)
  const account = await accounts.routeDeposit(`crypto:${body.network}`, body.address)
  if (account === undefined || account.organizationId !== organizationId || account.userId !== userId) throw depositMethodNotFound()
  const method = await accounts.depositMethod(account.id, 'crypto', body.asset, body.network)
  const reference = method?.details.reference
  if (method === undefined || method.identifier !== body.address || (typeof reference === 'string' ? reference : undefined) !== body.reference) throw depositMethodNotFound()

  const hash = randomBytes(32).toString('hex')
  await deposit(app, {
    organizationId,
    userId,
    accountId: account.id,
    originNode: {
      type: 'crypto-address',
      network: body.network,
      ...(senders.length === 0 ? {} : { address: senders[0] }),
      execution: { mode: 'simulated', transactionHash: body.network === 'ethereum' ? `0x${hash}` : hash }
    },
    asset: body.asset,
    amount: amountText(catalogue, body.asset, body.amount),
    credit: creditOf(catalogue, account, body.asset, body.amount, app.clock.now())
  })
  return {
    network: body.network,
    address: body.address,
    ...(body.reference === undefined ? {} : { reference: body.reference }),
    asset: body.asset,
    amount: body.amount,
    ...(body.remitter === undefined ? {} : { remitter: body.remitter })
  }
}

// ---- Routes ----

export async function depositRoutes (app: FastifyInstance): Promise<void> {
  const headers = UserContextHeaders(app.config.serviceName)

  operation(app, {
    id: 'simulateBankDeposit',
    method: 'POST',
    url: '/core/accounts/test-helpers/bank-deposits',
    tag: 'Accounts',
    scopes: ['core.accounts:use-test-helpers'],
    subjects: USERS,
    summary: 'Simulate bank deposit (test helper)',
    description: 'Funds arriving by bank transfer at the details of one of the acting user\'s deposit methods (`PUT /core/accounts/{accountId}/deposit-method`): ' +
      'FPS by sort code and account number, SEPA by IBAN, the US networks by account number (and, for ACH, the sandbox bank\'s routing number). ' +
      'On FPS and SEPA, `reference` (the payment reference of a deposit method\'s details) picks the account; without it the funds reach the ' +
      'user\'s default account of the asset, made if there is none. An account in another asset receives the value at the mid rate. ' +
      'The account is credited at once by a completed transaction (`core.transaction.created`, `core.account.balance-changed`, ' +
      '`core.transaction.status-changed`); ACH funds count in the total balance but are not available until ACH_SETTLEMENT_SECONDS later on the ' +
      'sandbox clock. Missing remitter fields are filled: the name with the acting user\'s, the rest at random.',
    headers,
    body: SimulateBankDepositRequest,
    responses: {
      202: { description: 'Deposit simulated: the request with the remitter and asset filled in.', ...BankDepositAnswer },
      404: '`entity_not_found` (`details.entity: "depositMethod"`): the details (and reference) match none of the acting user\'s deposit methods.',
      409: '`asset_not_supported` (no bank rail of the network takes the asset), `transaction_amount_invalid` (below 10, `minimum-limit-not-met`; ' +
        'or more decimals than the asset, `decimal-places-exceeded`), `remitter_and_recipient_cannot_match` (the sender\'s account is the details), ' +
        '`invalid_number` (`remitter.iban` fails its check digits).'
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    return reply.code(202).send({ bankDeposit: await simulateBankDeposit(app, organizationId, userId, request.body) })
  })

  operation(app, {
    id: 'simulateCryptoDeposit',
    method: 'POST',
    url: '/core/accounts/test-helpers/crypto-deposits',
    tag: 'Accounts',
    scopes: ['core.accounts:use-test-helpers'],
    subjects: USERS,
    summary: 'Simulate crypto deposit (test helper)',
    description: 'Funds arriving on chain at the address (and destination tag or memo, as `reference`) of one of the acting user\'s crypto deposit ' +
      'methods for `asset` on `network`. The account is credited at once by a completed transaction whose origin is the first remitter address ' +
      '(`execution.mode: simulated`), with its events. The amount must be at least 10 of the asset\'s smallest units. `remitter.addresses` holds ' +
      'one address, or up to 20 on UTXO networks (bitcoin, litecoin, dogecoin), each valid on the network.',
    headers,
    body: SimulateCryptoDepositRequest,
    responses: {
      202: { description: 'Deposit simulated: the request as sent.', ...CryptoDepositAnswer },
      404: '`entity_not_found`: no crypto rail for the asset and network (`"rail"`), or the address and reference match none of the acting user\'s ' +
        'deposit methods for them (`"depositMethod"`).',
      409: '`rail_feature_not_available` (the rail takes no deposits), `transaction_amount_invalid` (`minimum-limit-not-met`, `decimal-places-exceeded`), ' +
        '`crypto_address_invalid` (`address` or `remitter.addresses` not valid on the network, or too many remitter addresses), ' +
        '`remitter_and_recipient_cannot_match` (a remitter address is the deposit address).'
    }
  }, async (request, reply) => {
    const { organizationId, userId } = request.auth
    return reply.code(202).send({ cryptoDeposit: await simulateCryptoDeposit(app, organizationId, userId, request.body) })
  })
}
