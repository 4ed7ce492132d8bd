// The end user's context and locale, in one place: the headers an operation declares
// (schemas/headers.ts), what a route reads from them, the rule that makes one required, and the
// Accept-Language check.
import type { FastifyRequest } from 'fastify'
import { ApiError, conflict } from '../errors.js'
import { userContextHeaderNames } from '../../schemas/headers.js'

export interface UserContext { ip?: string, agent?: string, origin?: string, country?: string, subdivision?: string, city?: string }

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name]
  return typeof value === 'string' ? value : undefined
}

/** The user-context headers of a request (already checked by the route's header schema). */
export function userContext (request: FastifyRequest, serviceName: string): UserContext {
  const names = userContextHeaderNames(serviceName)
  const out: UserContext = {}
  for (const key of Object.keys(names) as Array<keyof UserContext>) {
    const value = header(request, names[key])
    if (value !== undefined) out[key] = value
  }
  return out
}

const MISSING: Partial<Record<keyof UserContext, string>> = { ip: 'missing-user-ip-header', agent: 'missing-user-agent-header' }

export const operationNotAllowed = (reasons: string[], message = 'The operation is not allowed'): ApiError =>
  conflict('operation_not_allowed', message, { reasons })

/** A header's name as people write it: `x-service-user-ip` is `X-Service-User-Ip`. */
export const headerDisplayName = (name: string): string =>
  name.split('-').map(part => part.charAt(0).toUpperCase() + part.slice(1)).join('-')

/** A list in words: `a`, `a and b`, `a, b and c`. */
const inWords = (items: string[]): string => items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`

/**
 * 409 `operation_not_allowed` naming each required header that is missing (`missing-user-ip-header`,
 * ...). The message is the reference's, followed by the headers to send under this SERVICE_NAME
 * (`Request not allowed due to missing user context: send the X-Service-User-Ip header`).
 */
export function requireUserContext<K extends 'ip' | 'agent'> (context: UserContext, required: K[], serviceName: string): asserts context is UserContext & Record<K, string> {
  const missing = required.filter(k => context[k] === undefined)
  if (missing.length === 0) return
  const names = userContextHeaderNames(serviceName)
  const headers = missing.map(k => headerDisplayName(names[k]))
  throw operationNotAllowed(missing.map(k => MISSING[k]!),
    `Request not allowed due to missing user context: send the ${inWords(headers)} header${headers.length > 1 ? 's' : ''}`)
}

/** The locales the sandbox answers in; a bare language stands for its first regional form. */
export const LOCALES = ['en', 'en-US', 'en-GB', 'pt', 'pt-PT', 'pt-BR', 'es'] as const
export type Locale = typeof LOCALES[number]
const KNOWN = new Map<string, Locale>(LOCALES.map(l => [l.toLowerCase(), l]))

export const localeInvalid = (): ApiError =>
  conflict('locale_invalid', 'The locale is invalid', { context: 'headers', property: 'accept-language' })

/** The header's language ranges the client accepts (q above 0), most preferred first, lower case. */
function ranges (value: string): string[] {
  return value.split(',').map((part, i) => {
    const [tag, ...params] = part.trim().split(';')
    const q = params.map(p => /^\s*q=([01](\.\d{0,3})?)\s*$/.exec(p)?.[1]).find(v => v !== undefined)
    return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), i }
  }).filter(r => r.tag !== '' && r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i).map(r => r.tag)
}

/**
 * The locale of an `Accept-Language` header: the supported one the client prefers most
 * (q-values honoured, `*` is English); `en` when there is no header. 409 `locale_invalid` when the
 * header names no supported locale.
 */
export function acceptLanguage (value: string | undefined): Locale {
  if (value === undefined || value.trim() === '') return 'en'
  for (const tag of ranges(value)) {
    if (tag === '*') return 'en'
    const found = KNOWN.get(tag)
    if (found !== undefined) return found
  }
  throw localeInvalid()
}

/** The languages the sandbox has text in: English, and European Portuguese. */
export const CONTENT_LANGUAGES = ['en', 'pt-PT'] as const
export type ContentLanguage = typeof CONTENT_LANGUAGES[number]

/** Which language the sandbox has for one language range, if any. */
function contentFor (range: string): ContentLanguage | undefined {
  if (range === '*' || range === 'en' || range.startsWith('en-')) return 'en'
  // `pt` is any Portuguese: the sandbox's is European. `pt-BR` asks for another the sandbox has not.
  if (range === 'pt' || range === 'pt-pt') return 'pt-PT'
  return undefined
}

/**
 * The language an answer's text is written in for an `Accept-Language` header (`Content-Language`):
 * the client's most preferred range the sandbox has text in (`en`, `en-GB` and `en-US` read
 * English; `pt` and `pt-PT` European Portuguese), else English. A supported locale the sandbox
 * has no text in (`pt-BR`, `es`) is answered in English.
 */
export function contentLanguage (value: string | undefined): ContentLanguage {
  if (value === undefined) return 'en'
  for (const range of ranges(value)) {
    const found = contentFor(range)
    if (found !== undefined) return found
  }
  return 'en'
}
