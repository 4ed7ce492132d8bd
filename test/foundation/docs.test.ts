import t from 'tap'
import { readFileSync } from 'node:fs'
import { VARIABLES } from '../../src/config.js'

const root = new URL('../../', import.meta.url)

t.test('.env.example and the README list every configuration variable', async t => {
  const env = readFileSync(new URL('.env.example', root), 'utf8')
  const readme = readFileSync(new URL('README.md', root), 'utf8')
  for (const v of VARIABLES) {
    t.match(env, new RegExp(`^#? ?${v.name}=`, 'm'), `.env.example has ${v.name}`)
    t.match(readme, new RegExp('`' + v.name + '`'), `README has ${v.name}`)
  }
  t.match(readme.split('\n').slice(0, 8).join('\n'), /npm ci && npm start[\s\S]*npm test/, 'the two commands are at the top')
})
