// What the bundle's fixes to postgres.js share (scripts/postgres-queue.js,
// scripts/postgres-connection.js, scripts/postgres-transaction.js): a module's source with each
// original text replaced by its fixed text, refused when an original is missing (a release changed
// the module), and the pattern esbuild's path of that module matches in either of the package's
// builds.

/**
 * `source` (any line endings) with each `[original, fixed]` of `replacements` applied; throws,
 * naming `module` and the script `by`, when an original is not in it.
 */
export function patchModule (source, module, by, replacements) {
  const text = source.replace(/\r\n/g, '\n')
  if (replacements.some(([original]) => !text.includes(original))) {
    throw new Error(`postgres.js's ${module} is not the source ${by} was written for: check whether the fix is still needed, and update or remove it`)
  }
  return replacements.reduce((patched, [original, fixed]) => patched.replace(original, fixed), text)
}

/** Matches `node_modules/postgres/src/<module>` and `.../cjs/src/<module>`, as esbuild names them. */
export const postgresModule = (module) => new RegExp(`[\\\\/]node_modules[\\\\/]postgres[\\\\/](?:cjs[\\\\/])?src[\\\\/]${module.replace('.', '\\.')}$`)
