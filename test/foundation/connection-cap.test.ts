// MAX_CONNECTIONS: beyond the cap a new connection is closed at once, while the open ones are served.
// Real sockets, on 127.0.0.1 only, a handful of them, each wait bounded.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { build } from '../helpers.js'
import { loadConfig } from '../../src/config.js'

const HEALTH = 'GET /_sandbox/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'

/** A connection with one answered request on it: resolves once its first answer has arrived. */
function openServed (port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => { socket.write(HEALTH) })
    socket.setTimeout(5000, () => { socket.destroy(); reject(new Error('no answer within 5 s')) })
    socket.once('data', chunk => {
      socket.setTimeout(0)
      if (/^HTTP\/1\.1 200 /.test(chunk.toString())) resolve(socket)
      else reject(new Error(`unexpected answer ${chunk.toString().slice(0, 40)}`))
    })
    socket.once('error', reject)
  })
}

/** What happens to a new connection that sends a request: its answer, or 'closed' when it is closed unanswered. */
function attempt (port: number): Promise<string> {
  return new Promise(resolve => {
    let answer = ''
    const socket = connect(port, '127.0.0.1', () => { socket.write(HEALTH) })
    socket.setTimeout(5000, () => { socket.destroy(); resolve('no answer within 5 s') })
    socket.on('data', chunk => { answer += chunk.toString(); if (answer.includes('\r\n\r\n')) socket.destroy() })
    socket.on('error', () => {})
    socket.on('close', () => { resolve(answer === '' ? 'closed' : answer.split('\r\n')[0]) })
  })
}

/** A request on an open connection: its status line. */
function again (socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.setTimeout(5000, () => reject(new Error('no answer within 5 s')))
    socket.once('data', chunk => { socket.setTimeout(0); resolve(chunk.toString().split('\r\n')[0]) })
    socket.write(HEALTH)
  })
}

t.test('MAX_CONNECTIONS defaults to 1024 and is checked', async t => {
  t.equal(loadConfig({}).maxConnections, 1024)
  t.equal(loadConfig({ MAX_CONNECTIONS: '10' }).maxConnections, 10)
  t.throws(() => loadConfig({ MAX_CONNECTIONS: '0' }), { name: 'ConfigError', message: /^MAX_CONNECTIONS must be a whole number from 1 to 1000000/ })
})

t.test('connections beyond the cap are closed unanswered while the open ones are served', async t => {
  const app = await build(t, { maxConnections: 3 })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const open: Socket[] = []
  t.teardown(() => { for (const s of open) s.destroy() })
  for (let i = 0; i < 3; i++) open.push(await openServed(port))

  t.equal(await attempt(port), 'closed', 'a fourth connection is closed without an answer')
  t.equal(await attempt(port), 'closed', 'and a fifth')
  for (const socket of open) t.equal(await again(socket), 'HTTP/1.1 200 OK', 'an open connection is still served')

  // Once one closes, there is room again (the server sees the close a moment later).
  open.shift()!.destroy()
  let status = 'closed'
  for (let i = 0; i < 50 && status === 'closed'; i++) {
    await new Promise(resolve => setTimeout(resolve, 20))
    status = await attempt(port)
  }
  t.equal(status, 'HTTP/1.1 200 OK', 'a new connection is served once there is room')
})
