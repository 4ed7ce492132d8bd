// The variables the quotes area reads (`app.config.<key>`).
import { integerVariable } from '../kit/config.js'

export const config = [
  integerVariable({ key: 'quoteRetentionSeconds', name: 'QUOTE_RETENTION_SECONDS', default: 604_800, min: 0, max: 315_360_000, description: 'Quotes never used and expired longer than this (on their organization\'s sandbox clock) are deleted, checked at start and periodically; committing an expired quote answers 404 `entity_not_found` (`quote`) before and after. Used quotes stay (their transactions and the daily limits read them). 0: kept forever.' })
] as const
