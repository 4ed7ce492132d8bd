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
  let lines: string[] = []
  let length = 0
  const flush = (): void => {
    if (lines.length === 0) return
    const chunk = lines.join('')
    lines = []
    length = 0
    out.write(chunk)
  }
  setInterval(flush, options.intervalMs ?? 100).unref()
  return {
    write (line) {
      lines.push(line)
      length += line.length
      if (length >= maxBytes) flush()
      return true
    },
    flushSync () {
      flush()
      out.flushSync()
    }
  }
}
