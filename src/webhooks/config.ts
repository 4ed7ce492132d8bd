// The variables the webhooks area reads (`app.config.<key>`).
import { ConfigError, integerVariable, variable } from '../kit/config.js'

export const config = [
  variable({
    key: 'webhookRetrySchedule',
    name: 'WEBHOOK_RETRY_SCHEDULE',
    default: '5,30,120,600,1800',
    description: 'Seconds between delivery attempts after a failure (comma-separated).',
    parse: raw => {
      const schedule = (raw ?? '').trim()
      if (!/^\d+(\s*,\s*\d+)*$/.test(schedule)) throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds, such as "5,30,120"; got "${schedule}"`)
      return schedule.split(',').map(s => Number(s.trim()))
    }
  }),
  integerVariable({ key: 'webhookTimeoutMs', name: 'WEBHOOK_TIMEOUT_MS', default: 5000, min: 10, max: 120_000, description: 'How long a webhook receiver may take before the attempt counts as failed.' }),
  integerVariable({ key: 'webhookSecretGraceSeconds', name: 'WEBHOOK_SECRET_GRACE_SECONDS', default: 86_400, min: 0, max: 31_536_000, description: 'After a signing-secret rotation, how long the replaced secret keeps signing deliveries beside the new one (sandbox clock; 0: it stops at once).' }),
  integerVariable({ key: 'webhookRetentionSeconds', name: 'WEBHOOK_RETENTION_SECONDS', default: 604_800, min: 0, max: 315_360_000, description: 'Delivered and finally failed webhook messages, with their attempts, management links expired and events dispatched longer than this are deleted (sandbox clock; checked at start and periodically; 0: kept forever).' }),
  integerVariable({ key: 'managementLinkTtlSeconds', name: 'MANAGEMENT_LINK_TTL_SECONDS', default: 3600, min: 1, max: 31_536_000, description: 'Lifetime of a webhook management link.' })
] as const
