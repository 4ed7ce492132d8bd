// Typed checks that a promise is never used as a value: run by `npm run lint` over src/ and test/
// (every store operation returns a Promise on both backends, and a forgotten `await` compares a
// Promise with undefined instead of a row).
import neostandard from 'neostandard'
import tsPlugin from '@typescript-eslint/eslint-plugin'
import tsParser from '@typescript-eslint/parser'

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'node_modules/**', 'data/**', 'bench/**', 'scripts/**', '*.js', 'docker/**', 'examples/**'] }),
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tsParser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@typescript-eslint': tsPlugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-redeclare': 'off'
    }
  },
  {
    // tap's `t.test(...)` at the top of a file is awaited by tap itself.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' }
  }
]
