// Request headers shared by many operations: the end user's context, which an integrator's
// backend passes on (`x-<name>-user-*`), and the preferred locale (`Accept-Language`).
import { Type, type TObject, type TOptional, type TSchema } from 'typebox'

const Trimmed = (description: string) => Type.String({ pattern: '^\\S.*\\S$|^\\S$', description })

/** The user-context header names for a service name, lower case as Node gives them. */
export const userContextHeaderNames = (serviceName: string) => ({
  ip: `x-${serviceName}-user-ip`,
  agent: `x-${serviceName}-user-agent`,
  origin: `x-${serviceName}-user-origin`,
  country: `x-${serviceName}-user-country`,
  subdivision: `x-${serviceName}-user-subdivision`,
  city: `x-${serviceName}-user-city`
})

/** The user-context headers, all optional, with the formats the service checks. */
export function UserContextHeaders (serviceName: string): TObject<Record<string, TOptional<TSchema>>> {
  const names = userContextHeaderNames(serviceName)
  return Type.Object({
    [names.ip]: Type.Optional(Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' })], { description: 'IP address (v4 or v6) of the end user.' })),
    [names.agent]: Type.Optional(Trimmed('User agent of the end user.')),
    [names.origin]: Type.Optional(Trimmed('Origin of the end user\'s request.')),
    [names.country]: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country of the end user.' })),
    [names.subdivision]: Type.Optional(Type.String({ pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$', description: 'ISO 3166-2 subdivision of the end user.' })),
    [names.city]: Type.Optional(Trimmed('City of the end user.'))
  })
}

export const AcceptLanguageHeader = Type.Object({
  'accept-language': Type.Optional(Type.String({ description: 'Preferred locale: `en`, `en-US`, `en-GB`, `pt`, `pt-PT`, `pt-BR` or `es` (q-values honoured); another is 409 `locale_invalid`.' }))
})
