// The variables the transactions area reads (`app.config.<key>`).
import { integerVariable } from '../kit/config.js'

export const config = [
  integerVariable({ key: 'transactionSettlementSeconds', name: 'TRANSACTION_SETTLEMENT_SECONDS', default: 5, min: 0, max: 31_536_000, description: 'How long (sandbox clock) a processing transaction takes to complete by itself; `POST /_sandbox/transactions/{transactionId}/status` moves it at once.' }),
  integerVariable({ key: 'achSettlementSeconds', name: 'ACH_SETTLEMENT_SECONDS', default: 60, min: 0, max: 31_536_000, description: 'How long (sandbox clock) the funds of a simulated ACH deposit stay unsettled: counted in `total` but not in `available`.' }),
  integerVariable({ key: 'rfiExpirySeconds', name: 'RFI_EXPIRY_SECONDS', default: 604_800, min: 1, max: 31_536_000, description: 'How long (sandbox clock) a request for information stays pending before it expires, failing its transaction on hold (`travel-rule-verification-failed`).' })
] as const
