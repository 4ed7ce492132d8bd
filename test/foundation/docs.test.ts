import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'

const root = new URL('../../', import.meta.url)

t.test('the README keeps the two commands at the top', async t => {
  const readme = readFileSync(new URL('README.md', root), 'utf8')
  t.match(readme.split('\n').slice(0, 8).join('\n'), /npm ci && npm start[\s\S]*npm test/, 'the two commands are at the top')
})

t.test('relative links in the README and docs/ reach files that exist, and the README links the behaviour reference', async t => {
  const readme = readFileSync(new URL('README.md', root), 'utf8')
  t.match(readme, /\]\(docs\/behaviour\.md\)/, 'the README links docs/behaviour.md')
  const documents = ['README.md', ...readdirSync(new URL('docs/', root)).filter(f => f.endsWith('.md')).map(f => `docs/${f}`)]
  let links = 0
  for (const document of documents) {
    const text = readFileSync(new URL(document, root), 'utf8')
    for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue
      links++
      t.ok(existsSync(new URL(target, new URL(document, root))), `${document} links ${target}, which exists`)
    }
  }
  t.ok(links >= 3, `${links} relative links were checked`)
})
