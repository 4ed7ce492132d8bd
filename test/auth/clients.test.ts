// Client secrets: stored as scrypt keys, verified with one derivation and then from a SHA-256 kept
// in memory, so token issuance is not capped by hashing. A wrong secret is never remembered as
// valid, and a rotation forgets what was remembered.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ClientRegistry, scryptKey, type DeriveKey } from '../../src/auth/clients.js'
import { basic, build, tokenRequest } from '../helpers.js'
import { DEFAULT_DEMO_SECRET_HASHED } from '../../src/auth/demo-client.js'
import { DEFAULT_DEMO_CLIENT_SECRET } from '../../src/config.js'

async function registry (app: FastifyInstance): Promise<{ clients: ClientRegistry, derivations: () => number }> {
  let count = 0
  const counting: DeriveKey = async (secret, salt) => { count++; return await scryptKey(secret, salt) }
  await app.storage.organizations.ensure('22222222-2222-4222-8222-222222222222', 'Org', app.clock.iso())
  return { clients: new ClientRegistry(app.storage, app.clock, counting), derivations: () => count }
}

const NEW_CLIENT = { clientId: 'cached', clientSecret: 's3cret', organizationId: '22222222-2222-4222-8222-222222222222', scopes: ['core.users:read'], refreshTokens: false }

t.test('the secret is stored as a salted scrypt key, never in clear', async t => {
  const app = await build(t)
  const { clients } = await registry(app)
  const a = await clients.create(NEW_CLIENT)
  const b = await clients.create({ ...NEW_CLIENT, clientId: 'cached-2' })
  const row = JSON.stringify(await app.storage.db.prepare('SELECT * FROM clients WHERE id = ?').get('cached'))
  t.notMatch(row, 's3cret')
  t.equal(Buffer.from(a!.secretHash, 'base64').length, 32)
  t.not(a!.secretHash, b!.secretHash, 'the same secret hashes differently under another salt')
  t.strictSame(a!.secretHash, (await scryptKey('s3cret', a!.secretSalt)).toString('base64'))
})

t.test('the default demo secret is stored derived ahead of time: the same scrypt key, checked like any other', async t => {
  const app = await build(t)
  // The stored key is the derivation of the default secret under the stored salt.
  const derived = await scryptKey(DEFAULT_DEMO_CLIENT_SECRET, DEFAULT_DEMO_SECRET_HASHED.secretSalt)
  t.equal(derived.toString('base64'), DEFAULT_DEMO_SECRET_HASHED.secretHash)
  const row = await app.storage.db.prepare<[string], { secret_salt: string, secret_hash: string }>('SELECT secret_salt, secret_hash FROM clients WHERE id = ?').get('sandbox-demo-client')
  t.same(row, { secret_salt: DEFAULT_DEMO_SECRET_HASHED.secretSalt, secret_hash: DEFAULT_DEMO_SECRET_HASHED.secretHash })
  // A registry that remembers nothing (a restart) verifies the secret by deriving it, and refuses another.
  const { clients, derivations } = await registry(app)
  t.equal((await clients.authenticate('sandbox-demo-client', DEFAULT_DEMO_CLIENT_SECRET))?.id, 'sandbox-demo-client')
  t.equal(derivations(), 1)
  t.equal(await clients.authenticate('sandbox-demo-client', 'sandbox-demo-secreT'), undefined)
  const token = await tokenRequest(app, { grant_type: 'client_credentials' }, basic('sandbox-demo-client', DEFAULT_DEMO_CLIENT_SECRET))
  t.equal(token.statusCode, 200)
})

t.test('a right secret costs one derivation, then none', async t => {
  const app = await build(t)
  const { clients, derivations } = await registry(app)
  await clients.create(NEW_CLIENT)
  t.equal(derivations(), 1, 'creating hashes the secret')
  t.equal((await clients.authenticate('cached', 's3cret'))?.id, 'cached')
  t.equal(derivations(), 1, 'the secret a client was created with is known without a derivation')

  // After a restart nothing is remembered: the first check derives, later ones compare a SHA-256.
  const restarted = await registry(app)
  for (let i = 0; i < 5; i++) t.equal((await restarted.clients.authenticate('cached', 's3cret'))?.id, 'cached')
  t.equal(restarted.derivations(), 1, 'later checks compare a SHA-256 in constant time')
})

t.test('checks of one secret that arrive together share one derivation', async t => {
  const app = await build(t)
  await (await registry(app)).clients.create(NEW_CLIENT)
  const { clients, derivations } = await registry(app)
  const answers = await Promise.all(Array.from({ length: 20 }, async () => await clients.authenticate('cached', 's3cret')))
  t.strictSame(answers.map(c => c?.id), Array(20).fill('cached'))
  t.equal(derivations(), 1)

  const wrong = await Promise.all([clients.authenticate('cached', 'wrong'), clients.authenticate('cached', 'wrong'), clients.authenticate('cached', 'other')])
  t.strictSame(wrong, [undefined, undefined, undefined], 'a shared derivation refuses every wrong secret')
  t.equal(derivations(), 3, 'one derivation per distinct secret')
  t.equal(await clients.authenticate('cached', 'wrong'), undefined)
  t.equal(derivations(), 4, 'a later wrong attempt pays its own derivation')
})

t.test('a rotated secret is known without a derivation, the old one is refused', async t => {
  const app = await build(t)
  const { clients, derivations } = await registry(app)
  await clients.create(NEW_CLIENT)
  await clients.rotateSecret('cached', 'n3w')
  t.equal(derivations(), 2)
  t.equal((await clients.authenticate('cached', 'n3w'))?.id, 'cached')
  t.equal(derivations(), 2)
  t.equal(await clients.authenticate('cached', 's3cret'), undefined)
  t.equal((await clients.authenticate('cached', 'n3w'))?.id, 'cached', 'a refused old secret leaves the new one known')
})

t.test('a wrong secret is never remembered as valid', async t => {
  const app = await build(t)
  const { clients, derivations } = await registry(app)
  await clients.create(NEW_CLIENT)
  const start = derivations()
  t.equal(await clients.authenticate('cached', 'wrong'), undefined)
  t.equal(await clients.authenticate('cached', 'wrong'), undefined, 'still wrong the second time')
  t.equal(derivations(), start + 2, 'each wrong attempt pays a derivation')
  t.equal((await clients.authenticate('cached', 's3cret'))?.id, 'cached')
  t.equal(await clients.authenticate('cached', 'wrong'), undefined, 'wrong after a right one is cached')
  t.equal(await clients.authenticate('cached', 's3cret '), undefined)
  t.equal(await clients.authenticate('cached', ''), undefined)
})

t.test('unknown clients pay a derivation too, so timing does not tell which ids exist', async t => {
  const app = await build(t)
  const { clients, derivations } = await registry(app)
  t.equal(await clients.authenticate('nobody', 'anything'), undefined)
  t.equal(derivations(), 1)
})

t.test('a rotation or a deletion forgets the remembered secret', async t => {
  const app = await build(t)
  const { clients } = await registry(app)
  await clients.create(NEW_CLIENT)
  t.ok(await clients.authenticate('cached', 's3cret'))
  await clients.rotateSecret('cached', 'n3w')
  t.equal(await clients.authenticate('cached', 's3cret'), undefined, 'the old secret no longer works')
  t.equal((await clients.authenticate('cached', 'n3w'))?.id, 'cached')
  t.equal(await clients.delete('cached'), true)
  t.equal(await clients.authenticate('cached', 'n3w'), undefined)
  t.equal(await clients.rotateSecret('cached', 'x'), undefined, 'nothing to rotate')
})

t.test('through the token endpoint: the old secret stops working at rotation', async t => {
  const app = await build(t)
  const c = await app.clients.create({ ...NEW_CLIENT, organizationId: '00000000-0000-4000-8000-000000000001' })
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic(c!.id, 's3cret'))).statusCode, 200)
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic(c!.id, 's3cret'))).statusCode, 200)
  await app.clients.rotateSecret(c!.id, 'n3w')
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic(c!.id, 's3cret'))).statusCode, 401)
  t.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, basic(c!.id, 'n3w'))).statusCode, 200)
})
