// Answers for requests Node's HTTP parser refuses before Fastify sees them (malformed requests,
// oversized headers, slow clients): still the API's envelope and the request-id header, and the
// OAuth 2.0 error body when the request was for the token endpoint.
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'

const TOKEN_PATH = '/core/oauth2/token'

/**
 * Method and path of the refused request: the last request line in the bytes the parser read up
 * to the error. On a kept-alive connection they may begin with the end of an earlier body, with no
 * line break before the request, so a method is read as the capitals just before the path.
 */
function requestLine (err: NodeJS.ErrnoException): { method: string, path: string } | undefined {
  const { rawPacket, bytesParsed } = err as { rawPacket?: Buffer, bytesParsed?: number }
  if (rawPacket === undefined) return undefined
  const text = rawPacket.subarray(0, Math.min(bytesParsed ?? rawPacket.length, 1 << 20)).toString('latin1')
  let line: RegExpExecArray | undefined
  // A line starting the text or a line of it, with any target; or a method just before a path.
  // The line may be cut short (an overlong URL overflows the header limit before it ends).
  for (const m of text.matchAll(/(?:^|\n)([A-Z]+) ([^ \r\n]*)|([A-Z]+) (\/[^ \r\n]*)/g)) {
    if (line === undefined || m.index > line.index) line = m
  }
  if (line === undefined) return undefined
  return { method: line[1] ?? line[3], path: (line[2] ?? line[4]).split(/[?#]/)[0] }
}

export function clientErrorHandler (serviceName: string) {
  return function onClientError (err: NodeJS.ErrnoException, socket: Socket): void {
    // Answered already: the parser may report the same connection again before it closes.
    if (err.code === 'ECONNRESET' || socket.destroyed || socket.writableEnded) return
    let status = 400
    let body: Record<string, unknown> = { code: 'request_invalid', message: 'The request has missing or invalid parameters', details: { context: 'headers', violations: [{ property: '', rule: 'http' }] } }
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      status = 408
      body = { code: 'request_timeout', message: 'The request was not received in time' }
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      status = 431
      body = { code: 'headers_too_large', message: 'The request headers are greater than maximum size limit', details: { threshold: { unit: 'bytes', limit: String(http.maxHeaderSize) } } }
    }
    const line = requestLine(err)
    let extra = ''
    if (line?.method.endsWith('POST') === true && line.path === TOKEN_PATH) {
      body = { error: 'invalid_request', error_description: status === 400 ? 'The request is malformed' : String(body.message) }
      extra = 'Cache-Control: no-store\r\nPragma: no-cache\r\n'
    }
    const text = JSON.stringify(body)
    if (socket.writable) {
      // The answer to a HEAD request has no body (RFC 9110 9.3.2), refused or not.
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nx-${serviceName}-request-id: ${randomUUID()}\r\n${extra}` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${line?.method.endsWith('HEAD') === true ? '' : text}`)
    }
    // Closed at the end of the turn, not now: the answer may be held until then with the turn's
    // others (src/http/answers-at-turn-end.ts), and a socket destroyed first would lose it.
    setImmediate(() => socket.destroy())
  }
}
