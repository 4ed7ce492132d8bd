// A card's check survives a restart: its due time is stored, and the restarted sandbox settles it
// on start once the sandbox clock has passed it.
import t from 'tap'
import { build, fileDatabasePath, makeUser } from '../helpers.js'
import { Clock } from '../../src/clock.js'
import { externalAccountsOf } from '../../src/external-accounts/service.js'

t.test('a processing card turns ok after a restart once its check is due', async t => {
  const databasePath = fileDatabasePath(t)
  const clock = new Clock()
  clock.freeze(true)
  const first = await build(t, { databasePath, cardCheckDelaySeconds: 60 }, { clock })
  const user = await makeUser(first)
  const made = await first.inject({ method: 'POST', url: '/_sandbox/entities/external-accounts', payload: { userId: user.id } })
  t.equal(made.statusCode, 201)
  // A processing card, as core.create-external-account stores one, written through the store.
  const store = externalAccountsOf(first)
  const bank = (await store.get(user.organizationId, made.json().id))!
  const id = '0b5f3a52-6f43-4f0e-9a44-0a6f7d1e2c11'
  await store.create({ ...bank, id, type: 'card', status: 'processing', fingerprint: 'restart-test', checkDueAt: clock.now() + 60_000, expiresAt: null }, () => first.events.build(user.organizationId, 'core.external-account.created', {}), { active: 5, unique: 10 })
  await first.close()

  clock.set(clock.now() + 61_000)
  const second = await build(t, { databasePath, cardCheckDelaySeconds: 60 }, { clock })
  await second.clock.settle()
  t.equal((await externalAccountsOf(second).get(user.organizationId, id))?.status, 'ok')
})
