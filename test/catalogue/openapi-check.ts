// Checks answers against the app's own OpenAPI document (app.swagger()): the response schema of
// the operation and status, as an integrator's generated client would.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import Ajv2020Module from 'ajv/dist/2020.js'
import formatsModule from 'ajv-formats'

const Ajv2020 = Ajv2020Module.default
const addFormats = formatsModule.default

type Check = (method: string, url: string, res: LightMyRequestResponse) => string[]

const pointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1')

/** A checker bound to the app's document: `check(method, url, answer)` lists the problems. */
export async function ownDocumentChecker (app: FastifyInstance): Promise<Check> {
  const doc = app.swagger() as { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>> }
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  for (const format of ['country-code', 'subdivision-code']) ajv.addFormat(format, true)
  ajv.addSchema({ ...doc, $id: 'own' })
  // Paths as templates to regular expressions: /core/assets/{asset} matches /core/assets/BTC.
  const templates = Object.keys(doc.paths).map(path => ({
    path,
    re: new RegExp('^' + path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
    static: !path.includes('{')
  })).sort((a, b) => Number(b.static) - Number(a.static))
  return (method, url, res) => {
    const path = url.split('?')[0]
    const template = templates.find(t => t.re.test(path))
    if (template === undefined) return [`${path} is not in the document`]
    const op = doc.paths[template.path][method.toLowerCase()]
    const response = op?.responses?.[String(res.statusCode)]
    if (response === undefined) return [`status ${res.statusCode} is not documented for ${method} ${template.path}`]
    if (response.content?.['application/json']?.schema === undefined) return res.body === '' ? [] : ['a body where none is documented']
    const ref = `own#/paths/${pointer(template.path)}/${method.toLowerCase()}/responses/${res.statusCode}/content/application~1json/schema`
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref })
    return validate(res.json()) ? [] : [ajv.errorsText(validate.errors)]
  }
}
