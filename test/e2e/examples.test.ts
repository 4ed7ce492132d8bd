// The examples/ integration test, run as `npm run examples` runs it, against a fresh listening
// sandbox of the suite's backend with a clock that runs: every test in it passes.
import t from 'tap'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Clock } from '../../src/clock.js'
import { build } from '../helpers.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.examples

t.test('npm run examples runs the examples\' tests with node --test', async t => {
  t.equal(script, 'node --test examples/integration.test.js')
})

t.test('the examples pass against a started sandbox', async t => {
  const app = await build(t, {}, { clock: new Clock() })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

  // The script's command, with this node and a reporter whose summary can be read.
  const [, ...args] = script.split(' ')
  const child = spawn(process.execPath, ['--test-reporter=tap', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SANDBOX_URL: base },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { child.kill('SIGKILL') })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', chunk => { output += chunk })
  child.stderr.setEncoding('utf8').on('data', chunk => { output += chunk })
  const code = await new Promise<number | null>(resolve => child.on('exit', resolve))

  t.equal(code, 0, 'node --test exits 0', { output: output.slice(-3000) })
  const count = (name: string): number => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(output)?.[1] ?? NaN)
  t.ok(count('pass') >= 3, `${count('pass')} example tests passed`)
  t.equal(count('fail'), 0, 'none failed')
  t.match(output, /^ok \d+ - a user is created, made KYC-ready, and each step arrives as a signed webhook$/m)

  // The example cleans up after itself: its webhook endpoint is gone.
  const endpoints = await app.inject({ method: 'GET', url: '/_sandbox/webhooks/endpoints' })
  t.same(endpoints.json().endpoints, [], 'no endpoint is left behind')
})
