// Card numbers never reach the request log, a log line or an answer: whatever looks like one is
// masked down to its last four digits, whether or not it passes the Luhn check (a mistyped number
// is still someone's card). What looks like one depends on where it is:
// - in a card's context (a request to the external accounts, a body that is a card), the `number`
//   of a card and any run of 12 to 19 digits, spaces or dashes between them allowed;
// - in a path or a log line's text, any such run standing alone (not part of a word or an id);
// - anywhere else in the request log, a run of 12 to 19 digits that passes the Luhn check (long
//   digit runs that are no card, such as amounts in minor units, stay readable).
import luhn from 'fast-luhn'

// 12 to 19 digits, single spaces or dashes between them: `4111 1111 1111 1111` is one.
const SEPARATED_RUN = /(?<!\d)\d(?:[ -]?\d){11,18}(?!\d)/g
// The same, standing alone: not the tail or the head of a word, an id (a UUID's last group) or a longer run.
const LONE_RUN = /(?<![\w-])\d(?:[ -]?\d){11,18}(?![\w-])/g
const PLAIN_RUN = /(?<!\d)\d{12,19}(?!\d)/g
// Quick refusals: most text has no run of 12 digits in a row, or anything like one.
const MAYBE = /\d[\d -]{11}/

/** A card-number-like run with all but its last four digits masked, separators kept. */
export function maskDigits (run: string): string {
  let keep = 4
  let out = ''
  for (let i = run.length - 1; i >= 0; i--) {
    const ch = run[i]
    if (ch >= '0' && ch <= '9') out = (keep-- > 0 ? ch : '*') + out
    else out = ch + out
  }
  return out
}

/** Every card-number-like run of the text masked, Luhn or not: text in a card's context. */
export const maskCardText = (text: string): string => MAYBE.test(text) ? text.replace(SEPARATED_RUN, maskDigits) : text

/** Runs that stand alone masked, Luhn or not: paths and log lines, which carry ids and times too. */
export const maskLoneRuns = (text: string): string => MAYBE.test(text) ? text.replace(LONE_RUN, maskDigits) : text

/** Runs of 12 to 19 digits that pass the Luhn check masked: text outside a card's context. */
export const maskLuhnRuns = (text: string): string =>
  MAYBE.test(text) ? text.replace(PLAIN_RUN, run => luhn(run) ? maskDigits(run) : run) : text

// A JSON string (escapes included), or a bare JSON number of 12 to 19 digits with the key before it.
const JSON_STRING_OR_LONG_NUMBER = /"(?:[^"\\]|\\.)*"|(?<="((?:[^"\\]|\\.)*)"\s*:\s*)\d{12,19}(?![\d.eE])/g
// Bare numbers a log line holds that are no card: times in milliseconds (13 digits until 2286).
const TIME_KEYS = /(?:^|[^a-z])(?:time|at|ms)$|[Tt]ime$|At$|Ms$/

/**
 * A log line (JSON) with the card-number-like runs of its strings masked, and a bare number of 12
 * to 19 digits turned into its masked text, unless its key says it is a time.
 */
export const maskLogLine = (line: string): string => !MAYBE.test(line)
  ? line
  : line.replace(JSON_STRING_OR_LONG_NUMBER, (match: string, key: string | undefined) => {
    if (match.startsWith('"')) return maskLoneRuns(match)
    return TIME_KEYS.test(key ?? '') ? match : `"${maskDigits(match)}"`
  })

/** Whether a request path is about external accounts, where any card-number-like run is a card's. */
export const isCardPath = (path: string): boolean =>
  /^\/(?:core|_sandbox(?:\/entities)?)\/external-accounts(?:[/?#]|$)/.test(path)

/** Whether an object is a card as a request gives one: `type: card`, or a card's own fields. */
export const isCardLike = (value: Record<string, unknown>): boolean =>
  value.type === 'card' || 'securityCode' in value || 'expiryDate' in value

/** A card's `number` as the log may show it: its last four digits at most, whatever it was sent as. */
export function maskCardNumberField (value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\d(?=(?:\D*\d){4})/g, '*')
  if (typeof value === 'number' || typeof value === 'bigint') return maskCardNumberField(String(value))
  return value === null || value === undefined ? value : '[redacted]'
}
