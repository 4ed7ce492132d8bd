// Types of postgres-connection.js, for the test that imports it.
export function patchPostgresConnection (source: string): string
export const POSTGRES_CONNECTION: RegExp
export const POSTGRES_CONNECTION_FIXED: string
export const POSTGRES_CONNECTION_REPLACEMENTS: Array<[string, string]>
