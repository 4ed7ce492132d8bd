// The portal's HTML: one page for a valid link, and the pages of an expired or unknown link. Served
// by the app with its CSS and script (assets.ts); nothing is fetched from elsewhere.
import { EVENT_TYPES } from '../../../schemas/webhooks.js'

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** `2025-03-01 17:40:28 UTC`: the sandbox clock is shown in UTC, whatever the browser's zone. */
const readable = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC')

// Assets are addressed relative to the page (`/webhooks/portal/<token>` → `/webhooks/portal/assets/...`)
// so the portal also works behind a proxy that adds a path prefix.
function layout (title: string, header: string, main: string, script: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="assets/portal.css">
${script ? '<script src="assets/portal.js" defer></script>\n' : ''}</head>
<body>
<header class="top"><div class="wrap">${header}</div></header>
<main class="wrap">
${main}
</main>
</body>
</html>
`
}

const eventTypeOptions = (): string => Object.entries(EVENT_TYPES).map(([type, label]) =>
  `<label class="check"><input type="checkbox" name="eventTypes" value="${escapeHtml(type)}"><span><code>${escapeHtml(type)}</code><small>${escapeHtml(label)}</small></span></label>`
).join('\n')

export function portalPage (organizationId: string, expiresAt: string): string {
  const header = `<h1>Webhooks</h1>
<p class="sub">Organization <code>${escapeHtml(organizationId)}</code> · This link expires <time datetime="${escapeHtml(expiresAt)}">${escapeHtml(readable(expiresAt))}</time></p>`
  const main = `<div id="portal" data-expires-at="${escapeHtml(expiresAt)}">
<section class="card" aria-labelledby="add-title">
  <h2 id="add-title">Add endpoint</h2>
  <form id="add-endpoint" novalidate>
    <div class="field">
      <label for="endpoint-url">Endpoint URL</label>
      <input id="endpoint-url" name="url" type="url" required maxlength="2048" placeholder="https://example.com/webhooks" autocomplete="off" spellcheck="false">
    </div>
    <div class="field">
      <label for="endpoint-description">Description <span class="optional">(optional)</span></label>
      <input id="endpoint-description" name="description" type="text" maxlength="255" autocomplete="off">
    </div>
    <details class="field event-filter">
      <summary>Event types: <span id="event-filter-summary">all</span></summary>
      <fieldset>
        <legend>Deliver only these event types (none checked: every event type)</legend>
        <div class="event-types">
${eventTypeOptions()}
        </div>
      </fieldset>
    </details>
    <p id="add-error" class="error" role="alert" hidden></p>
    <button type="submit" class="primary">Add endpoint</button>
  </form>
</section>
<section aria-labelledby="endpoints-title">
  <h2 id="endpoints-title">Endpoints</h2>
  <p id="endpoints-empty" class="empty">No endpoints yet. Add one above to start receiving events.</p>
  <ul id="endpoints" class="endpoints"></ul>
</section>
<section aria-labelledby="messages-title">
  <div class="section-head">
    <h2 id="messages-title">Recent messages</h2>
    <button id="refresh" type="button">Refresh</button>
  </div>
  <p id="messages-empty" class="empty">No messages yet. Events of your organization and test events appear here with every delivery attempt.</p>
  <ol id="messages" class="messages"></ol>
</section>
</div>
<p id="status" class="visually-hidden" role="status" aria-live="polite"></p>
<noscript><p class="card">This page needs JavaScript to manage endpoints.</p></noscript>`
  return layout('Webhooks', header, main, true)
}

export function linkStatePage (state: 'expired' | 'invalid', expiresAt?: string): string {
  const expired = state === 'expired'
  const title = expired ? 'This link has expired' : 'This link is not valid'
  const detail = expired
    ? `Management links work for a limited time${expiresAt === undefined ? '' : `; this one expired ${escapeHtml(readable(new Date(expiresAt).toISOString()))}`}.`
    : 'The address is incomplete or was never issued.'
  const main = `<section class="card notice" role="alert">
  <h2>${title}</h2>
  <p>${detail}</p>
  <p>Request a new link with <code>POST /core/webhooks/management-link</code>.</p>
</section>`
  return layout(title, '<h1>Webhooks</h1>', main, false)
}
