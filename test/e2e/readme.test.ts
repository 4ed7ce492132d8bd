// The README as a newcomer meets it: short, with a table of contents whose links reach its
// headings, and a happy path that works as written. Its shell blocks (between the `happy-path`
// comments) run in order in one bash session, against a listening server with a running clock,
// each required to exit 0; the last shows the webhooks the example receiver verified.
import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Clock } from '../../src/clock.js'
import { build } from '../helpers.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8')
const README = read('README.md')

/** The text without its fenced code blocks (whose `#` lines are comments, not headings). */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '')

/** GitHub's anchors for a document's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors (markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const [, text] of prose(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').trim().replace(/\s/g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

/** The shell blocks of the happy path, in order. */
function happyPath (): string[] {
  const section = /<!-- happy-path -->([\s\S]*?)<!-- \/happy-path -->/.exec(README)
  if (section === null) return []
  return [...section[1].matchAll(/^```sh\n([\s\S]*?)^```/gm)].map(m => m[1])
}

t.test('the README is under 15 KB, starts with what a newcomer needs and links its contents to its headings', async t => {
  const size = Buffer.byteLength(README)
  t.ok(size < 15 * 1024, `${size} bytes`)
  const top = README.split('\n').slice(0, 20).join('\n')
  t.match(top, /npm ci && npm start/, 'the two commands at the top')
  t.match(top, /\]\(ARCHITECTURE\.md\)/, 'ARCHITECTURE.md is linked near the top')
  t.match(README, /`npm test`|npm test /, 'the test command')
  t.match(README, /npm run test:postgres/, 'the PostgreSQL test command')

  const contents = /^## Contents\n([\s\S]*?)\n## /m.exec(README)
  t.ok(contents, 'a table of contents')
  const listed = [...(contents?.[1] ?? '').matchAll(/\]\(#([^)]+)\)/g)].map(m => m[1])
  const headings = [...prose(README).matchAll(/^## +(.+)$/gm)].map(m => m[1]).filter(h => h !== 'Contents')
  t.equal(listed.length, headings.length, `the contents list every section (${headings.join(', ')})`)
  const own = anchors(README)
  for (const anchor of listed) t.ok(own.has(anchor), `#${anchor} is a heading of the README`)
})

t.test('links to a heading, in the README and docs/, reach a heading that exists', async t => {
  const documents = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter(f => f.endsWith('.md')).map(f => `docs/${f}`)]
  let checked = 0
  for (const document of documents) {
    for (const [, file, anchor] of prose(read(document)).matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(file)) continue
      const target = file === '' ? document : join(document, '..', file)
      checked++
      t.ok(anchors(read(target)).has(anchor), `${document} links ${file}#${anchor}, a heading of ${target}`)
    }
  }
  t.ok(checked >= 10, `${checked} links to headings were checked`)
})

/** A port nobody listens on now, for the webhook receiver. */
async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>(resolve => server.close(() => { resolve() }))
  return port
}

t.test('the happy path runs as written, command for command', async t => {
  const blocks = happyPath()
  t.ok(blocks.length >= 10, `${blocks.length} blocks of commands`)

  // The sandbox as `npm start` runs it (no admin token, loopback), with a clock that runs: the
  // receiver checks webhook timestamps against real time.
  const app = await build(t, {}, { clock: new Clock() })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

  // The README's commands run in the project's folder; each block is sourced from a scratch one.
  const dir = mkdtempSync(join(tmpdir(), 'readme-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })

  const shell = spawn('bash', ['--noprofile', '--norc'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: dir, BASE_URL: base, RECEIVER_PORT: String(await freePort()) },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true
  })
  // The session and whatever it started in the background (the receiver).
  t.teardown(() => { try { process.kill(-shell.pid!, 'SIGKILL') } catch {} })
  let output = ''
  let exited: number | null | undefined
  shell.stdout.setEncoding('utf8').on('data', chunk => { output += chunk })
  shell.stderr.setEncoding('utf8').on('data', chunk => { output += chunk })
  const ended = new Promise<void>(resolve => shell.on('exit', code => { exited = code; resolve() }))
  shell.stdin.write('set -euo pipefail\n')

  /** Runs one block in the session; its output, or undefined when it failed (the session ended). */
  const run = async (i: number, block: string): Promise<string | undefined> => {
    const file = join(dir, `step-${i}.sh`)
    writeFileSync(file, block)
    const start = output.length
    const marker = `::step ${i} done`
    shell.stdin.write(`source ${JSON.stringify(file)}\necho ${JSON.stringify(marker)}\n`)
    const deadline = Date.now() + 30_000
    const waiting = (): boolean => !output.includes(marker, start) && exited === undefined && Date.now() < deadline
    while (waiting()) {
      await Promise.race([ended, new Promise(resolve => setTimeout(resolve, 20))])
    }
    return output.includes(marker, start) ? output.slice(start, output.indexOf(marker, start)) : undefined
  }

  const outputs: string[] = []
  for (const [i, block] of blocks.entries()) {
    const out = await run(i, block)
    if (out === undefined) {
      t.fail(`block ${i} exits 0`, { block, output: output.slice(-2000), exitCode: exited })
      return
    }
    t.pass(`block ${i} exits 0: ${block.split('\n')[0].slice(0, 60)}`)
    outputs.push(out)
  }

  // What each step shows, as a reader sees it.
  const at = (pattern: RegExp): string => outputs.find(o => pattern.test(o)) ?? ''
  t.match(at(/^eyJ/m), /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/m, 'a token')
  const kyc = blocks.findIndex(b => b.includes('/_sandbox/users/') && b.includes('/kyc'))
  t.equal(outputs[kyc]?.trim().split('\n').at(-1), 'ok', 'KYC ends ok')
  const funded = blocks.findIndex(b => b.includes('bank-deposits'))
  t.match(outputs[funded], /total: '1000'[\s\S]*available: '1000'/, 'the deposit is in the balance')
  const trade = blocks.findIndex(b => b.includes('quoteId'))
  t.match(outputs[trade], /^processing$/m, 'the trade is processing until the clock moves')
  const portfolio = blocks.findIndex(b => b.includes('/core/portfolio'))
  t.match(outputs[portfolio], /asset: 'BTC'[\s\S]*asset: 'USD', total: '750.00'/, 'the portfolio holds bitcoin and 750 USD')

  const webhooks = outputs.at(-1) ?? ''
  t.match(webhooks, /^verified core\.user\.created msg_\w+$/m, 'the user\'s creation arrived, verified')
  t.equal(webhooks.match(/^verified core\.transaction\.status-changed msg_\w+$/gm)?.length, 2, 'the deposit\'s and the trade\'s completions arrived, verified')
  t.notMatch(webhooks, /rejected/, 'no delivery failed verification')
})
