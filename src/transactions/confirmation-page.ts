// The 3-D Secure confirmation page the sandbox serves at a card transaction's `confirmationUrl`:
// one self-contained HTML document (no scripts, no external resources) with an Approve and a
// Decline button that post the end user's answer back to the same address.
import type { TransactionRecord } from './store.js'

/** Nothing loads from anywhere; only the inline style applies. The form posts to this page. */
export const CONFIRMATION_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"

const escape = (text: string): string => text.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)

export function confirmationPage (t: TransactionRecord): string {
  const pending = t.status === 'processing' && t.authorization === '3ds'
  const { origin, destination } = t.body
  const question = pending
    ? `<p>Confirm the card payment of <strong>${escape(origin.amount)} ${escape(origin.asset)}</strong> for ${escape(destination.amount)} ${escape(destination.asset)}.</p>
    <form method="post">
      <button type="submit" name="decision" value="approve">Approve</button>
      <button type="submit" name="decision" value="decline" class="decline">Decline</button>
    </form>`
    : `<p>This payment needs no confirmation any more: the transaction is <strong>${escape(t.status)}</strong>.</p>`
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>3-D Secure confirmation (sandbox)</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 4rem auto; padding: 0 1rem; color: #1b1f24; }
    .card { border: 1px solid #d0d7de; border-radius: .5rem; padding: 1.5rem; }
    h1 { font-size: 1.25rem; margin-top: 0; }
    small { color: #57606a; }
    form { display: flex; gap: .75rem; margin-top: 1.5rem; }
    button { flex: 1; font-size: 1rem; padding: .6rem; border-radius: .4rem; border: 1px solid #1f6feb; background: #1f6feb; color: #fff; cursor: pointer; }
    button.decline { background: #fff; color: #cf222e; border-color: #cf222e; }
  </style>
</head>
<body>
  <main class="card">
    <h1>3-D Secure confirmation</h1>
    ${question}
    <small>Sandbox page: no bank is contacted. Transaction ${escape(t.id)}.</small>
  </main>
</body>
</html>
`
}
