import t from 'tap'
import { ConfigError, loadConfig } from '../../src/config.js'

t.test('defaults', async t => {
  const c = loadConfig({})
  t.equal(c.port, 8080)
  t.equal(c.host, '127.0.0.1')
  t.equal(c.databasePath, './data/sandbox.db')
  t.equal(c.serviceName, 'service')
  t.equal(c.partnerArea, 'partner')
  t.equal(c.tokenTtlSeconds, 600)
  t.same(c.webhookRetrySchedule, [5, 30, 120, 600, 1800])
})

t.test('a bad PORT is refused with a message naming it', async t => {
  for (const port of ['abc', '-1', '70000', '80.5']) {
    t.throws(() => loadConfig({ PORT: port }), { name: 'ConfigError', message: new RegExp(`^PORT must be a whole number from 0 to 65535; got "${port.replace('.', '\\.')}"`) }, port)
  }
})

t.test('flags win over the environment', async t => {
  const c = loadConfig({ PORT: '1000' }, ['--port', '2000', '--database', ':memory:'])
  t.equal(c.port, 2000)
  t.equal(c.databasePath, ':memory:')
  t.throws(() => loadConfig({}, ['--nope', 'x']), ConfigError)
})

t.test('beyond loopback without an admin token the server refuses to start', async t => {
  t.throws(() => loadConfig({ HOST: '0.0.0.0' }), { message: /SANDBOX_ADMIN_TOKEN/ })
  t.equal(loadConfig({ HOST: '0.0.0.0', SANDBOX_ADMIN_TOKEN: 'a-long-enough-admin-token' }).host, '0.0.0.0')
  t.equal(loadConfig({ HOST: 'localhost' }).host, 'localhost')
})

t.test('other bad values', async t => {
  t.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), { message: /LOG_LEVEL must be one of/ })
  t.throws(() => loadConfig({ SERVICE_NAME: 'Has Spaces' }), { message: /SERVICE_NAME/ })
  t.throws(() => loadConfig({ PUBLIC_URL: 'ftp://x' }), { message: /PUBLIC_URL/ })
  t.throws(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1,,2' }), { message: /WEBHOOK_RETRY_SCHEDULE/ })
  t.throws(() => loadConfig({ TOKEN_TTL_SECONDS: '0' }), { message: /TOKEN_TTL_SECONDS/ })
  t.throws(() => loadConfig({ SANDBOX_ADMIN_TOKEN: 'short' }), { message: /at least 16/ })
  t.equal(loadConfig({ SANDBOX_CLIENT_SECRET: 'x' }).demoClient.secretFromEnv, true)
})

t.test('the hardening variables have defaults and refuse bad values, naming the variable', async t => {
  const c = loadConfig({})
  t.equal(c.maxConnections, 1024)
  t.equal(c.webhookSecretGraceSeconds, 86_400)
  t.equal(c.webhookRetentionSeconds, 604_800)
  t.equal(loadConfig({ WEBHOOK_SECRET_GRACE_SECONDS: '0', WEBHOOK_RETENTION_SECONDS: '0' }).webhookRetentionSeconds, 0, '0 turns retention off')
  for (const [name, value] of [['MAX_CONNECTIONS', '0'], ['MAX_CONNECTIONS', 'many'], ['WEBHOOK_SECRET_GRACE_SECONDS', '-5'], ['WEBHOOK_RETENTION_SECONDS', '1.5'], ['RATE_LIMIT_PER_MINUTE', 'x']]) {
    t.throws(() => loadConfig({ [name]: value }), { name: 'ConfigError', message: new RegExp(`^${name} must be a whole number`) }, `${name}=${value}`)
  }
})
