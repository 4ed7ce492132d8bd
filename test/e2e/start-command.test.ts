// The shipped way to start: `npm run build` makes dist/server.js (the server and TypeBox in one
// file), and `npm start`, the image's CMD and the bin's first line all run it with the same flags.
import t from 'tap'
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { basic } from '../helpers.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8')

const startScript = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start.split(' ')
const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(read('Dockerfile'))![1]) as string[]
const shebang = read('src/server.ts').split('\n')[0]

t.test('npm start, the image and the bin run node with the same flags', async t => {
  t.same(startScript, ['node', '--max-old-space-size=192', 'dist/server.js'])
  t.same(cmd, startScript, 'the Dockerfile CMD')
  t.equal(shebang, `#!/usr/bin/env -S ${startScript.slice(0, -1).join(' ')}`, 'the bin, through its first line')
})

t.test('the built bundle starts, answers health, serves the API description and issues a token', async t => {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })
  const dir = mkdtempSync(join(tmpdir(), 'start-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const child = spawn(process.execPath, startScript.slice(1), {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'sandbox.db'), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => { child.kill('SIGTERM') })
  let stdout = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', chunk => {
      stdout += chunk
      const match = /listening on (http:\/\/\S+)/.exec(stdout)
      if (match !== null) resolve(match[1])
    })
    child.on('exit', code => reject(new Error(`exited with ${code}`)))
  })

  const health = await fetch(`${url}/_sandbox/health`)
  t.equal(health.status, 200)
  const openapi = await fetch(`${url}/openapi.json`)
  t.equal(openapi.status, 200)
  t.match(await openapi.json(), { openapi: '3.1.0', paths: { '/core/users/{userId}/metadata': {} } })
  const token = await fetch(`${url}/core/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic('sandbox-demo-client', 'sandbox-demo-secret'), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=core.users.metadata%3Aread'
  })
  t.equal(token.status, 200)
  t.match(await token.json(), { token_type: 'Bearer', scope: 'core.users.metadata:read' })
})
