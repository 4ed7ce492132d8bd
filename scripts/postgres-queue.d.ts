// Types of postgres-queue.js, for the test that imports it.
export function patchPostgresQueue (source: string): string
export const POSTGRES_QUEUE: RegExp
export const POSTGRES_QUEUE_FIXED: string
export const POSTGRES_QUEUE_REPLACEMENTS: Array<[string, string]>
