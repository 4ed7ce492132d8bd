// The text of the sandbox's forms in the languages it has besides English: each form is written in
// English (forms.ts) and served in the language `Accept-Language` negotiates (`contentLanguage`),
// its titles, labels and descriptions looked up here. A text without a translation stays English;
// a test holds every form's text to having one.
import type { ContentLanguage } from '../http/user-context.js'

type Json = Record<string, unknown>

/** European Portuguese, by the English text. */
export const PT_PT: Readonly<Record<string, string>> = {
  // Customer due diligence
  'What will you use the account for?': 'Para que vai usar a conta?',
  Activities: 'Atividades',
  'Your finances': 'As suas finanças',
  'Where does your money come from?': 'De onde vem o seu dinheiro?',
  Salary: 'Salário',
  Savings: 'Poupanças',
  'Business income': 'Rendimentos empresariais',
  Inheritance: 'Herança',
  Other: 'Outra',
  'Yearly income': 'Rendimento anual',
  'Under 25,000': 'Menos de 25 000',
  '25,000 to 100,000': 'De 25 000 a 100 000',
  '100,000 to 250,000': 'De 100 000 a 250 000',
  'Over 250,000': 'Mais de 250 000',
  'Your occupation': 'A sua ocupação',
  Employment: 'Situação profissional',
  Employed: 'Trabalhador por conta de outrem',
  'Self-employed': 'Trabalhador por conta própria',
  Retired: 'Reformado',
  Student: 'Estudante',
  'Not working': 'Sem atividade profissional',
  // Crypto risk assessment
  Decisions: 'Decisões',
  'Who decides what you buy and sell?': 'Quem decide o que compra e vende?',
  'I do': 'Eu',
  'The platform': 'A plataforma',
  'An adviser': 'Um consultor',
  Losses: 'Perdas',
  'How much of what you put in could you lose?': 'Quanto do que investe poderá perder?',
  'All of it': 'Tudo',
  'Some of it': 'Uma parte',
  'None of it': 'Nada',
  Prices: 'Preços',
  'How do cryptoasset prices move?': 'Como variam os preços dos criptoativos?',
  'Up and down sharply': 'Sobem e descem bruscamente',
  'Steadily up': 'Sobem de forma constante',
  'They do not move': 'Não variam',
  Protection: 'Proteção',
  'Are your cryptoassets covered by a compensation scheme?': 'Os seus criptoativos estão cobertos por um sistema de indemnização?',
  No: 'Não',
  Yes: 'Sim',
  // Self-categorization statement
  'Which investor are you?': 'Que tipo de investidor é?',
  Category: 'Categoria',
  'Restricted investor': 'Investidor restrito',
  'High-net-worth investor': 'Investidor com património elevado',
  'None of these': 'Nenhum destes',
  Declaration: 'Declaração',
  'I confirm this statement is true': 'Confirmo que esta declaração é verdadeira',
  // Tax details
  'Tax residency': 'Residência fiscal',
  'Countries you are a tax resident of': 'Países onde é residente fiscal',
  'Address of your tax residence': 'Morada da sua residência fiscal',
  Country: 'País',
  'State or region': 'Estado ou região',
  City: 'Localidade',
  'Address line 1': 'Morada (linha 1)',
  'Address line 2': 'Morada (linha 2)',
  'Postal code': 'Código postal',
  'Tax identification': 'Identificação fiscal',
  'Tax identification numbers': 'Números de identificação fiscal',
  '`not-issued` or `not-required` when there is no number.': '`not-issued` ou `not-required` quando não há número.',
  'I certify these details are correct': 'Certifico que estes dados estão corretos',
  'Your full name, as signature': 'O seu nome completo, como assinatura'
}

const DICTIONARIES: Partial<Record<ContentLanguage, Readonly<Record<string, string>>>> = { 'pt-PT': PT_PT }

/** The members of a form that people read; everything else (names, values, rules) stays as it is. */
export const TEXT_KEYS = new Set(['title', 'label', 'description'])

/** A copy of a form's schema or UI schema with its text in `language`; English is the form as written. */
export function localize<T> (value: T, language: ContentLanguage): T {
  const dictionary = DICTIONARIES[language]
  if (dictionary === undefined) return value
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk)
    if (v === null || typeof v !== 'object') return v
    const out: Json = {}
    for (const [k, x] of Object.entries(v)) out[k] = TEXT_KEYS.has(k) && typeof x === 'string' ? dictionary[x] ?? x : walk(x)
    return out
  }
  return walk(value) as T
}
