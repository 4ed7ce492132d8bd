// docs/webhooks.md's verification without a library (node:crypto), taken from the page as written:
// it accepts a real delivery of the sandbox, also during a secret rotation with either secret, and
// refuses a changed body, another secret and an old timestamp.
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Clock } from '../../src/clock.js'
import { build } from '../helpers.js'
import { startReceiver } from '../webhooks/support.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

type Verify = (secret: string, headers: Record<string, string | string[] | undefined>, body: string, toleranceSeconds?: number) => boolean

/** The page's `verify`, loaded from its code block. */
async function documentedVerify (t: { teardown: (fn: () => void) => void }): Promise<Verify> {
  const page = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8')
  const block = [...page.matchAll(/^```js\n([\s\S]*?)^```/gm)].map(m => m[1]).find(code => code.includes('function verify'))
  if (block === undefined) throw new Error('docs/webhooks.md has no `function verify` block')
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-doc-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const file = join(dir, 'verify.mjs')
  writeFileSync(file, `${block}\nexport { verify }\n`)
  return ((await import(pathToFileURL(file).href)) as { verify: Verify }).verify
}

t.test('the node:crypto snippet verifies real deliveries and refuses forgeries', async t => {
  const verify = await documentedVerify(t)
  const app = await build(t, {}, { clock: new Clock() })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const receiver = await startReceiver(t)
  const created = await app.inject({ method: 'POST', url: '/_sandbox/webhooks/endpoints', payload: { url: receiver.url } })
  t.equal(created.statusCode, 201)
  const endpoint = created.json().endpoint as { id: string, secret: string }

  const test = async (): Promise<void> => {
    const res = await app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints/${endpoint.id}/test`, payload: {} })
    t.equal(res.statusCode, 202)
  }
  await test()
  const [first] = await receiver.waitFor(1)
  t.equal(verify(endpoint.secret, first.headers, first.body), true, 'a delivery verifies with the endpoint\'s secret')
  t.equal(verify(endpoint.secret, first.headers, first.body.replace('webhook.test', 'webhook.tesT')), false, 'a changed body does not')
  t.equal(verify(`whsec_${Buffer.from('another secret, 24 bytes').toString('base64')}`, first.headers, first.body), false, 'nor another secret')
  const old = { ...first.headers, 'webhook-timestamp': String(Number(first.headers['webhook-timestamp']) - 301) }
  t.equal(verify(endpoint.secret, old, first.body), false, 'nor a timestamp over 5 minutes old')

  // During a rotation, both secrets sign: either verifies.
  const rotated = await app.inject({ method: 'POST', url: `/_sandbox/webhooks/endpoints/${endpoint.id}/rotate-secret`, payload: {} })
  t.equal(rotated.statusCode, 200)
  const secret = rotated.json().endpoint.secret as string
  t.not(secret, endpoint.secret)
  await test()
  const second = (await receiver.waitFor(2))[1]
  t.match(second.headers['webhook-signature'], /^v1,\S+ v1,\S+$/, 'two signatures during the grace period')
  t.equal(verify(secret, second.headers, second.body), true, 'the new secret verifies')
  t.equal(verify(endpoint.secret, second.headers, second.body), true, 'the old one too, until the grace period ends')
})
