// Run by npm (`npm start`, `npm run replicas`), a script's process is not npm's child but the child
// of the shell npm runs the script in, and npm passes a SIGTERM (how a CI job, a test harness or a
// process manager stops what it started) to that shell alone, which ends without passing it on:
// the script would go on running, orphaned, holding its ports and its database. So, run by npm, it
// watches for its parent to go away and then stops as on SIGTERM. A script of `exec node ...` would
// leave no shell in between, but npm on Windows runs scripts with cmd.exe, which has no `exec`.
// The watch reads the parent's pid five times a second and keeps no process alive.
// CommonJS, as scripts/start.cjs is (it says why).

/** When npm runs `script` (npm_lifecycle_event), calls `stop` once the process's parent is gone. */
function stopWithParent (script, stop) {
  if (process.env.npm_lifecycle_event !== script) return
  const parent = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(watch)
    stop()
  }, 200)
  watch.unref()
}

module.exports = { stopWithParent }
