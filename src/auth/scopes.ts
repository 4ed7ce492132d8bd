// The scopes of the Core API (spec, "Authentication") and the rules for matching them.

export const CORE_SCOPES: Record<string, string> = {
  'core.users:act-on-behalf-of': 'act on behalf of a user',
  'core.users:create': 'create users',
  'core.users:read': 'view users',
  'core.users:delete': 'delete users',
  'core.users.metadata:read': 'view user metadata',
  'core.users.metadata:write': 'modify user metadata',
  'core.kyc:read': 'view KYC processes',
  'core.kyc.profile:update': 'update profile KYC process',
  'core.kyc.address:update': 'update address KYC process',
  'core.kyc.email:update': 'update email KYC process',
  'core.kyc.phone:update': 'update phone KYC process',
  'core.kyc.identity:update': 'update identity KYC process',
  'core.kyc.proof-of-address:update': 'update proof-of-address KYC process',
  'core.kyc.customer-due-diligence:update': 'update customer due diligence KYC process',
  'core.kyc.enhanced-due-diligence:update': 'update enhanced due diligence KYC process',
  'core.kyc.crypto-risk-assessment:update': 'update crypto risk assessment KYC process',
  'core.kyc.self-categorization-statement:update': 'update self-categorization statement KYC process',
  'core.kyc.tax-details:update': 'update tax details KYC process',
  'core.capabilities:read': 'view user capabilities',
  'core.terms-of-service:read': 'view terms of service',
  'core.terms-of-service:accept': 'accept terms of service',
  'core.files:create': 'create files',
  'core.files:read': 'view files',
  'core.files.metadata:read': 'view files metadata',
  'core.files.metadata:write': 'modify files metadata',
  'core.accounts:create': 'create accounts',
  'core.accounts:read': 'view accounts',
  'core.accounts:update': 'update accounts',
  'core.accounts:archive': 'archive accounts',
  'core.accounts:deposit-method': 'deposit method needed for depositing into accounts',
  'core.accounts:use-test-helpers': 'test helpers of accounts',
  'core.accounts.metadata:read': 'view accounts metadata',
  'core.accounts.metadata:write': 'modify accounts metadata',
  'core.assets:use-test-helpers': 'test helpers of assets',
  'core.external-accounts:create': 'create external accounts',
  'core.external-accounts:read': 'view external accounts',
  'core.external-accounts:update': 'update external accounts',
  'core.external-accounts:delete': 'delete external accounts',
  'core.external-accounts.metadata:read': 'view external accounts metadata',
  'core.external-accounts.metadata:write': 'modify external accounts metadata',
  'core.transactions:create': 'commit quotes',
  'core.transactions:read': 'view transactions',
  'core.transactions.metadata:read': 'view transactions metadata',
  'core.transactions.metadata:write': 'modify transactions metadata',
  'core.transactions.requests-for-information:read': 'view transactions requests for information',
  'core.transactions.requests-for-information:update': 'update transactions requests for information',
  'core.portfolio:read': 'view portfolio overview, performance and historical balance',
  'core.statements:read': 'read statements',
  'core.webhooks:management-link': 'create webhook management links'
}

/** The sandbox's own scope (not the real service's): an organization's token with it drives that organization's sandbox (`/_sandbox`). */
export const SANDBOX_SCOPES: Record<string, string> = {
  'sandbox:control': 'drive the organization\'s own sandbox through the control API'
}

/** Every scope the service offers, the partner area's and the sandbox's included. */
export function allScopes (partnerArea: string): Record<string, string> {
  return {
    ...CORE_SCOPES,
    ...SANDBOX_SCOPES,
    [`${partnerArea}.kyc-sharing:identify-user`]: 'identify a user for KYC sharing',
    [`${partnerArea}.kyc-sharing:create-session`]: 'create a KYC sharing session'
  }
}

// RFC 6749 section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), joined by single spaces.
const SCOPE_STRING = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/

/** Splits a scope string; undefined when it is malformed. Duplicates collapse. */
export function parseScopeString (value: string): string[] | undefined {
  if (!SCOPE_STRING.test(value)) return undefined
  return [...new Set(value.split(' '))]
}

/** Whether `held` grants `wanted`: equal, or `held` ends in `*` and `wanted` starts with what precedes it. */
export function scopeCovers (held: string, wanted: string): boolean {
  if (held === wanted) return true
  return held.endsWith('*') && wanted.startsWith(held.slice(0, -1))
}

export function anyCovers (held: readonly string[], wanted: string): boolean {
  for (const h of held) if (scopeCovers(h, wanted)) return true
  return false
}

// The guard asks of the same few held lists (one per token it remembers) again and again.
const answers = new WeakMap<readonly string[], Map<string, boolean>>()

/** anyCovers, remembered per held list: for lists that are kept and never changed. */
export function keptListCovers (held: readonly string[], wanted: string): boolean {
  let known = answers.get(held)
  if (known === undefined) answers.set(held, known = new Map())
  let answer = known.get(wanted)
  if (answer === undefined) known.set(wanted, answer = anyCovers(held, wanted))
  return answer
}

/** Whether a sandbox client may be given `scope`: one of the API's, or a `*` prefix covering one. */
export function scopeViolation (partnerArea: string, scope: string): { rule: string, ruleParams: Record<string, unknown> } | undefined {
  const known = Object.keys(allScopes(partnerArea))
  if (scope.endsWith('*') ? known.some(k => scopeCovers(scope, k)) : known.includes(scope)) return undefined
  return { rule: 'scope', ruleParams: { scope } }
}
