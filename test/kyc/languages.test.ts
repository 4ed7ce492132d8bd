// Accept-Language on the KYC answers that carry text: the forms of `hint` (titles, labels,
// descriptions) in the negotiated language where the sandbox has it, English otherwise, and
// `Content-Language` saying which, on the overview and on the updates that declare the header.
import t from 'tap'
import { CDD_FORM, CRA_FORM, SCS_FORM, TAX_FORM } from '../../src/kyc/forms.js'
import { PT_PT, TEXT_KEYS } from '../../src/kyc/translations.js'
import { buildKyc, kycUser, PROFILE } from './support.js'

type Json = Record<string, unknown>

/** Every text of a form (or of a hint), as [path, text]. */
function texts (value: unknown, at = ''): Array<[string, string]> {
  if (Array.isArray(value)) return value.flatMap((v, i) => texts(v, `${at}[${i}]`))
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([k, v]): Array<[string, string]> =>
    TEXT_KEYS.has(k) && typeof v === 'string' ? [[`${at}.${k}`, v]] : texts(v, `${at}.${k}`))
}
/** The same value with every text taken out: what a translation must leave as it was. */
function withoutTexts (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTexts)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).filter(([k, v]) => !(TEXT_KEYS.has(k) && typeof v === 'string')).map(([k, v]) => [k, withoutTexts(v)]))
}

t.test('every text of every form has its European Portuguese', async t => {
  for (const form of [CDD_FORM, CRA_FORM, SCS_FORM, TAX_FORM]) {
    const all = [...texts(form.schema), ...texts(form.uiSchema)]
    t.ok(all.length > 3, `${form.id} has text`)
    for (const [path, text] of all) t.ok(PT_PT[text] !== undefined && PT_PT[text] !== text, `${form.id}${path}: "${text}" is translated`)
  }
})

const app = await buildKyc(t)
const u = await kycUser(t, app, { primaryCitizenship: 'GB', address: { country: 'GB' } })
t.equal((await u.patch('profile', PROFILE)).statusCode, 200)
const DETAILED = '/core/kyc?detailed=customerDueDiligence,cryptoRiskAssessment,selfCategorizationStatement,taxDetails'
const hints = (body: { processes: Record<string, { hint?: Json }> }): Json[] =>
  ['customerDueDiligence', 'cryptoRiskAssessment', 'selfCategorizationStatement', 'taxDetails'].map(k => body.processes[k].hint!)

t.test('the overview answers in the language the header negotiates, and says so', async t => {
  const english = await u.call('GET', DETAILED)
  t.equal(english.headers['content-language'], 'en', 'no header: English, said')
  const englishHints = hints(english.json())
  t.equal((englishHints[0].uiSchema as { elements: Array<{ label: string }> }).elements[0].label, 'What will you use the account for?')

  const cases: Array<[string, 'en' | 'pt-PT']> = [
    ['pt-PT', 'pt-PT'], ['pt', 'pt-PT'], ['PT-pt', 'pt-PT'], ['en-GB', 'en'], ['en-US', 'en'], ['en', 'en'], ['*', 'en'],
    // Supported locales the sandbox has no text in: English, unless the client accepts one it has.
    ['pt-BR', 'en'], ['es', 'en'], ['es, pt;q=0.5', 'pt-PT'], ['pt-BR, pt-PT;q=0.9', 'pt-PT'], ['fr, pt-PT;q=0.2', 'pt-PT'], ['pt;q=0, en', 'en']
  ]
  for (const [header, language] of cases) {
    const res = await u.call('GET', DETAILED, undefined, { 'accept-language': header })
    t.equal(res.statusCode, 200, header)
    t.equal(res.headers['content-language'], language, `${header}: Content-Language ${language}`)
    const served = hints(res.json())
    t.same(served.map(withoutTexts), englishHints.map(withoutTexts), `${header}: the forms are the same forms`)
    for (const [i, hint] of served.entries()) {
      const expected = texts(englishHints[i]).map(([path, text]) => [path, language === 'en' ? text : PT_PT[text]])
      t.same(texts(hint), expected, `${header}: every text of the ${i + 1}th hint in ${language}`)
    }
  }
  const portuguese = hints((await u.call('GET', DETAILED, undefined, { 'accept-language': 'pt-PT' })).json())
  t.equal((portuguese[0].uiSchema as { elements: Array<{ label: string }> }).elements[0].label, 'Para que vai usar a conta?')
  t.equal(((portuguese[3].schema as Json).properties as Record<string, Json>).taxResidency.title, 'Residência fiscal')

  const refused = await u.call('GET', DETAILED, undefined, { 'accept-language': 'fr-FR' })
  t.equal(refused.statusCode, 409)
  t.same(refused.json(), { code: 'locale_invalid', message: 'The locale is invalid', details: { context: 'headers', property: 'accept-language' } })
  t.notOk('content-language' in refused.headers, 'an error says no language')
})

t.test('the updates that take Accept-Language answer their hint in it; the others say nothing of it', async t => {
  const step = await u.patch('customer-due-diligence', { input: { answers: { purpose: { activities: ['investing'] } } } }, { 'accept-language': 'pt' })
  t.equal(step.statusCode, 200)
  t.equal(step.headers['content-language'], 'pt-PT')
  const hint = step.json().customerDueDiligence.hint
  t.equal(hint.uiSchema.elements[1].label, 'As suas finanças')
  t.equal(hint.schema.properties.finances.properties['source-of-funds'].oneOf[0].title, 'Salário')
  t.equal(hint.schema.properties.finances.properties['source-of-funds'].oneOf[0].const, 'salary', 'values stay as they are')

  const tax = await u.patch('tax-details', { input: { taxResidency: { countries: ['GB'] } } }, { 'accept-language': 'en-GB' })
  t.equal(tax.statusCode, 200)
  t.equal(tax.headers['content-language'], 'en')
  t.equal(tax.json().taxDetails.hint.schema.properties.taxResidency.title, 'Tax residency')
  const taxPt = await u.patch('tax-details', { input: { taxResidency: { countries: ['GB'] } } }, { 'accept-language': 'pt-PT' })
  t.equal(taxPt.json().taxDetails.hint.schema.properties.taxResidency.title, 'Residência fiscal')

  const failed = await u.patch('customer-due-diligence', { input: { answers: { occupation: { status: 'student' } } } }, { 'accept-language': 'pt-PT' })
  t.equal(failed.statusCode, 400, 'a step out of order')
  t.notOk('content-language' in failed.headers, 'an error says no language')

  const phone = await u.patch('phone', { input: { phone: '+447700900555', country: 'GB' } }, { 'accept-language': 'pt-PT' })
  t.equal(phone.statusCode, 200)
  t.notOk('content-language' in phone.headers, 'an update without text or Accept-Language says nothing of a language')
})
