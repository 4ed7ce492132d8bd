// The registry of what areas declare: names and fixture keys are unique, migrations are named by
// their area, fixture keys are checked after the keys they refer to.
import t from 'tap'
import { Type } from 'typebox'
import { AreaRegistry, defineArea, defineFixtureKey, type FixtureKey } from '../../src/kit/area.js'
import { orderedKeys } from '../../src/kit/fixtures.js'
import { areas } from '../../src/areas.js'
import { build } from '../helpers.js'

const plugin = async (): Promise<void> => {}
const key = (name: string, after?: string[]): FixtureKey =>
  defineFixtureKey({ key: name, after, schema: Type.Array(Type.String()), summary: Type.Array(Type.String()), check: async () => {} })

t.test('two areas of one name, or two fixture keys of one name, are refused', async t => {
  t.throws(() => new AreaRegistry([defineArea({ name: 'a', plugin }), defineArea({ name: 'a', plugin })]), /Two areas are named a/)
  const registry = new AreaRegistry([defineArea({ name: 'a', fixtures: [key('x')], plugin }), defineArea({ name: 'b', fixtures: [key('x')], plugin })])
  t.throws(() => registry.fixtureKeys(), /Two areas declare the fixture key x/)
})

t.test('an area\'s migrations are named after it, in area order', async t => {
  const registry = new AreaRegistry([
    defineArea({ name: 'first', migrations: [{ name: '001-a', sql: '' }, { name: '002-b', sql: '' }], plugin }),
    defineArea({ name: 'second', migrations: [{ name: '001-a', sql: '' }], plugin })
  ])
  t.strictSame(registry.migrations().map(m => m.name), ['first/001-a', 'first/002-b', 'second/001-a'])
})

t.test('the user\'s cards and their limits come from the area that keeps cards, none without one', async t => {
  const app = {} as unknown as Parameters<AreaRegistry['userCards']>[0]
  t.equal(await new AreaRegistry([defineArea({ name: 'a', plugin })]).userCards(app, 'org', 'user'), undefined)
  const limits = { active: 5, unique: 10 }
  const registry = new AreaRegistry([
    defineArea({ name: 'a', plugin }),
    defineArea({ name: 'b', userCards: async (_app, organizationId, userId) => ({ active: organizationId === 'org' && userId === 'user' ? 3 : 0, unique: 4, limits }), plugin })
  ])
  t.same(await registry.userCards(app, 'org', 'user'), { active: 3, unique: 4, limits })
  t.same(await registry.userCards(app, 'other', 'user'), { active: 0, unique: 4, limits })
})

t.test('fixture keys come after the keys they name, whatever the area order', async t => {
  t.strictSame(orderedKeys([key('metadata', ['users', 'entities']), key('entities', ['users']), key('users', ['organizations']), key('organizations')]).map(k => k.key),
    ['organizations', 'users', 'entities', 'metadata'])
  t.throws(() => orderedKeys([key('a', ['b']), key('b', ['a'])]), /cycle/)
})

t.test('the sandbox\'s areas declare every tag its operations use, and every metadata entity of the spec', async t => {
  const registry = new AreaRegistry(areas)
  const app = await build(t)
  const declared = new Set(registry.tags().map(tag => tag.name))
  const paths = (await app.inject({ method: 'GET', url: '/openapi.json' })).json().paths as Record<string, Record<string, { tags?: string[] }>>
  const used = new Set(Object.values(paths).flatMap(path => Object.values(path).flatMap(op => op.tags ?? [])))
  t.ok(used.size >= 6)
  for (const tag of used) t.ok(declared.has(tag), `tag ${tag} is declared by an area`)
  t.equal(declared.size, registry.tags().length, 'no tag is declared twice')
  for (const key of ['organizations', 'users', 'clients', 'entities', 'metadata']) t.ok(registry.fixtureKeys().some(k => k.key === key), `fixture key ${key}`)
  t.strictSame(registry.metadataEntities().map(e => e.segment).sort(), ['accounts', 'external-accounts', 'files', 'transactions', 'users'])
  t.strictSame(registry.sandboxEntity('files')?.segment, 'files')
  t.strictSame(registry.sandboxEntity('accounts')?.segment, 'accounts')
})

t.test('dashboard panels come in their order, then area order; two panels of one id are refused', async t => {
  const panel = (id: string, order: number): { id: string, title: string, order: number, markup: string, script: string } =>
    ({ id, title: id.toUpperCase(), order, markup: '', script: 'return function () {}' })
  const registry = new AreaRegistry([
    defineArea({ name: 'a', dashboardPanels: [panel('log', 1000), panel('first', 10)], plugin }),
    defineArea({ name: 'b', plugin }),
    defineArea({ name: 'c', dashboardPanels: [panel('tie', 10), panel('middle', 50)], plugin })
  ])
  t.strictSame(registry.dashboardPanels().map(p => p.id), ['first', 'tie', 'middle', 'log'])
  const twice = new AreaRegistry([defineArea({ name: 'a', dashboardPanels: [panel('x', 1)], plugin }), defineArea({ name: 'b', dashboardPanels: [panel('x', 2)], plugin })])
  t.throws(() => twice.dashboardPanels(), /Two dashboard panels have the id x/)
})
