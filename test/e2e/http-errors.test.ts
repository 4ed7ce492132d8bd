// What a client sees when Node's HTTP parser refuses its request: still JSON in the API's
// envelope, with the request-id header.
import t from 'tap'
import { connect } from 'node:net'
import { build, UUID_RE } from '../helpers.js'

function raw (port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request))
    let data = ''
    socket.on('data', chunk => { data += chunk.toString() })
    socket.on('close', () => resolve(data))
    socket.on('error', reject)
  })
}

t.test('malformed requests and oversized headers get the API envelope', async t => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port

  const garbage = await raw(port, 'THIS IS NOT HTTP\r\n\r\n')
  t.match(garbage, /^HTTP\/1\.1 400 /)
  t.match(garbage, /x-service-request-id: [0-9a-f-]{36}/)
  const body = JSON.parse(garbage.split('\r\n\r\n')[1])
  t.equal(body.code, 'request_invalid')

  const huge = await raw(port, `GET /_sandbox/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
  t.match(huge, /^HTTP\/1\.1 431 /)
  const hugeBody = JSON.parse(huge.split('\r\n\r\n')[1])
  t.equal(hugeBody.code, 'headers_too_large')
  const id = /x-service-request-id: ([0-9a-f-]{36})/.exec(huge)?.[1]
  t.match(id, UUID_RE)

  const health = await fetch(`http://127.0.0.1:${port}/_sandbox/health`)
  t.equal(health.status, 200, 'still healthy afterwards')
})
