// The text a request log entry is kept as: each field is its length (in UTF-16 code units), a
// colon, and the field as it is, so nothing needs escaping when a request is recorded. JSON text
// did the same job, but JSON.stringify of every entry cost more than all the rest of recording.
// A null field is `~`. Header values and bodies that are not strings are kept as JSON (tagged).
// Lengths survive the UTF-8 of the log's pages (packed-texts.ts): a lone surrogate comes back as
// U+FFFD, one code unit too.

/** Builds an entry's text, field after field. */
export class EntryWriter {
  text = ''

  string (value: string): this {
    this.text += `${value.length}:${value}`
    return this
  }

  nullable (value: string | null): this {
    if (value === null) this.text += '~'
    else this.text += `${value.length}:${value}`
    return this
  }

  number (value: number): this {
    return this.string(String(value))
  }

  /** A JSON value, `undefined` kept as null. */
  json (value: unknown): this {
    return this.string(JSON.stringify(value) ?? 'null')
  }

  /** A header value: a string as it is, anything else (a number, a list) as JSON. */
  headerValue (value: unknown): this {
    return typeof value === 'string' ? this.string('s' + value) : this.string('j' + (JSON.stringify(value) ?? 'null'))
  }
}

/** Reads an entry's text back, field after field, in the order it was written. */
export class EntryReader {
  readonly #text: string
  #at = 0

  constructor (text: string) {
    this.#text = text
  }

  nullable (): string | null {
    if (this.#text[this.#at] === '~') {
      this.#at++
      return null
    }
    const colon = this.#text.indexOf(':', this.#at)
    const length = Number(this.#text.slice(this.#at, colon))
    if (colon < 0 || !Number.isInteger(length)) throw new Error('request log entry: bad field')
    this.#at = colon + 1 + length
    return this.#text.slice(colon + 1, this.#at)
  }

  string (): string {
    const value = this.nullable()
    if (value === null) throw new Error('request log entry: missing field')
    return value
  }

  number (): number {
    return Number(this.string())
  }

  json (): unknown {
    return JSON.parse(this.string())
  }

  headerValue (): unknown {
    const tagged = this.string()
    return tagged[0] === 's' ? tagged.slice(1) : JSON.parse(tagged.slice(1))
  }
}
