// The answers of one turn of the event loop are written to their sockets together at its end
// (src/http/answers-at-turn-end.ts). What a client sees must not change: every answer whole, in
// the order of its connection's requests, a closing connection closed after its answer, and a
// client that leaves before its answer costs nobody else theirs.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { accessToken, bearer, build, makeUser, onBehalfOf } from '../helpers.js'

const lines: string[] = []
const logStream = new Writable({ write (chunk: Buffer, _encoding, done) { lines.push(chunk.toString('utf8')); done() } })
const app = await build(t, {}, {
  logStream,
  plugins: [async (p: FastifyInstance) => {
    p.get('/probe/echo/:n', async request => ({ n: Number((request.params as { n: string }).n) }))
  }]
})
await app.listen({ port: 0, host: '127.0.0.1' })
const port = (app.server.address() as { port: number }).port

interface Answer { status: number, headers: Record<string, string>, body: string }

/** Splits what a connection received into its HTTP answers (each with a content-length). */
function answers (text: string): Answer[] {
  const out: Answer[] = []
  let rest = text
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n')
    if (end < 0) throw new Error(`an answer cut short: ${JSON.stringify(rest)}`)
    const [statusLine, ...headerLines] = rest.slice(0, end).split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of headerLines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'])
    const body = rest.slice(end + 4, end + 4 + length)
    if (body.length !== length) throw new Error(`a body cut short: ${JSON.stringify(rest)}`)
    out.push({ status: Number(statusLine.split(' ')[1]), headers, body })
    rest = rest.slice(end + 4 + length)
  }
  return out
}

/** Sends `request` (any number of requests, pipelined) and reads until the server closes the connection. */
function exchange (request: string): Promise<{ text: string, socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request))
    let text = ''
    socket.on('data', chunk => { text += chunk.toString('utf8') })
    socket.on('close', () => { resolve({ text, socket }) })
    socket.on('error', reject)
  })
}

const get = (path: string, close = false): string => `GET ${path} HTTP/1.1\r\nHost: sandbox\r\n${close ? 'Connection: close\r\n' : ''}\r\n`

t.test('pipelined requests on one connection are answered in their order, each whole, then the connection closes', async t => {
  const request = [0, 1, 2, 3, 4].map(n => get(`/probe/echo/${n}`)).join('') + get('/probe/echo/5', true)
  const { text } = await exchange(request)
  const got = answers(text)
  t.same(got.map(a => a.status), [200, 200, 200, 200, 200, 200])
  t.same(got.map(a => JSON.parse(a.body)), [0, 1, 2, 3, 4, 5].map(n => ({ n })))
  t.equal(got[5].headers.connection, 'close', 'the last answer says the connection closes, and it did')
})

t.test('fifty connections asking in the same turn each get their own answer', async t => {
  const count = 50
  const sockets = await Promise.all(Array.from({ length: count }, () => new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => { resolve(socket) })
    socket.on('error', reject)
  })))
  const received = sockets.map(socket => new Promise<string>(resolve => {
    let text = ''
    socket.on('data', chunk => { text += chunk.toString('utf8') })
    socket.on('close', () => { resolve(text) })
  }))
  // All written in one go, so the server reads them in one turn.
  sockets.forEach((socket, n) => socket.write(get(`/probe/echo/${n}`, true)))
  const texts = await Promise.all(received)
  t.same(texts.map(text => answers(text).map(a => [a.status, JSON.parse(a.body).n])), texts.map((_, n) => [[200, n]]))
})

t.test('a write, then a read on the same kept-alive connection: the read sees the write', async t => {
  const token = await accessToken(app)
  const user = await makeUser(app)
  const headers = Object.entries({ ...bearer(token), ...onBehalfOf(user.id), host: 'sandbox' }).map(([k, v]) => `${k}: ${v}\r\n`).join('')
  const body = JSON.stringify({ tier: 'gold' })
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => { resolve(s) })
    s.on('error', reject)
  })
  t.teardown(() => socket.destroy())
  let text = ''
  let arrived = (): void => {}
  socket.on('data', chunk => { text += chunk.toString('utf8'); arrived() })
  /** Sends one request and waits for its whole answer. */
  const ask = async (request: string): Promise<Answer> => {
    text = ''
    socket.write(request)
    for (;;) {
      try {
        const [answer] = answers(text)
        if (answer !== undefined) return answer
      } catch {}
      await new Promise<void>(resolve => { arrived = resolve })
    }
  }
  // Not pipelined: Node starts a pipelined request before the one ahead of it is answered.
  const written = await ask(`PUT /core/users/me/metadata HTTP/1.1\r\n${headers}content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  t.equal(written.status, 201)
  const after = await ask(`GET /core/users/me/metadata HTTP/1.1\r\n${headers}\r\n`)
  t.equal(after.status, 200)
  t.same(JSON.parse(after.body), JSON.parse(written.body))
  t.match(JSON.parse(after.body), { metadata: { tier: 'gold' } })
  t.equal(after.headers.etag, written.headers.etag)
})

t.test('clients that leave before their answers are written cost the others nothing, and log no error', async t => {
  const before = lines.length
  const leaving = Array.from({ length: 10 }, (_, n) => new Promise<void>(resolve => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(get(`/probe/echo/${n}`))
      socket.destroy()
    })
    socket.on('close', () => { resolve() })
  }))
  const staying = Array.from({ length: 10 }, (_, n) => exchange(get(`/probe/echo/${100 + n}`, true)))
  await Promise.all(leaving)
  const stayed = await Promise.all(staying)
  t.same(stayed.map(({ text }) => JSON.parse(answers(text)[0].body).n), Array.from({ length: 10 }, (_, n) => 100 + n))
  const health = await fetch(`http://127.0.0.1:${port}/_sandbox/health`)
  t.equal(health.status, 200)
  const errors = lines.slice(before).map(line => JSON.parse(line) as { level: number }).filter(line => line.level >= 50)
  t.same(errors, [], 'nothing logged at error level')
})

t.test('a request the parser refuses, in a turn whose answers are held, still gets its 400 before the connection closes', async t => {
  // The valid request ahead of it starts the turn's hold; the refusal is written and the socket closed
  // at the turn's end, so the answer is not lost with the socket.
  const { text } = await exchange(get('/probe/echo/1') + 'THIS IS NOT HTTP\r\n\r\n')
  const refusal = text.slice(text.indexOf('HTTP/1.1 400 '))
  t.match(refusal, /^HTTP\/1\.1 400 /)
  t.match(JSON.parse(answers(refusal)[0].body), { code: 'request_invalid' })
})
