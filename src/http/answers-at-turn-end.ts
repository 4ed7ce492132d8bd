// The bytes of every answer made during one turn of the event loop go to their sockets together, at
// the end of the turn (setImmediate), instead of one socket write as each answer is ready.
//
// Why: under load a turn answers a request on most busy connections. On loopback, a socket write
// runs the receiving side's TCP path in the writer's context and wakes the client if it sleeps; a
// client that has finished reading the previous answer sleeps, so each write paid for a wake-up
// (through the hypervisor on a virtual machine). In a CPU profile of the metadata GET under the
// bench's load, the socket writes were 45 % of the server's busy time, where the bare Fastify route
// spends a fraction of that for the same bytes. Written together, the first write of a turn wakes
// the client and the others find it awake (BENCHMARKS.md, nineteenth stop).
//
// How: each accepted plain-TCP socket's `_write` and `_writev` (the hooks through which the stream
// hands its bytes to the kernel) queue the write, and the turn's end performs it with Node's own
// implementation. Until then the stream counts the write as in progress, as it does for a write
// the kernel has not taken yet: later writes queue behind it in order, `end()` waits for it, and a
// socket destroyed meanwhile gets Node's "socket closed" error at the turn's end, as any write to a
// closed socket does. An answer waits at most for the rest of its own turn. TLS sockets write from
// native code and are left as they are.
//
// Only the answers of requests that came in during the turn are held: once the turn's held writes
// are out, writes go straight to their sockets until a new request comes. So the answers of a
// group commit (made after its COMMIT, at the end of the turn) go out at once, as before: held to
// the next turn, they made the next groups half as large and the mixed workload slower. And the
// answers already made go out before SQLite's COMMIT holds the event loop for the disk
// (`aboutToBlock` in src/turn-batch.ts).
import type { Server } from 'node:http'
import { Socket } from 'node:net'
import { flushBeforeBlocking } from '../turn-batch.js'

type Callback = (error?: Error | null) => void
type Chunks = Array<{ chunk: unknown, encoding: BufferEncoding }>

interface Held {
  socket: Socket
  /** One chunk (`_write`) or several (`_writev`). */
  chunks: Chunks | undefined
  chunk: unknown
  /** Of `chunk`, when it is a string. */
  encoding: BufferEncoding
  callback: Callback
}

const nodeWrite = Socket.prototype._write
// Node's net.Socket always has `_writev`; the types call it optional.
const nodeWritev = Socket.prototype._writev as NonNullable<Socket['_writev']>

// One queue for every server of the process (the tests build many): each held write names its socket.
let held: Held[] = []
/** A request came in since the last flush: writes are held until the end of the turn. */
let holding = false
let scheduled = false

function write (h: Held): void {
  try {
    if (h.chunks === undefined) nodeWrite.call(h.socket, h.chunk, h.encoding, h.callback)
    else nodeWritev.call(h.socket, h.chunks, h.callback)
  } catch (error) {
    // Node reports a failed write through the callback; should it throw instead, the stream still
    // hears of it (and destroys the socket) rather than wait for a callback that never comes.
    h.callback(error as Error)
  }
}

/** Writes every held answer now; until the next request, writes are not held. */
function flush (): void {
  scheduled = false
  holding = false
  if (held.length === 0) return
  const now = held
  held = []
  for (const h of now) write(h)
}
flushBeforeBlocking(flush)

function hold (h: Held): void {
  if (!scheduled) {
    scheduled = true
    setImmediate(flush)
  }
  held.push(h)
}

function heldWrite (this: Socket, chunk: unknown, encoding: BufferEncoding, callback: Callback): void {
  if (holding) hold({ socket: this, chunks: undefined, chunk, encoding, callback })
  else nodeWrite.call(this, chunk, encoding, callback)
}

function heldWritev (this: Socket, chunks: Chunks, callback: Callback): void {
  if (holding) hold({ socket: this, chunks, chunk: undefined, encoding: 'utf8', callback })
  else nodeWritev.call(this, chunks, callback)
}

function requestCame (): void { holding = true }

/** Holds the socket writes of a server's connections until the end of each turn. */
export function answersAtTurnEnd (server: Server): void {
  server.prependListener('request', requestCame)
  server.on('connection', (socket: Socket) => {
    socket._write = heldWrite
    socket._writev = heldWritev
  })
}
