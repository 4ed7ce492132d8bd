// The variables the KYC area reads (`app.config.<key>`).
import { integerVariable } from '../kit/config.js'

export const config = [
  integerVariable({ key: 'kycReviewDelaySeconds', name: 'KYC_REVIEW_DELAY_SECONDS', default: 5, min: 0, max: 31_536_000, description: 'How long (sandbox clock) the service takes to review KYC data it verifies itself (uphold-verified submissions, screening, risk) before the outcome; `POST /_sandbox/users/{userId}/kyc/{process}` forces one at once.' })
] as const
