// `npm start`: runs the build in dist/ (made once, by `npm ci` or `npm run build`), after checking
// that it is there and not older than the sources, in this same process: the check costs a few
// milliseconds, a rebuild at every start cost eight seconds.
// CommonJS, as the build check and dist/server.cjs are: an ES module anywhere on the way makes Node
// load its ES module loader, about 15 ms of every start under the V8 flags of `npm start` (which
// keep Node from using the compiled code it carries for its own modules).
const { join } = require('node:path')
const { buildProblem } = require('./build-check.cjs')

const problem = buildProblem(join(__dirname, '..'))
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`)
  process.exit(1)
}
// Run by `npm start`, this process is not npm's child but the child of the shell npm runs the script
// in, and npm passes a SIGTERM (how a CI job, a test harness or a process manager stops what it
// started) to that shell alone, which ends without passing it on: the sandbox would go on running,
// orphaned, holding its port and its database. So it watches for its parent to go away and then
// stops as on SIGTERM (finishing what is in flight, closing the database). A start script of
// `exec node ...` would leave no shell in between, but npm on Windows runs scripts with cmd.exe,
// which has no `exec`. The check reads the parent's pid five times a second.
if (process.env.npm_lifecycle_event === 'start') {
  const parent = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(watch)
    process.kill(process.pid, 'SIGTERM')
  }, 200)
  watch.unref()
}
require('../dist/server.cjs')
