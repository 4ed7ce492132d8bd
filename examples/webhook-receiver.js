// A webhook receiver for trying the sandbox out: it verifies each delivery's Standard Webhooks
// signature with the endpoint's secret and prints one line per delivery.
//
//   WEBHOOK_SECRET=whsec_... PORT=4000 node examples/webhook-receiver.js
//
// Prints `listening on <url>` once ready, then `verified <event type> <webhook-id>` and answers 204, or `rejected <reason>` and answers
// 400 (the sandbox then retries the delivery).
import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'

const secret = process.env.WEBHOOK_SECRET
if (secret === undefined || !secret.startsWith('whsec_')) {
  console.error('Set WEBHOOK_SECRET to the endpoint\'s signing secret (whsec_...).')
  process.exit(2)
}
const webhook = new Webhook(secret)

createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', chunk => { body += chunk })
  req.on('end', () => {
    try {
      // Throws unless the body was signed with the secret, and signed in the last 5 minutes.
      const event = webhook.verify(body, req.headers)
      console.log(`verified ${event.type} ${req.headers['webhook-id']}`)
      res.writeHead(204).end()
    } catch (err) {
      console.log(`rejected ${err.message}`)
      res.writeHead(400).end()
    }
  })
}).listen(Number(process.env.PORT ?? 4000), '127.0.0.1', function () {
  console.log(`listening on http://127.0.0.1:${this.address().port}`)
})
