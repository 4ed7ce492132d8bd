// Fastify gives every request a child logger bound to its request id. With redaction configured,
// making one costs more than the rest of the request's logging, and almost no request uses it
// (the request line has its own logger; request.log serves 5xx and debug lines). So the child is
// made on the first line actually written at an enabled level.
import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, Logger } from 'pino'

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

class LazyChildLogger {
  readonly #parent: Logger
  readonly #bindings: Bindings
  readonly #options: ChildLoggerOptions
  #child: Logger | undefined

  constructor (parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
  }

  #real (): Logger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options)
    return this.#child
  }

  get level (): string { return this.#child?.level ?? this.#options.level ?? this.#parent.level }
  set level (level: string) { this.#real().level = level }

  isLevelEnabled (level: string): boolean {
    const values = this.#parent.levels.values
    return values[level] >= values[this.level]
  }

  #log (method: Method, args: unknown[]): void {
    if (this.isLevelEnabled(method)) (this.#real()[method] as (...a: unknown[]) => void)(...args)
  }

  fatal (...args: unknown[]): void { this.#log('fatal', args) }
  error (...args: unknown[]): void { this.#log('error', args) }
  warn (...args: unknown[]): void { this.#log('warn', args) }
  info (...args: unknown[]): void { this.#log('info', args) }
  debug (...args: unknown[]): void { this.#log('debug', args) }
  trace (...args: unknown[]): void { this.#log('trace', args) }
  silent (): void {}
  child (bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger { return this.#real().child(bindings, options) }
  bindings (): Bindings { return this.#real().bindings() }
}

/** Fastify's `childLoggerFactory`: the request's logger, made when first used. */
export function lazyChildLogger (logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger
}
