// Schema validation: bodies are checked strictly (no type coercion, no silently removed
// properties) so the sandbox refuses what the real service refuses; query strings, params and
// headers coerce, since on the wire they are text.
import AjvModule, { type ErrorObject } from 'ajv'
import formatsModule from 'ajv-formats'
import { iso31661, iso31662 } from 'iso-3166'
import type { FastifySchema, FastifyInstance } from 'fastify'
import type { RequestContext, Violation } from '../errors.js'

const COUNTRIES = new Set(iso31661.map(c => c.alpha2))
const SUBDIVISIONS = new Set(iso31662.map(s => s.code))

export const isCountryCode = (value: string): boolean => COUNTRIES.has(value)
export const isSubdivisionCode = (value: string): boolean => SUBDIVISIONS.has(value)

// ajv and ajv-formats are CommonJS with a default export; under NodeNext it sits one level down.
const Ajv = AjvModule.default
const addFormats = formatsModule.default
type AjvInstance = InstanceType<typeof Ajv>

function makeAjv (coerce: boolean): AjvInstance {
  const ajv = new Ajv({
    allErrors: !coerce,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    useDefaults: true,
    strict: false
  })
  addFormats(ajv)
  ajv.addFormat('country-code', { type: 'string', validate: isCountryCode })
  ajv.addFormat('subdivision-code', { type: 'string', validate: isSubdivisionCode })
  return ajv
}

const bodyAjv = makeAjv(false)
const partsAjv = makeAjv(true)

/** A validator with the body rules, for JSON checked outside a route (the SEED_FILE fixture). */
export const compileBodyValidator = (schema: object): ((data: unknown) => boolean) & { errors?: ErrorObject[] | null } =>
  bodyAjv.compile(schema)

export function installValidation (app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : partsAjv).compile(schema as FastifySchema & object))
}

const CONTEXTS: Record<string, RequestContext> = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' }
export const toContext = (part: string | undefined): RequestContext => CONTEXTS[part ?? 'body'] ?? 'body'

/** The API's violations from ajv's errors: `{ property, rule, ruleParams? }`, property dotted. */
export function toViolations (errors: ErrorObject[]): Violation[] {
  const seen = new Set<string>()
  const out: Violation[] = []
  for (const e of errors) {
    const path = e.instancePath.split('/').slice(1).map(s => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    let rule = e.keyword
    let ruleParams: Record<string, unknown> | undefined
    const p = e.params as Record<string, unknown>
    switch (e.keyword) {
      case 'required': path.push(String(p.missingProperty)); break
      case 'additionalProperties': path.push(String(p.additionalProperty)); rule = 'additionalProperties'; break
      case 'type': ruleParams = { type: p.type }; break
      case 'format': ruleParams = { format: p.format }; break
      case 'pattern': ruleParams = { pattern: p.pattern }; break
      case 'enum': ruleParams = { allowedValues: p.allowedValues }; break
      case 'const': ruleParams = { allowedValue: p.allowedValue }; break
      case 'maxLength': case 'minLength': case 'maxItems': case 'minItems':
      case 'maxProperties': case 'minProperties': case 'maximum': case 'minimum':
        ruleParams = { limit: p.limit }; break
      case 'if': case 'oneOf': case 'anyOf': case 'allOf': continue
      default: ruleParams = Object.keys(p).length > 0 ? p : undefined
    }
    const property = path.join('.')
    const key = `${property}\u0000${rule}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push(ruleParams === undefined ? { property, rule } : { property, rule, ruleParams })
  }
  if (out.length === 0 && errors.length > 0) out.push({ property: errors[0].instancePath.split('/').slice(1).join('.'), rule: errors[0].keyword })
  return out
}
