// docs/sandbox-controls.md lists every control route the areas register: a new control cannot be
// left out of the page integrators read.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { build } from '../helpers.js'

t.test('every registered /_sandbox route is in docs/sandbox-controls.md', async t => {
  const app = await build(t)
  const page = readFileSync(new URL('../../docs/sandbox-controls.md', import.meta.url), 'utf8')
  const paths = [...new Set(app.registeredRoutes.filter(r => r.url.startsWith('/_sandbox') && r.method !== 'HEAD').map(r => r.url.replace(/:([A-Za-z]+)/g, '{$1}')))]
  t.ok(paths.length >= 30, `${paths.length} control paths`)
  for (const path of paths) t.ok(page.includes(`${path}\``) || page.includes(`${path} `) || page.includes(`${path},`), `${path} is documented`)
})
