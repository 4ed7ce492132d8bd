// Log lines reach standard output in batches: a batch is written when it reaches its size, when
// the interval passes, or when the process exits; nothing is lost, cut or reordered.
import t from 'tap'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { batchedLogStream } from '../../src/log-stream.js'
import { waitFor } from '../helpers.js'

function logFile (t: { teardown: (fn: () => void) => void }): { fd: number, read: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'log-stream-'))
  const path = join(dir, 'out.log')
  const fd = openSync(path, 'a')
  t.teardown(() => { closeSync(fd); rmSync(dir, { recursive: true, force: true }) })
  return { fd, read: () => readFileSync(path, 'utf8') }
}

t.test('lines wait for the batch, then come out whole and in order', async t => {
  const { fd, read } = logFile(t)
  const stream = batchedLogStream(fd, { maxBytes: 1000, intervalMs: 60_000 })
  stream.write('one\n')
  stream.write('two\n')
  t.equal(read(), '', 'not written yet')
  stream.flushSync()
  t.equal(read(), 'one\ntwo\n')

  const line = 'x'.repeat(99) + '\n'
  for (let i = 0; i < 9; i++) stream.write(line)
  t.equal(read(), 'one\ntwo\n', 'under the size: waiting')
  stream.write(line)
  t.equal(read(), 'one\ntwo\n' + line.repeat(10), 'at the size: written at once')
})

t.test('a quiet stream is written within its interval', async t => {
  const { fd, read } = logFile(t)
  const stream = batchedLogStream(fd, { intervalMs: 20 })
  stream.write('quiet\n')
  t.equal(read(), '', 'under the size: not written at once')
  await waitFor(() => read() !== '', { timeoutMs: 2000, what: 'the interval to write the line' })
  t.equal(read(), 'quiet\n')
})

t.test('pino writes through it: one JSON line per entry', async t => {
  const { fd, read } = logFile(t)
  const stream = batchedLogStream(fd)
  const log = pino({ base: undefined }, stream)
  for (let i = 0; i < 500; i++) log.info({ i }, 'request')
  stream.flushSync()
  const lines = read().trimEnd().split('\n').map(l => JSON.parse(l) as { i: number, msg: string })
  t.equal(lines.length, 500)
  t.same(lines.map(l => l.i), Array.from({ length: 500 }, (_, i) => i))
})
