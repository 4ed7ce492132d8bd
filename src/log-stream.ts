// Standard output for log lines, written in batches: one write per 16 KiB of lines, and at least
// every 100 ms, rather than one per line. Under load, the write system call per line cost more
// than all the rest of a request's logging. sonic-boom (pino's own destination) does the writing,
// with its handling of partial writes, EAGAIN on a non-blocking pipe, and a closed reader. The
// batching is ours: sonic-boom's own (`minLength`) measures the whole pending text again on every
// line, which cost more than the line.
import pino from 'pino'

export interface LogStream {
  write (line: string): boolean
  /** Writes what is pending, now and synchronously (before the process exits). */
  flushSync (): void
}

export function batchedLogStream (fd = 1, options: { maxBytes?: number, intervalMs?: number } = {}): LogStream {
  const maxBytes = options.maxBytes ?? 16 * 1024
  const out = pino.destination({ dest: fd, sync: true })
  // Appended to one string (V8 keeps it as a rope until the write flattens it once), which cost
  // less per line than an array of lines joined at the write.
  let pending = ''
  const flush = (): void => {
    if (pending.length === 0) return
    const chunk = pending
    pending = ''
    out.write(chunk)
  }
  setInterval(flush, options.intervalMs ?? 100).unref()
  return {
    write (line) {
      pending += line
      if (pending.length >= maxBytes) flush()
      return true
    },
    flushSync () {
      flush()
      out.flushSync()
    }
  }
}
