import neostandard from 'neostandard'

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'node_modules/**', 'data/**']
  }),
  {
    // TypeBox's idiom names a schema and its static type alike: `const User = ...; type User = ...`.
    rules: { '@typescript-eslint/no-redeclare': 'off' }
  }
]
