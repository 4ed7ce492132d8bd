// What the core decorates the Fastify instance and requests with, typed once for every area.
import type { Config } from './config.js'
import type { Clock } from './clock.js'
import type { Storage } from './storage/index.js'
import type { TokenService } from './auth/tokens.js'
import type { ClientRegistry } from './auth/clients.js'
import type { EventBus } from './events.js'
import type { AuthContext, AuthRequirement, ControlCaller } from './auth/guard.js'
import type { AreaRegistry } from './kit/area.js'

/** A registered route as introspection (tests, the OpenAPI check) sees it. */
export interface RegisteredRoute {
  method: string
  url: string
  config?: { auth?: AuthRequirement, control?: 'organization' | 'global' }
  schema?: { hide?: boolean }
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    clock: Clock
    storage: Storage
    tokens: TokenService
    clients: ClientRegistry
    events: EventBus
    /** What every area declared: tags, migrations, fixture keys, reset hooks, metadata entities. */
    areas: AreaRegistry
    /** Every route as it was registered. */
    registeredRoutes: RegisteredRoute[]
  }
  interface FastifyRequest {
    /** Set by the Bearer guard on protected routes. */
    auth: AuthContext | null
    /** Set by the control guard on sandbox control routes: the admin, or the organization whose token called. */
    control: ControlCaller | null
    /** The organization whose clock the request runs on, once a guard has entered it (`onOrganizationClock`). */
    clockScope: string | null
  }
  interface FastifyContextConfig {
    /** Declares a Bearer-protected route: the scopes it needs and the subjects it allows. */
    auth?: AuthRequirement
    /** The OAuth token endpoint: errors are rendered as OAuth 2.0 error bodies. */
    oauth?: boolean
    /** A sandbox control route: per organization (admin or an organization's control token), or global (admin only). */
    control?: 'organization' | 'global'
  }
}
