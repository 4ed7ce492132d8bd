export default {
  version: 2,
  name: 'webhooks',
  sql: `
-- (tables of the webhooks area land with their issue)
`
}
