// Schema validation: bodies are checked strictly (no type coercion, no silently removed
// properties) so the sandbox refuses what the real service refuses; query strings, params and
// headers coerce, since on the wire they are text.
import AjvModule, { type ErrorObject } from 'ajv'
import formatsModule from 'ajv-formats'
import { iso31661, iso31662 } from 'iso-3166'
import type { FastifySchema, FastifySchemaCompiler, FastifyInstance, FastifyServerOptions } from 'fastify'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
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

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null }

/**
 * A validator compiled on its first call. Start-up compiles nothing it may not need: compiling
 * every route's schemas up front was most of the time before the first healthy answer, and a
 * route's first request pays a few milliseconds instead.
 */
function lazyValidator (compile: () => Validator): Validator {
  let compiled: Validator | undefined
  const validate: Validator = (data) => {
    compiled ??= compile()
    const valid = compiled(data)
    validate.errors = compiled.errors
    return valid
  }
  validate.errors = null
  return validate
}

/** A validator with the body rules, for JSON checked outside a route (the SEED_FILE fixture). */
export const compileBodyValidator = (schema: object): Validator => lazyValidator(() => bodyAjv.compile(schema))

// Keywords that document a schema without changing what it accepts or how it serializes.
const ANNOTATIONS = new Set(['description', 'examples', 'title', '$comment'])
// Keywords whose value is data, kept as it is.
const DATA = new Set(['const', 'enum', 'default'])
// Keywords whose value maps names (of properties, definitions) to schemas.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])

function withoutAnnotations (schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutAnnotations)
  if (schema === null || typeof schema !== 'object') return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue
    if (DATA.has(key)) out[key] = value
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, withoutAnnotations(s)]))
    } else out[key] = withoutAnnotations(value)
  }
  return out
}

/**
 * What a schema means, as a cache key: routes repeat the same schemas (each metadata entity has
 * four routes, most answers share the error body), and each meaning is compiled once.
 */
export const schemaKey = (schema: unknown): string => JSON.stringify(withoutAnnotations(schema))

/**
 * One function per distinct key, made by `make` the first time the key is seen; each route's
 * function finds its own (computing the key) on the route's first call, not at its registration:
 * keying every route's schemas at start took 10 to 20 ms of it (1 577 schema objects, each walked
 * and written out as JSON), for routes most starts never call.
 */
function sharedOnFirstCall<A, F extends (...args: never[]) => unknown> (make: (arg: A) => F, key: (arg: A) => string): (arg: A) => () => F {
  const made = new Map<string, F>()
  return (arg) => () => {
    const k = key(arg)
    let fn = made.get(k)
    if (fn === undefined) {
      fn = make(arg)
      made.set(k, fn)
    }
    return fn
  }
}

const bodyValidators = sharedOnFirstCall((schema: object) => bodyAjv.compile(schema) as Validator, schemaKey)
const partValidators = sharedOnFirstCall((schema: object) => partsAjv.compile(schema) as Validator, schemaKey)
const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  lazyValidator((httpPart === 'body' ? bodyValidators : partValidators)(schema as FastifySchema & object))

type ValidatorFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']

/**
 * The app's validator compiler, as the factory Fastify calls for the root and again for each
 * encapsulated context that adds schemas of its own: without it, such a context (an area with
 * `$id` schemas) was given Fastify's default compiler, which coerces bodies.
 */
// Fastify types the factory after its own ajv compiler; ours takes the same route schema.
export const requestValidators = (() => validatorCompiler) as unknown as ValidatorFactory

export function installValidation (app: FastifyInstance): void {
  app.setValidatorCompiler(validatorCompiler)
}

const defaultSerializers = SerializerSelector()
type SerializerFactory = typeof defaultSerializers
type RouteSchema = Parameters<ReturnType<SerializerFactory>>[0]
type Serializer = (data: unknown) => string

/**
 * Fastify's response serializers (fast-json-stringify), made once per distinct schema and
 * compiled on first use, for the reasons of lazyValidator.
 */
export const responseSerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = defaultSerializers(externalSchemas, options) as (route: RouteSchema) => Serializer
  const shared = sharedOnFirstCall(compile, (route) => schemaKey(route.schema))
  return (route: RouteSchema): Serializer => {
    const find = shared(route)
    let compiled: Serializer | undefined
    return (data) => {
      compiled ??= find()
      return compiled(data)
    }
  }
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
