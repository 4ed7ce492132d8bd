// The bench scripts' command lines: node's parseArgs, with `--help` (the script's opening comment,
// which is its manual) and a one-line message with exit code 2 for an unknown flag, a missing
// value or a number that is not one, instead of a stack trace or a run that measures nothing.
import { readFileSync } from 'node:fs'
import { basename, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

/** The opening `//` comment of a script, without the slashes. */
export function openingComment (source) {
  const lines = []
  for (const line of source.split('\n')) {
    if (!line.startsWith('//')) break
    lines.push(line.replace(/^\/\/ ?/, ''))
  }
  return lines.join('\n')
}

/**
 * parseArgs over the command line of the script at `scriptUrl` (its import.meta.url). `numbers`
 * names the options that must be numbers when given, each with its least value; `check` looks at
 * the values and the positionals and answers what is wrong with them, if anything. Answers
 * parseArgs' result, or prints the manual (`--help`) or the problem, and exits.
 */
export function benchArgs (scriptUrl, config, { numbers = {}, check = () => undefined } = {}) {
  const argv = process.argv.slice(2)
  const file = fileURLToPath(scriptUrl)
  const name = relative(process.cwd(), file).startsWith('..') ? basename(file) : relative(process.cwd(), file)
  const fail = (message) => {
    process.stderr.write(`${name}: ${message} (--help lists the options)\n`)
    return process.exit(2)
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(openingComment(readFileSync(file, 'utf8')) + '\n')
    return process.exit(0)
  }
  let parsed
  try {
    parsed = parseArgs({ ...config, args: argv })
  } catch (error) {
    // Node's own message on one line, without its advice about positionals, which none of these
    // scripts take.
    return fail(String(error.message).replace(/\. To specify a positional argument.*$/s, '').replace(/\s*\n\s*/g, ' '))
  }
  for (const [option, least] of Object.entries(numbers)) {
    const raw = parsed.values[option]
    if (raw === undefined) continue
    const n = Number(raw)
    if (raw.trim() === '' || !Number.isFinite(n) || n < least) return fail(`--${option} takes a number of at least ${least}, not "${raw}"`)
  }
  const problem = check(parsed.values, parsed.positionals)
  return problem === undefined ? parsed : fail(problem)
}
