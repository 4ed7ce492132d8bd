// The sandbox's own JSON Forms for customer due diligence, crypto risk assessment, the
// self-categorization statement and tax details: each top-level property of a form is one step.
// What the answers mean for the outcome (a score, approved or rejected) is written next to the form,
// so a tester can pick answers that lead where the test needs.
import AjvModule, { type ErrorObject } from 'ajv'
import type { Violation } from '../errors.js'

const Ajv = AjvModule.default

type Json = Record<string, unknown>

export interface Form {
  /** Stable: a client may send it back as `input.formId`. */
  id: string
  /** Step names, in order. */
  steps: string[]
  schema: Json
  uiSchema: Json
}

const choice = (title: string, options: Array<[string, string]>): Json =>
  ({ type: 'string', title, oneOf: options.map(([value, label]) => ({ const: value, title: label })) })
const many = (title: string, options: Array<[string, string]>): Json =>
  ({ type: 'array', title, uniqueItems: true, minItems: 1, items: { type: 'string', enum: options.map(([v]) => v) } })
const step = (title: string, properties: Json, required = Object.keys(properties)): Json =>
  ({ type: 'object', title, additionalProperties: false, properties, required })

function form (id: string, steps: Record<string, Json>): Form {
  const names = Object.keys(steps)
  return {
    id,
    steps: names,
    schema: { type: 'object', properties: steps },
    uiSchema: {
      type: 'Categorization',
      elements: names.map(name => ({
        type: 'Category',
        label: (steps[name] as { title: string }).title,
        elements: Object.keys((steps[name] as { properties: Json }).properties).map(p => ({ type: 'Control', scope: `#/properties/${name}/properties/${p}` }))
      }))
    }
  }
}

/** Customer due diligence: `source-of-funds` `other` or income `over-250000` scores high (enhanced due diligence is then required), `business` medium. */
export const CDD_FORM = form('5b0c1f8e-2d1a-4c59-9a57-0c3f4e6a1d01', {
  purpose: step('What will you use the account for?', {
    activities: many('Activities', [['investing', 'Investing'], ['payments', 'Payments'], ['transfers', 'Sending and receiving'], ['trading', 'Active trading']])
  }),
  finances: step('Your finances', {
    'source-of-funds': choice('Where does your money come from?', [['salary', 'Salary'], ['savings', 'Savings'], ['business', 'Business income'], ['inheritance', 'Inheritance'], ['other', 'Other']]),
    'annual-income': choice('Yearly income', [['under-25000', 'Under 25,000'], ['25000-100000', '25,000 to 100,000'], ['100000-250000', '100,000 to 250,000'], ['over-250000', 'Over 250,000']])
  }),
  occupation: step('Your occupation', {
    status: choice('Employment', [['employed', 'Employed'], ['self-employed', 'Self-employed'], ['retired', 'Retired'], ['student', 'Student'], ['unemployed', 'Not working']])
  })
})

/** Crypto risk assessment: approved when every answer is the first option; any other answer is a rejected attempt. */
export const CRA_FORM = form('8e7d2a40-6b1f-4f0e-b7c3-5d9a1e2f3b02', {
  decisions: step('Decisions', {
    'who-decides': choice('Who decides what you buy and sell?', [['me', 'I do'], ['platform', 'The platform'], ['adviser', 'An adviser']])
  }),
  losses: step('Losses', {
    'possible-loss': choice('How much of what you put in could you lose?', [['all', 'All of it'], ['some', 'Some of it'], ['none', 'None of it']])
  }),
  volatility: step('Prices', {
    'price-moves': choice('How do cryptoasset prices move?', [['sharply', 'Up and down sharply'], ['steadily', 'Steadily up'], ['never', 'They do not move']])
  }),
  protection: step('Protection', {
    compensation: choice('Are your cryptoassets covered by a compensation scheme?', [['no', 'No'], ['yes', 'Yes']])
  })
})

/** Self-categorization statement: approved for `restricted` (with `confirmed: true`) or `high-net-worth` investors, rejected for `none`. */
export const SCS_FORM = form('c41f9b7e-0a3d-4e28-8f61-2b7e9d4c5a03', {
  category: step('Which investor are you?', {
    type: choice('Category', [['restricted', 'Restricted investor'], ['high-net-worth', 'High-net-worth investor'], ['none', 'None of these']])
  }),
  declaration: step('Declaration', {
    confirmed: { type: 'boolean', title: 'I confirm this statement is true' }
  })
})

/**
 * Tax details: its parts at once or one at a time. The tax residency may give the residence's
 * address (its country open to residents, its subdivision the country's, its postal code the
 * country's form). A document's `number` is 4 to 20 letters, digits or dashes; a document without
 * one may say why (`reason`).
 */
const text = (title: string, maxLength: number): Json => ({ type: 'string', title, pattern: '^\\S.*\\S$|^\\S$', maxLength })

export const TAX_FORM = form('f2a6c8d0-3e5b-4a71-9c2d-7b8e1f0a4d04', {
  taxResidency: step('Tax residency', {
    countries: { type: 'array', title: 'Countries you are a tax resident of', uniqueItems: true, minItems: 1, maxItems: 10, items: { type: 'string', pattern: '^[A-Z]{2}$' } },
    address: {
      type: 'object',
      title: 'Address of your tax residence',
      additionalProperties: false,
      required: ['country'],
      properties: {
        country: { type: 'string', title: 'Country', pattern: '^[A-Z]{2}$' },
        subdivision: { type: 'string', title: 'State or region', pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$' },
        city: text('City', 100),
        line1: text('Address line 1', 150),
        line2: text('Address line 2', 100),
        postalCode: text('Postal code', 20)
      }
    }
  }, ['countries']),
  taxIdentification: step('Tax identification', {
    documents: {
      type: 'array',
      title: 'Tax identification numbers',
      minItems: 1,
      maxItems: 10,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'country'],
        properties: {
          type: { type: 'string', enum: ['tin', 'ssn', 'nino'] },
          country: { type: 'string', pattern: '^[A-Z]{2}$' },
          number: { type: 'string', minLength: 1, maxLength: 50 },
          reason: { type: 'string', minLength: 1, maxLength: 50, description: '`not-issued` or `not-required` when there is no number.' }
        }
      }
    },
    certify: { type: 'boolean', title: 'I certify these details are correct' },
    signature: { type: 'string', minLength: 1, maxLength: 200, title: 'Your full name, as signature' }
  }, ['documents'])
})

export const TAX_DOCUMENT_REASONS = ['not-issued', 'not-required']

const ajv = new Ajv({ allErrors: true, strict: false })
const compiled = new Map<Json, ReturnType<typeof ajv.compile>>()

const violation = (prefix: string, e: ErrorObject): Violation => {
  const path = e.instancePath.split('/').slice(1).map(p => /^\d+$/.test(p) ? `[${p}]` : `.${p}`).join('')
  const missing = e.keyword === 'required' ? `.${(e.params as { missingProperty: string }).missingProperty}` : ''
  const extra = e.keyword === 'additionalProperties' ? `.${(e.params as { additionalProperty: string }).additionalProperty}` : ''
  return { property: `${prefix}${path}${missing}${extra}`, rule: e.keyword }
}

/** The violations of `value` against a step's (or a whole form's) schema; none when it is valid. */
export function check (schema: Json, value: unknown, prefix: string): Violation[] {
  let validate = compiled.get(schema)
  if (validate === undefined) compiled.set(schema, validate = ajv.compile(schema))
  return validate(value) ? [] : (validate.errors ?? []).map(e => violation(prefix, e))
}

export const stepSchema = (f: Form, name: string): Json => (f.schema.properties as Record<string, Json>)[name]
