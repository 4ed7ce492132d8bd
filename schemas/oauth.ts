import { Type } from 'typebox'

export const TokenRequest = Type.Object({
  grant_type: Type.String({ description: '`client_credentials` or `refresh_token`.' }),
  scope: Type.Optional(Type.String({ maxLength: 4096, description: 'Scopes delimited by single spaces; defaults to every scope the client is allowed.' })),
  refresh_token: Type.Optional(Type.String({ maxLength: 8192, description: 'Required for `grant_type=refresh_token`.' })),
  client_id: Type.Optional(Type.String({ description: 'Client id, when not sent with HTTP Basic.' })),
  client_secret: Type.Optional(Type.String({ description: 'Client secret, when not sent with HTTP Basic.' }))
}, {
  $id: 'TokenRequest',
  description: 'Form fields of a token request (`application/x-www-form-urlencoded`).',
  examples: [{ grant_type: 'client_credentials', scope: 'core.users:create core.users:read' }, { grant_type: 'refresh_token', refresh_token: '<a refresh token>' }]
})

export const TokenResponse = Type.Object({
  access_token: Type.String({ description: 'The issued access token (a JWT).' }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
  scope: Type.Optional(Type.String({ description: 'Granted scopes, delimited by single spaces.' })),
  refresh_token: Type.Optional(Type.String({ description: 'Issued to clients configured for refresh tokens.' }))
}, { $id: 'TokenResponse' })
