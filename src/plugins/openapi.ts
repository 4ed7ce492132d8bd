// The API description, generated from the route schemas (one source of truth) and served with
// interactive docs from local files only: no CDN, no validator badge, no fonts from afar.
import fp from 'fastify-plugin'
import http from 'node:http'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { allScopes } from '../auth/scopes.js'
import { ACT_ON_BEHALF_OF } from '../auth/guard.js'

interface DocumentOperation {
  'x-subjects'?: string[]
  parameters?: Array<{ in: string, name: string } & Record<string, unknown>>
}

/**
 * The `X-On-Behalf-Of` header parameter, on every operation that allows a user subject: the guard
 * reads it on every route, so no route schema declares it (the metadata operations' own
 * description is kept).
 */
function documentOnBehalfOf<D extends { paths?: object }> (openapiObject: D): D {
  const paths = (openapiObject.paths ?? {}) as Record<string, Record<string, DocumentOperation>>
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      if (typeof op !== 'object' || op === null || !(op['x-subjects'] ?? []).some(s => s.startsWith('user'))) continue
      const parameters = op.parameters ?? []
      if (parameters.some(p => p.in === 'header' && p.name.toLowerCase() === 'x-on-behalf-of')) continue
      const onlyUsers = !(op['x-subjects'] ?? []).includes('client')
      op.parameters = [...parameters, {
        in: 'header',
        name: 'x-on-behalf-of',
        required: false,
        description: `\`user <uuid>\`: a client token acts as that user of its organization (needs \`${ACT_ON_BEHALF_OF}\`).` +
          (onlyUsers ? ' Required unless the token itself is bound to a user: without it a client token is 403 `token_subject_not_allowed`.' : ''),
        schema: { type: 'string', pattern: '^user\\s[0-9a-fA-F-]{36}$' },
        example: 'user cd21b26d-35d2-408a-9201-b8fdbef7a604'
      }]
    }
  }
  return openapiObject
}

async function openapi (app: FastifyInstance): Promise<void> {
  const { config } = app
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Core API sandbox',
        version: '0.1.0',
        description: 'A stateful sandbox of the Core API. Routes under `/_sandbox` are the sandbox control API and do not exist in the real service. ' +
          `Every response carries \`x-${config.serviceName}-request-id\`. Errors use \`{ code, message, details? }\`, except the token endpoint, which uses OAuth 2.0 error bodies. ` +
          'Any route can also get an answer before it is routed, after which the connection is closed: 400 `request_invalid` for malformed HTTP ' +
          '(`details: { context: "headers", violations: [{ property: "", rule: "http" }] }`); ' +
          `408 \`request_timeout\` when the request line, headers and body take over ${config.requestTimeoutMs} ms to arrive; ` +
          `431 \`headers_too_large\` when the request line and headers are over ${http.maxHeaderSize} bytes, an overlong URL included (\`details.threshold: { unit: "bytes", limit }\`). ` +
          'At the token endpoint these are OAuth 2.0 `invalid_request` bodies with the same statuses.'
      },
      servers: config.publicUrl !== '' ? [{ url: config.publicUrl, description: 'Sandbox' }] : [],
      // Each area declares its own.
      tags: app.areas.tags(),
      components: {
        securitySchemes: {
          OAuth2: {
            type: 'oauth2',
            description: 'OAuth 2.0 client credentials. Send `X-On-Behalf-Of: user <uuid>` with `core.users:act-on-behalf-of` to act as a user.',
            flows: { clientCredentials: { tokenUrl: '/core/oauth2/token', refreshUrl: '/core/oauth2/token', scopes: allScopes(config.partnerArea) } }
          },
          SandboxAdmin: { type: 'http', scheme: 'bearer', description: 'The SANDBOX_ADMIN_TOKEN, when one is set.' }
        }
      }
    },
    transformObject: document => 'openapiObject' in document ? documentOnBehalfOf(document.openapiObject) : document.swaggerObject,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => typeof json.$id === 'string' ? json.$id : `def-${i}`
    }
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // Tags start collapsed: with every tag expanded, Swagger UI stops rendering the operation list
    // after the first few once the document has about a hundred paths (test/e2e/docs.test.ts).
    uiConfig: { validatorUrl: null, deepLinking: true, tryItOutEnabled: true, docExpansion: 'none' } as Record<string, unknown>,
    staticCSP: true,
    logLevel: 'warn'
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}

export default fp(openapi, { name: 'openapi' })
