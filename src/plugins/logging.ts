// Fastify gives every request a child logger bound to its request id. With redaction configured,
// making one costs more than the rest of the request's logging, and almost no request uses it
// (the request line has its own logger; request.log serves 5xx and debug lines). So the child is
// made on the first line actually written at an enabled level.
//
// The laziness sits in the `child` of Fastify's logger, not in Fastify's `childLoggerFactory`
// option: Fastify checks every logger a factory of ours returns, seven method lookups and an array
// per request, and checks none from its default factory, which calls `logger.child`.
import type { Bindings, ChildLoggerOptions, Logger } from 'pino'

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

type MakeChild = (parent: Logger, bindings: Bindings, options: ChildLoggerOptions) => Logger

class LazyChildLogger {
  readonly #parent: Logger
  readonly #make: MakeChild
  readonly #bindings: Bindings
  readonly #options: ChildLoggerOptions
  #child: Logger | undefined

  constructor (parent: Logger, make: MakeChild, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent
    this.#make = make
    this.#bindings = bindings
    this.#options = options
  }

  #real (): Logger {
    this.#child ??= this.#make(this.#parent, this.#bindings, this.#options)
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
  child (bindings: Bindings, options?: ChildLoggerOptions): Logger { return this.#real().child(bindings, options) }
  bindings (): Bindings { return this.#real().bindings() }
}

/**
 * Makes `logger.child()` lazy: it answers a logger that makes the real child on its first line at
 * an enabled level. Real children inherit the lazy `child` (pino makes them from their parent).
 */
export function withLazyChildren (logger: Logger): Logger {
  const make = Object.getPrototypeOf(logger).child as (this: Logger, bindings: Bindings, options?: ChildLoggerOptions) => Logger
  const real: MakeChild = (parent, bindings, options) => make.call(parent, bindings, options)
  logger.child = function (this: Logger, bindings: Bindings, options: ChildLoggerOptions = {}) {
    return new LazyChildLogger(this, real, bindings, options) as unknown as Logger
  } as unknown as Logger['child']
  return logger
}
