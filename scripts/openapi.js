// Prints the sandbox's OpenAPI document (as the environment configures it: SERVICE_NAME,
// PARTNER_AREA, PUBLIC_URL) to standard output, from the build, without listening or writing a
// database. `npm run openapi > openapi.json`.
import { buildApp } from '../dist/src/app.js'
import { loadConfig } from '../dist/src/config.js'

const config = loadConfig({ ...process.env, DATABASE_PATH: ':memory:', LOG_LEVEL: 'silent' }, [])
const app = await buildApp({ config })
process.stdout.write(JSON.stringify(app.swagger(), null, 2) + '\n')
await app.close()
