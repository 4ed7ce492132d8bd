// Whether this Node.js can install, build, test and develop the sandbox: `npm run build` (and so
// `npm ci`, whose `prepare` script builds), `npm test` and `npm run dev` run it first.
// Some dependencies (light-my-request's `cookie`, @fastify/static's `content-disposition`) ship
// only as ES modules and are loaded with `require()`, which Node.js does from 20.19 and 22.12 on
// (`process.features.require_module`); before those, the build's warm-up (Fastify's `inject`)
// failed with ERR_REQUIRE_ESM halfway through `npm ci`. The capability is checked, not a version
// number, so a Node started with `--no-experimental-require-module` is refused for the same reason.
// The built server bundles those modules and needs only Node 20.12 (`crypto.hash`); package.json's
// `engines` names the versions that can do everything.
// CommonJS, as scripts/start.cjs is: it must load on any Node to say what is wrong.

/** Undefined when `features` and `version` can run the project; else what is wrong and what to do. */
function nodeProblem (features = process.features, version = process.version) {
  if (features.require_module === true) return undefined
  return 'This project needs Node.js 20.19 or later (22.12 or later on Node 22): they load ES modules with require(). ' +
    `This is ${version}${features.require_module === false ? ', started with --no-experimental-require-module' : ''}.`
}

if (require.main === module) {
  const problem = nodeProblem()
  if (problem !== undefined) {
    process.stderr.write(`${problem}\n`)
    process.exit(1)
  }
}

module.exports = { nodeProblem }
