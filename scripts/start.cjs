// `npm start`: runs the build in dist/ (made once, by `npm ci` or `npm run build`), after checking
// that it is there and not older than the sources, in this same process: the check costs a few
// milliseconds, a rebuild at every start cost eight seconds.
// CommonJS, as the build check and dist/server.cjs are: an ES module anywhere on the way makes Node
// load its ES module loader, about 15 ms of every start under the V8 flags of `npm start` (which
// keep Node from using the compiled code it carries for its own modules).
const { join } = require('node:path')
const { buildProblem } = require('./build-check.cjs')
const { stopWithParent } = require('./stop-with-parent.cjs')

const problem = buildProblem(join(__dirname, '..'))
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`)
  process.exit(1)
}
// Stopped with npm, a SIGTERM sent to npm alone included (stop-with-parent.cjs says why).
stopWithParent('start', () => process.kill(process.pid, 'SIGTERM'))
require('../dist/server.cjs')
