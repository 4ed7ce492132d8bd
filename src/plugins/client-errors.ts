// Answers for requests Node's HTTP parser refuses before Fastify sees them (malformed requests,
// oversized headers, slow clients): still the API's envelope and the request-id header.
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'

export function clientErrorHandler (serviceName: string) {
  return function onClientError (err: NodeJS.ErrnoException, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return
    let status = 400
    let body: Record<string, unknown> = { code: 'request_invalid', message: 'The request has missing or invalid parameters', details: { context: 'headers', violations: [{ property: '', rule: 'http' }] } }
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      status = 408
      body = { code: 'request_timeout', message: 'The request was not received in time' }
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      status = 431
      body = { code: 'headers_too_large', message: 'The request headers are greater than maximum size limit', details: { threshold: { unit: 'bytes', limit: String(http.maxHeaderSize) } } }
    }
    const text = JSON.stringify(body)
    if (socket.writable) {
      socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nx-${serviceName}-request-id: ${randomUUID()}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`)
    }
    socket.destroy()
  }
}
