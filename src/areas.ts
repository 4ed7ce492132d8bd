// The API, top to bottom: each area is one folder declaring its routes and what it brings (tags,
// migrations, fixture keys, reset, metadata entities). Adding an area of the Core API means adding
// its folder and one line here.
import type { Area } from './kit/area.js'
import type { ConfigValues } from './kit/config.js'
import auth from './auth/index.js'
import users from './users/index.js'
import metadata from './metadata/index.js'
import kyc from './kyc/index.js'
import kycSharing from './kyc-sharing/index.js'
import catalogue from './catalogue/index.js'
import files from './files/index.js'
import capabilities from './capabilities/index.js'
import accounts from './accounts/index.js'
import externalAccounts from './external-accounts/index.js'
import quotes from './quotes/index.js'
import transactions from './transactions/index.js'
import portfolio from './portfolio/index.js'
import webhooks from './webhooks/index.js'
import sandbox from './sandbox/index.js'
import scenarios from './scenarios/index.js'

const declared = [
  auth,
  catalogue,
  users,
  files,
  capabilities,
  accounts,
  externalAccounts,
  quotes,
  transactions,
  portfolio,
  metadata,
  kyc,
  kycSharing,
  webhooks,
  sandbox,
  scenarios
] as const

export const areas: readonly Area[] = declared

/** The variables every area declared, typed by their declarations: the areas' part of `app.config`. */
export type AreasConfig = ConfigValues<NonNullable<(typeof declared)[number]['config']>>
