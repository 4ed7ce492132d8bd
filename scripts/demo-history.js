// A user with a year of history for a demo, made through a running sandbox's API and control API:
//
//   npm run demo:history -- [--url http://127.0.0.1:8080] [--weeks 52] [--service-name service]
//                           [--client-id sandbox-demo-client] [--client-secret sandbox-demo-secret] [--admin-token T]
//
// The history is src/scenarios/history.ts's (built into dist/ by `npm run demo:history`), the one
// `POST /_sandbox/scenarios/history` makes in process. It prints the user id and its accounts: act
// for the user with `X-On-Behalf-Of: user <id>` and read `/core/portfolio...` and
// `/core/statements/...`. The clock is the whole sandbox's: run it on a sandbox of its own.
import { demoHistory } from '../dist/src/scenarios/history.js'

function flags (argv) {
  const out = {}
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase())
    out[name] = argv[i + 1]
  }
  return out
}

const { url = 'http://127.0.0.1:8080', weeks = '52', ...rest } = flags(process.argv.slice(2))
const request = async (method, path, { body, headers = {} } = {}) => {
  const json = body !== undefined && typeof body !== 'string'
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(json ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : json ? JSON.stringify(body) : body
  })
  const text = await res.text()
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) }
}
const result = await demoHistory({ request, weeks: Number(weeks), ...rest, log: line => { process.stderr.write(`${line}\n`) } })
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
