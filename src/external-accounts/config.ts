// The variables the external accounts area reads (`app.config.<key>`).
import { integerVariable } from '../kit/config.js'

export const config = [
  integerVariable({ key: 'cardCheckDelaySeconds', name: 'CARD_CHECK_DELAY_SECONDS', default: 5, min: 0, max: 31_536_000, description: 'How long (sandbox clock) the service takes to check a new card before it turns `ok`; `POST /_sandbox/external-accounts/{externalAccountId}/status` sets its status at once.' })
] as const
