// Types of build-check.cjs, for the tests that import it.
export const INPUT_FOLDERS: string[]
export const INPUT_FILES: string[]
export const OUTPUT: string
export const FIX: string
export function buildProblem (root: string): string | undefined
