// `npm start`: runs the build in dist/ (made once, by `npm ci` or `npm run build`), after checking
// that it is there and not older than the sources, in this same process: the check costs a few
// milliseconds, a rebuild at every start cost eight seconds.
import { fileURLToPath } from 'node:url'
import { buildProblem } from './build-check.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const problem = buildProblem(root)
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`)
  process.exit(1)
}
await import('../dist/server.js')
