// Types of node-check.cjs, for the tests that import it.
export function nodeProblem (features?: { require_module?: boolean }, version?: string): string | undefined
