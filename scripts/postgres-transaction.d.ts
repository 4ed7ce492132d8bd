// Types of postgres-transaction.js, for the test that imports it.
export function patchPostgresTransaction (source: string): string
export const POSTGRES_TRANSACTION: RegExp
export const POSTGRES_TRANSACTION_FIXED: string
export const POSTGRES_TRANSACTION_REPLACEMENTS: Array<[string, string]>
