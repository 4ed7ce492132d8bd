import neostandard from 'neostandard'

export default [
  ...neostandard({
    ts: true,
    // test/.runner-probe-*: probe test files test/foundation/test-runner.test.ts writes for one run.
    ignores: ['dist/**', 'node_modules/**', 'data/**', 'test/.runner-probe-*/**']
  }),
  {
    // TypeBox's idiom names a schema and its static type alike: `const User = ...; type User = ...`.
    rules: { '@typescript-eslint/no-redeclare': 'off' }
  }
]
