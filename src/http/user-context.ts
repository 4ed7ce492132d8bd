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

/** 409 `operation_not_allowed` naming each required header that is missing (`missing-user-ip-header`, ...). */
export function requireUserContext (context: UserContext, required: Array<'ip' | 'agent'>): void {
  const reasons = required.filter(k => context[k] === undefined).map(k => MISSING[k]!)
  if (reasons.length > 0) throw operationNotAllowed(reasons, 'Request not allowed due to missing user context')
}

/** The locales the sandbox answers in; a bare language stands for its first regional form. */
export const LOCALES = ['en', 'en-US', 'en-GB', 'pt', 'pt-PT', 'pt-BR', 'es'] as const
export type Locale = typeof LOCALES[number]
const KNOWN = new Map<string, Locale>(LOCALES.map(l => [l.toLowerCase(), l]))

export const localeInvalid = (): ApiError =>
  conflict('locale_invalid', 'The locale is invalid', { context: 'headers', property: 'accept-language' })

/**
 * The locale of an `Accept-Language` header: the supported one the client prefers most
 * (q-values honoured, `*` is English); `en` when there is no header. 409 `locale_invalid` when the
 * header names no supported locale.
 */
export function acceptLanguage (value: string | undefined): Locale {
  if (value === undefined || value.trim() === '') return 'en'
  const ranges = value.split(',').map((part, i) => {
    const [tag, ...params] = part.trim().split(';')
    const q = params.map(p => /^\s*q=([01](\.\d{0,3})?)\s*$/.exec(p)?.[1]).find(v => v !== undefined)
    return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), i }
  }).filter(r => r.tag !== '' && r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i)
  for (const { tag } of ranges) {
    if (tag === '*') return 'en'
    const found = KNOWN.get(tag)
    if (found !== undefined) return found
  }
  throw localeInvalid()
}
