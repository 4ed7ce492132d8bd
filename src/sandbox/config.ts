// The variables the sandbox area reads (`app.config.<key>`).
import { integerVariable, optionalVariable } from '../kit/config.js'

export const config = [
  optionalVariable({ key: 'seedFile', name: 'SEED_FILE', flag: '--seed', description: 'Fixture file (JSON) loaded at start, as `POST /_sandbox/fixtures` would.' }),
  integerVariable({ key: 'requestLogSize', name: 'REQUEST_LOG_SIZE', default: 1000, min: 0, max: 1_000_000, description: 'How many requests the request log keeps (oldest dropped). `0` turns it off: nothing is recorded, and it reads empty, with `capacity: 0`.' })
] as const
