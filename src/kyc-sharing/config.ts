// The variables the KYC sharing area reads (`app.config.<key>`).
import { nameVariable } from '../kit/config.js'

export const config = [
  nameVariable({ key: 'partnerArea', name: 'PARTNER_AREA', default: 'partner', description: 'First path segment of `/<partner>/kyc-sharing/...` and of its scope.' })
] as const
