// Each process update: the checks that read the catalogue or the files first, then the state
// machine's step in one write.
import type { FastifyInstance } from 'fastify'
import type {
  AddressUpdate, EmailUpdate, EnhancedDueDiligenceUpdate, FormUpdate, IdentityUpdate, PhoneUpdate, ProfileUpdate,
  ProofOfAddressUpdate, TaxDetailsUpdate
} from '../../schemas/kyc.js'
import * as machine from './machine.js'
import type { Json } from './model.js'
import type { Updated } from './service.js'
import { checkCountries, checkPlace, checkPostalCode, checkSubdivision } from '../users/rules.js'

type Handler<B> = (app: FastifyInstance, organizationId: string, userId: string, body: B) => Promise<Updated>

export const profile: Handler<ProfileUpdate> = async (app, org, user, body) => {
  const { input } = body
  await checkCountries(app, [
    ['input.primaryCitizenship', input.primaryCitizenship, 'citizenship'],
    ['input.citizenshipCountry', input.citizenshipCountry, 'citizenship'],
    ['input.birthplace.country', input.birthplace?.country, 'citizenship'],
    ...(input.otherCitizenships ?? []).map((c, i): [string, string, 'citizenship'] => [`input.otherCitizenships[${i}]`, c, 'citizenship'])
  ])
  if (input.address?.subdivision !== undefined) {
    await checkSubdivision(app, 'input.address.subdivision', await app.kyc.userCountry(org, user), input.address.subdivision)
  }
  return await app.kyc.update(org, user, 'profile', c => { machine.updateProfile(c, body) })
}

export const address: Handler<AddressUpdate> = async (app, org, user, body) => {
  if (body.input.address.subdivision !== undefined) {
    await checkSubdivision(app, 'input.address.subdivision', await app.kyc.userCountry(org, user), body.input.address.subdivision)
  }
  return await app.kyc.update(org, user, 'address', c => { machine.updateAddress(c, body) })
}

export const email: Handler<EmailUpdate> = async (app, org, user, body) =>
  await app.kyc.update(org, user, 'email', async (c, lookups) => { await machine.updateEmail(c, body, lookups) })

export const phone: Handler<PhoneUpdate> = async (app, org, user, body) => {
  await checkCountries(app, [['input.country', body.input.country, 'phone']])
  return await app.kyc.update(org, user, 'phone', async (c, lookups) => { await machine.updatePhone(c, body, lookups) })
}

export const identity: Handler<IdentityUpdate> = async (app, org, user, body) => {
  const country = await app.kyc.userCountry(org, user)
  if (body.type === 'document-submission') {
    await app.kyc.files(org, user, body.input.media)
    await checkCountries(app, [['output.document.country', body.output?.document.country, 'citizenship']])
    await checkPlace(app, 'output.person.address', body.output?.person.address as Json | undefined, country)
  } else {
    await checkCountries(app, [['input.data.citizenshipCountry', body.input.data.citizenshipCountry, 'citizenship']])
    await checkPlace(app, 'input.data.address', body.input.data.address as Json | undefined, country)
  }
  return await app.kyc.update(org, user, 'identity', c => { machine.updateIdentity(c, body) })
}

export const proofOfAddress: Handler<ProofOfAddressUpdate> = async (app, org, user, body) => {
  const country = await app.kyc.userCountry(org, user)
  if (body.type === 'document-submission') {
    await app.kyc.files(org, user, body.input.media)
    await checkPlace(app, 'output.person.address', body.output?.person.address as Json | undefined, country)
  } else {
    await checkPlace(app, 'input.data.address', body.input.data.address as Json, country)
  }
  return await app.kyc.update(org, user, 'proof-of-address', c => { machine.updateProofOfAddress(c, body) })
}

export const enhancedDueDiligence: Handler<EnhancedDueDiligenceUpdate> = async (app, org, user, body) => {
  await app.kyc.files(org, user, body.input.media)
  return await app.kyc.update(org, user, 'enhanced-due-diligence', c => { machine.updateEnhancedDueDiligence(c, body) })
}

export const form = (code: machine.FormProcess): Handler<FormUpdate> => async (app, org, user, body) =>
  await app.kyc.update(org, user, code, c => { machine.updateForm(c, code, body) })

export const taxDetails: Handler<TaxDetailsUpdate> = async (app, org, user, body) => {
  // The form's shape first (400), then what the catalogue decides (409).
  machine.checkTaxForm(body.input)
  const residency = (body.input as { taxResidency?: { countries?: string[], address?: { country: string, subdivision?: string, postalCode?: string } } }).taxResidency
  await checkCountries(app, (residency?.countries ?? []).map((c, i): [string, string, 'residence'] => [`input.taxResidency.countries[${i}]`, c, 'residence']))
  const address = residency?.address
  if (address !== undefined) {
    await checkPlace(app, 'input.taxResidency.address', address)
    checkPostalCode(address, 'input.taxResidency.address', address.country)
  }
  return await app.kyc.update(org, user, 'tax-details', c => { machine.updateTaxDetails(c, body) })
}
