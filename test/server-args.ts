// Node's arguments that run the server from its sources (src/server.ts), for tests that start it as
// a process: under `npm test`, the bundle of it that this run made (scripts/test.js), which starts
// in a fraction of the time; else the sources through tsx. postgres.js gets the bundle's fixes
// either way (scripts/postgres-fixes.js), so the server is the one `npm start` runs. Relative to
// the project's root, which is the child's working folder.
export function sourceServerArgs (): string[] {
  const bundle = process.env.SANDBOX_TEST_SERVER
  return bundle !== undefined && bundle !== ''
    ? ['--enable-source-maps', '--import', './scripts/postgres-fixes.js', bundle]
    : ['--import', 'tsx', '--import', './scripts/postgres-fixes.js', 'src/server.ts']
}
