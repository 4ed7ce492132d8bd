// Shared setup of the accounts and capabilities tests (test/api-setup.ts), and users made ready.
import type { FastifyInstance } from 'fastify'
import type { Setup } from '../api-setup.js'

export { REQUEST_ID, setup, type Call, type Method, type Setup } from '../api-setup.js'
export const USER_IP = { 'x-uphold-user-ip': '47.174.97.164' }

/** Every KYC process, screening and risk last (identity and due diligence start them again). */
export const KYC_PROCESSES = [
  'profile', 'address', 'email', 'phone', 'identity', 'proof-of-address', 'customer-due-diligence', 'enhanced-due-diligence',
  'crypto-risk-assessment', 'self-categorization-statement', 'tax-details', 'screening', 'risk'
]

/** Forces every KYC process of the user to `status` through the sandbox control. */
export async function forceKyc (app: FastifyInstance, userId: string, status = 'ok', processes = KYC_PROCESSES): Promise<void> {
  for (const process of processes) {
    const res = await app.inject({ method: 'POST', url: `/_sandbox/users/${userId}/kyc/${process}`, payload: { status } })
    if (res.statusCode !== 200) throw new Error(`forcing ${process}: ${res.statusCode} ${res.body}`)
  }
}

/**
 * A user who can do everything the tests need: KYC done, the cooldown skipped and the vIBAN terms
 * accepted (the default user resides in GB).
 */
export async function ready ({ app, userId, call }: Pick<Setup, 'app' | 'userId' | 'call'>): Promise<void> {
  await forceKyc(app, userId)
  if ((await call('PUT', '/core/assets/test-helpers/skip-assets-cooldowns')).statusCode !== 204) throw new Error('skip cooldowns')
  const accepted = await call('POST', '/core/terms-of-service/unique-account-number-viban/accept', { headers: USER_IP })
  if (accepted.statusCode !== 201) throw new Error(`accept: ${accepted.statusCode} ${accepted.body}`)
}
