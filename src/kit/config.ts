// How a configuration variable is declared: by the core (src/config.ts) or by the area that reads
// it (`config` of its `defineArea`). src/config.ts reads every declared variable from the
// environment once; the variables' table (docs/configuration.md) and `.env.example` are generated
// from the same declarations (`npm run docs:config`).

export class ConfigError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

/**
 * One environment variable: its name, the documented default, what it means, and how its text
 * becomes the value of `app.config[key]`.
 */
export interface ConfigVariable<K extends string = string, T = unknown> {
  /** The property of `app.config` that holds the value. */
  key: K
  /** The environment variable. */
  name: string
  /** A command-line flag that overrides it (`--port`). */
  flag?: string
  /** The text read when the variable is unset; absent: the value is read from undefined. */
  default?: string
  /** An empty value is read as itself (an empty list), not as unset. */
  keepsEmpty?: boolean
  /** The default as the documentation shows it, when it is not `default` (one computed at start). */
  shownDefault?: string
  description: string
  /**
   * The value from the variable's text: the environment's when it is set and not empty, else
   * `default`. Throws a ConfigError that names the variable and what it accepts.
   */
  parse: (raw: string | undefined) => T
}

/** Declares a variable: the type keeps its key and the type of its value. */
export const variable = <const K extends string, T>(v: ConfigVariable<K, T>): ConfigVariable<K, T> => v

/** The values of some variables, keyed as `app.config` holds them. */
export type ConfigValues<V extends readonly ConfigVariable[]> = {
  [E in V[number] as E['key']]: ReturnType<E['parse']>
}

/** A whole number from `min` to `max`, with a default. */
export function integerVariable<const K extends string> (v: { key: K, name: string, flag?: string, default: number, min: number, max: number, description: string }): ConfigVariable<K, number> {
  return {
    key: v.key,
    name: v.name,
    ...(v.flag === undefined ? {} : { flag: v.flag }),
    default: String(v.default),
    description: v.description,
    parse: raw => {
      const text = (raw ?? String(v.default)).trim()
      const value = Number(text)
      if (!/^\d+$/.test(text) || value < v.min || value > v.max) throw new ConfigError(`${v.name} must be a whole number from ${v.min} to ${v.max}; got "${raw ?? ''}"`)
      return value
    }
  }
}

/** A name: lowercase letters, digits and dashes, starting with a letter (a header or path segment). */
export function nameVariable<const K extends string> (v: { key: K, name: string, default: string, description: string }): ConfigVariable<K, string> {
  return {
    ...v,
    parse: raw => {
      const value = raw ?? v.default
      if (!/^[a-z][a-z0-9-]{0,62}$/.test(value)) throw new ConfigError(`${v.name} must be lowercase letters, digits and dashes, starting with a letter; got "${value}"`)
      return value
    }
  }
}

/** An optional text: undefined when unset. */
export function optionalVariable<const K extends string> (v: { key: K, name: string, flag?: string, description: string }): ConfigVariable<K, string | undefined> {
  return { ...v, parse: raw => raw }
}

/** The environment (and flags) the variables are read from. */
export type ConfigSource = Record<string, string | undefined>

/**
 * Reads each variable from `source`. An error that does not name its variable (a parser's own) is
 * made into a ConfigError that does.
 */
export function readVariables (variables: readonly ConfigVariable[], source: ConfigSource): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const v of variables) {
    const set = source[v.name]
    const raw = set !== undefined && (set !== '' || v.keepsEmpty === true) ? set : v.default
    try {
      out[v.key] = v.parse(raw)
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      if (err instanceof ConfigError && message.includes(v.name)) throw err
      throw new ConfigError(`${v.name}: ${message}`)
    }
  }
  return out
}
