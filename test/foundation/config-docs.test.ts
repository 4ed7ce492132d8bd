import t from 'tap'
import { readFileSync } from 'node:fs'
import { renderConfigurationDoc, renderEnvExample } from '../../scripts/config-docs.js'
import { loadConfig, VARIABLES } from '../../src/config.js'
import { areas } from '../../src/areas.js'

const root = new URL('../../', import.meta.url)

t.test('.env.example and docs/configuration.md are what `npm run docs:config` writes from the code', async t => {
  t.equal(readFileSync(new URL('.env.example', root), 'utf8'), renderEnvExample(), '.env.example is up to date: run npm run docs:config')
  t.equal(readFileSync(new URL('docs/configuration.md', root), 'utf8'), await renderConfigurationDoc(), 'docs/configuration.md is up to date: run npm run docs:config')
})

t.test('the documents list every variable and every scope with the operations needing it', async t => {
  const env = renderEnvExample()
  const doc = await renderConfigurationDoc()
  for (const v of VARIABLES) {
    t.match(env, new RegExp(`^#? ?${v.name}=`, 'm'), `.env.example has ${v.name}`)
    t.match(doc, new RegExp('^\\| `' + v.name + '`', 'm'), `the table has ${v.name}`)
  }
  t.match(doc, /^\| `core\.kyc:read` \| view KYC processes \| `getKycOverview` \(GET \/core\/kyc\) \|$/m)
  t.match(doc, /^\| `partner\.kyc-sharing:identify-user` \|.*`identifyKycSharingUser`/m)
  t.match(doc, /^\| `core\.users:act-on-behalf-of` \|.*`getKycOverview`/m)
})

t.test('each area-specific variable is declared by its area, read into the config, and named in its errors', async t => {
  const declaredBy = new Map(areas.flatMap(a => (a.config ?? []).map(v => [v.name, a.name])))
  t.equal(declaredBy.get('WEBHOOK_RETRY_SCHEDULE'), 'webhooks')
  t.equal(declaredBy.get('KYC_REVIEW_DELAY_SECONDS'), 'kyc')
  t.equal(declaredBy.get('PARTNER_AREA'), 'kyc-sharing')
  t.equal(declaredBy.get('PORT'), undefined, 'PORT stays the core\'s')
  const source = readFileSync(new URL('src/config.ts', root), 'utf8')
  for (const name of declaredBy.keys()) t.notMatch(source, new RegExp(`\\b${name}\\b`), `src/config.ts does not name ${name}`)
  t.equal(loadConfig({ KYC_REVIEW_DELAY_SECONDS: '9' }).kycReviewDelaySeconds, 9)
  t.same(loadConfig({ UNSUPPORTED_COUNTRIES: '' }).unsupportedCountries, [], 'an empty list is a value')
  t.throws(() => loadConfig({ ACH_SETTLEMENT_SECONDS: 'soon' }), { name: 'ConfigError', message: /^ACH_SETTLEMENT_SECONDS must be a whole number from 0 to 31536000; got "soon"/ })
  t.throws(() => loadConfig({ PARTNER_AREA: 'Bad Name' }), { name: 'ConfigError', message: /^PARTNER_AREA must be lowercase/ })
  t.same(loadConfig({}, ['--seed', 'seed.json']).seedFile, 'seed.json', 'an area\'s flag is read')
})
