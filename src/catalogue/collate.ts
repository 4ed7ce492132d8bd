// The order of asset codes and names in lists: English collation, as `localeCompare(other, 'en')`
// gives it, without loading ICU's collation data where it is not needed. That data is 2 to 3 MB of
// the `node` binary's pages, resident for the rest of the process once any comparison touches it,
// and the default list (`sort=code:asc`) compared codes with it on every request.
//
// For text of ASCII letters, digits and spaces, English collation is: compare ignoring case
// (space before digits before letters, as in ASCII); when equal so, the first position where the
// case differs puts the lowercase letter first. Anything else (accents, punctuation, other
// scripts) is left to ICU. A property test checks the two agree on that alphabet.
const PLAIN = /^[A-Za-z0-9 ]*$/

export function compareText (a: string, b: string): number {
  if (!PLAIN.test(a) || !PLAIN.test(b)) return a.localeCompare(b, 'en')
  const la = a.toLowerCase()
  const lb = b.toLowerCase()
  if (la !== lb) return la < lb ? -1 : 1
  for (let i = 0; i < a.length; i++) {
    // Same letters, case apart: lowercase (the higher code unit) first.
    if (a[i] !== b[i]) return a.charCodeAt(i) > b.charCodeAt(i) ? -1 : 1
  }
  return 0
}
