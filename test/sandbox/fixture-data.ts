// A fixture shared by tests: an organization with users, clients, entities and metadata, plus a user of the demo organization.
export const ORG = '11111111-1111-4111-8111-111111111111'
export const ALICE = '22222222-2222-4222-8222-222222222222'
export const BOB = '33333333-3333-4333-8333-333333333333'
export const ACCOUNT = '44444444-4444-4444-8444-444444444444'

export const goodFixture = {
  organizations: [{ id: ORG, name: 'Acme' }],
  users: [
    { id: ALICE, organizationId: ORG, email: 'alice@example.com', primaryCitizenship: 'PT', address: { country: 'PT', subdivision: 'PT-11' } },
    { id: BOB, email: 'bob@example.com' }
  ],
  clients: [
    { clientId: 'acme-ci', clientSecret: 'acme-ci-secret', organizationId: ORG, scopes: ['core.users:read', 'core.users.metadata:read', 'core.users:act-on-behalf-of'], refreshTokens: true },
    { clientId: 'alice-app', clientSecret: 'alice-app-secret', organizationId: ORG, scopes: ['core.accounts.metadata:read'], userId: ALICE }
  ],
  entities: [{ id: ACCOUNT, type: 'accounts', userId: ALICE }, { type: 'files', userId: BOB }],
  metadata: [
    { entity: 'users', entityId: ALICE, metadata: { tier: 'gold' } },
    { entity: 'accounts', entityId: ACCOUNT, organizationId: ORG, metadata: { label: 'Main' } }
  ]
}
