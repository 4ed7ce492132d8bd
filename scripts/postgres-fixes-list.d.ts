// Types of postgres-fixes-list.js, for the tests that import it.
export interface PostgresFix {
  name: string
  /** The module's file in the package's src/ (and cjs/src/). */
  file: string
  module: RegExp
  patch: (source: string) => string
  /** Each original text the fix replaces, with its fixed text. */
  replacements: Array<[string, string]>
  fixed: string
  by: string
}
export const POSTGRES_FIXES: PostgresFix[]
