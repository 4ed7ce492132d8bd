export default {
  version: 3,
  name: 'sandbox',
  sql: `
-- (tables of the sandbox area land with their issue)
`
}
