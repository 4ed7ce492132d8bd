// `node --import ./scripts/postgres-fixes.js`: postgres.js with the bundle's fixes (the modules
// scripts/postgres-fixes-list.js names, each fix's script says why) when the server runs from its
// sources: the suite (package.json's tap settings), `npm run dev` and the tests' servers. The
// bundle applies the same fixes when it is built (scripts/bundle.js), so the server behaves the same
// from its sources as from its build. A module hook (Node's `module.register`, run on the loader's
// thread) changes those modules' sources as they load; nothing else passes through it changed.
import { register } from 'node:module'

register('./postgres-fixes-hooks.js', import.meta.url)
