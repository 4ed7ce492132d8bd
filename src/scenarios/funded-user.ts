// A user ready to use, funded: created as `POST /core/users` creates one (its checks, its event),
// every KYC process forced ok (the KYC control's events), then per asset a default account (its
// `core.account.created`) credited by a real completed deposit through the ledger (the
// transaction, its postings and events). The areas' own services do each step.
import { randomBytes, randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Decimal } from 'decimal.js'
import type { FundedUserRequest } from '../../schemas/scenarios.js'
import { conflict, entityNotFound } from '../errors.js'
import { catalogueOf } from '../catalogue/lookup.js'
import { checkNewUser, createUser, type NewUser } from '../users/service.js'
import { KycService } from '../kyc/service.js'
import { accountView, defaultAccount } from '../accounts/service.js'
import { deposit } from '../transactions/service.js'

export interface FundedUser {
  userId: string
  accounts: Array<{ id: string, asset: string, balance: { total: string, available: string } }>
}

/** The user made unless the request says otherwise: a resident of Manchester, of age on any sandbox date from 2010 to 2089. */
const defaultUser = (): NewUser => ({
  email: `funded-${randomUUID().slice(0, 8)}@example.com`,
  fullName: 'Alex Morgan',
  birthdate: '1990-01-15',
  primaryCitizenship: 'GB',
  address: { country: 'GB', subdivision: 'GB-MAN', city: 'Manchester', line1: '1 High Street', postalCode: 'M4 1AA' }
})

const amountInvalid = (code: string, message: string): Error =>
  conflict('transaction_amount_invalid', message, { context: 'body', property: `assets.${code}` })

export async function fundedUser (app: FastifyInstance, body: FundedUserRequest): Promise<FundedUser> {
  const organizationId = body.organizationId ?? app.config.demoClient.organizationId
  // Every asset and amount is checked before anything is made.
  const catalogue = await catalogueOf(app)
  const deposits = Object.entries(body.assets).map(([code, amount]) => {
    const asset = catalogue.asset(code)
    if (asset === undefined) throw entityNotFound('asset')
    const value = new Decimal(amount)
    if (value.lte(0)) throw amountInvalid(code, 'The amount must be greater than zero')
    if (value.decimalPlaces() > asset.decimals) throw amountInvalid(code, 'The amount has more decimal places than the asset allows')
    return { asset: code, amount: value.toFixed(asset.decimals), crypto: asset.type === 'crypto' }
  })

  await app.storage.organizations.ensure(organizationId, `Organization ${organizationId.slice(0, 8)}`, app.clock.iso())
  const input: NewUser = { ...defaultUser(), ...body.user }
  await checkNewUser(app, organizationId, input)
  const { user } = await createUser(app, organizationId, input)
  // The KYC area's service is its plugin's; this one runs the same changes, each in its own write.
  await new KycService(app).forceAll(user.id, 'ok')

  const accounts: FundedUser['accounts'] = []
  for (const d of deposits) {
    const account = await defaultAccount(app, organizationId, user.id, d.asset)
    if (account === undefined) throw entityNotFound('user')
    const network = catalogue.rails().find(r => r.type === 'crypto' && r.asset === d.asset)?.network
    await deposit(app, {
      organizationId,
      userId: user.id,
      accountId: account.id,
      originNode: d.crypto && network !== undefined
        ? { type: 'crypto-address', network, execution: { mode: 'simulated', transactionHash: randomBytes(32).toString('hex') } }
        : { type: 'bank-address', network: 'wire' },
      asset: d.asset,
      amount: d.amount
    })
    const view = await accountView(app, account)
    accounts.push({ id: view.id, asset: view.asset, balance: view.balance })
  }
  return { userId: user.id, accounts }
}
