// The dashboard page: one HTML document with its CSS and vanilla JS inline, nothing fetched from
// elsewhere. It is a frame: a navigation, the sign-in and the organization in view; the panels are
// the areas' (`dashboardPanels` in src/kit/area.ts), composed in their order, one shown at a time.
// Their data comes from the control API, with the token as Bearer when one is given.
import { createHash } from 'node:crypto'
import type { DashboardPanel } from '../kit/area.js'

const STYLE = `
:root {
  --bg: #f5f6f8; --card: #fff; --text: #1c2330; --muted: #5d6778; --line: #e3e7ed; --accent: #2457d6;
  --ok: #146c2e; --ok-bg: #e5f4ea; --info: #1b5fb0; --info-bg: #e6effb; --warn: #8a4b00; --warn-bg: #fdf0dc;
  --err: #b3261e; --err-bg: #fce9e7; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--text); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
header { background: #111827; color: #f9fafb; padding: 14px 24px; display: flex; align-items: center; gap: 24px; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0; font-weight: 600; }
header .sub { color: #aab2bf; font-size: 13px; }
header a { color: #c7d7fe; }
#auth { margin-left: auto; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
#auth[hidden] { display: none; }
#auth label { font-weight: 600; }
#auth input { font: inherit; padding: 5px 8px; border-radius: 6px; border: 1px solid #4b5563; background: #1f2937; color: #fff; width: 260px; }
#auth-message { color: #fcd34d; font-size: 13px; }
#auth-hint { color: #aab2bf; font-size: 12px; flex-basis: 100%; text-align: right; }
nav { background: #1f2937; padding: 0 24px; display: flex; align-items: center; gap: 4px; flex-wrap: wrap; position: sticky; top: 0; z-index: 1; }
nav a { color: #d1d5db; text-decoration: none; padding: 10px 12px; border-bottom: 3px solid transparent; font-weight: 500; }
nav a:hover { color: #fff; }
nav a[aria-current=page] { color: #fff; border-bottom-color: #7aa2ff; }
nav a[hidden] { display: none; }
nav .grow { flex: 1; }
nav .tools { display: flex; gap: 10px; align-items: center; color: #d1d5db; font-size: 13px; padding: 6px 0; flex-wrap: wrap; }
nav .tools[hidden], nav .tools [hidden] { display: none; }
#org-message { color: #fcd34d; }
main { padding: 20px 24px 40px; max-width: 1440px; margin: 0 auto; }
main > section[hidden] { display: none; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 16px; min-width: 0; }
h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .07em; color: var(--muted); margin: 0 0 12px; display: flex; align-items: center; gap: 8px; }
h2 .count { text-transform: none; letter-spacing: 0; font-weight: 400; }
.panel-status:empty { display: none; }
.muted { color: var(--muted); }
.toolbar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 10px 0; }
.toolbar .grow { flex: 1; }
button, select, input[type=search] { font: inherit; font-size: 13px; padding: 4px 10px; border: 1px solid #cfd6e0; background: #fff; border-radius: 6px; color: var(--text); }
button { cursor: pointer; }
button:hover { border-color: var(--accent); }
button:disabled { opacity: .5; cursor: default; border-color: #cfd6e0; }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
button.link { border: 0; background: none; color: var(--err); padding: 0 4px; }
input[type=search] { width: 220px; font-family: var(--mono); }
table { width: 100%; border-collapse: collapse; font-size: 13px; }
th { text-align: left; color: var(--muted); font-weight: 600; border-bottom: 1px solid var(--line); padding: 6px 8px; white-space: nowrap; }
td { border-bottom: 1px solid var(--line); padding: 6px 8px; vertical-align: top; }
.mono { font-family: var(--mono); font-size: 12.5px; }
.path { font-family: var(--mono); font-size: 12.5px; word-break: break-all; }
.status { font: 600 12.5px var(--mono); padding: 1px 6px; border-radius: 4px; }
.s2 { color: var(--ok); background: var(--ok-bg); } .s3 { color: var(--info); background: var(--info-bg); }
.s4 { color: var(--warn); background: var(--warn-bg); } .s5 { color: var(--err); background: var(--err-bg); } .s0 { color: #fff; background: var(--muted); }
pre { background: #0f172a; color: #e2e8f0; padding: 10px 12px; border-radius: 6px; overflow: auto; max-height: 340px; font: 12px/1.5 var(--mono); margin: 0; white-space: pre-wrap; word-break: break-all; }
.empty { color: var(--muted); padding: 10px 0; }
.error { color: var(--err); padding: 10px 0; }
.scroll { overflow-x: auto; }
.actions { display: flex; gap: 4px; flex-wrap: wrap; }
`

// The frame's script, up to the panels: the helpers every panel's script gets as `dash`.
const SCRIPT_START = `
(function () {
  'use strict'
  var KEY = 'sandbox.adminToken'
  var required = document.body.getAttribute('data-token-required') === 'true'
  var token = sessionStorage.getItem(KEY) || ''
  var timer = null
  var panels = []
  var current = null
  // The organization the token is bound to (an organization's control token), else null (the admin).
  var boundTo = null
  var organizations = []

  function $ (id) { return document.getElementById(id) }

  function h (tag, props) {
    var el = document.createElement(tag)
    var p = props || {}
    Object.keys(p).forEach(function (k) {
      var v = p[k]
      if (v === undefined || v === null || v === false) return
      if (k === 'class') el.className = v
      else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v)
      else el.setAttribute(k, v === true ? '' : String(v))
    })
    for (var i = 2; i < arguments.length; i++) append(el, arguments[i])
    return el
  }
  function append (el, c) {
    if (c === null || c === undefined || c === false) return
    if (Array.isArray(c)) { c.forEach(function (x) { append(el, x) }); return }
    el.append(c instanceof Node ? c : String(c))
  }
  function fill (id) {
    var el = $(id)
    if (el === null) return
    el.replaceChildren()
    for (var i = 1; i < arguments.length; i++) append(el, arguments[i])
  }

  function Unauthorized () {}

  // Every call of the page. A 401 asks for the token (and stops the caller); any other answer,
  // a 403 included, is the caller's to show: { status, ok, data }.
  function api (path, method, body) {
    var headers = {}
    if (token !== '') headers.authorization = 'Bearer ' + token
    if (body !== undefined) headers['content-type'] = 'application/json'
    return fetch(path, { method: method || 'GET', headers: headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' })
      .then(function (res) {
        if (res.status === 401) {
          askToken(token === '' ? 'Enter the admin token to see the sandbox.' : 'The token was refused.')
          throw new Unauthorized()
        }
        return res.text().then(function (text) {
          var data = null
          if (text !== '') { try { data = JSON.parse(text) } catch (e) { data = text } }
          return { status: res.status, ok: res.ok, data: data }
        })
      })
  }

  function askToken (message) {
    $('auth').hidden = false
    $('auth-message').textContent = message
  }

  /** What a refused call says, readable: its message, and what a 403 means here. */
  function problem (r) {
    var message = (r.data && typeof r.data === 'object' && r.data.message) || ('HTTP ' + r.status)
    if (r.status === 403) return 'Not allowed with this token: ' + message + (boundTo !== null ? ' (an organization\\'s token reaches its own organization only).' : '')
    return 'Failed: ' + message
  }
  function failed (id, r) { fill(id, h('div', { class: 'error', role: 'alert' }, problem(r))) }

  function ignore (err) { if (!(err instanceof Unauthorized)) console.error(err) }

  var dash = {
    api: api,
    h: h,
    fill: fill,
    $: $,
    failed: failed,
    problem: problem,
    ignore: ignore,
    shortId: function (id) { return id ? String(id).slice(0, 8) + '…' : '' },
    time: function (iso) { return iso ? iso.slice(11, 23) : '' },
    dateTime: function (iso) { return String(iso || '').replace('T', ' ').slice(0, 19) },
    statusClass: function (s) { return 'status s' + String(s).charAt(0) },
    pretty: function (v) { return v === undefined ? '(none)' : (typeof v === 'string' ? v : JSON.stringify(v, null, 2)) },
    /** The organization in view: the token's, or the one picked; '' for every organization. */
    organizationId: function () { return boundTo !== null ? boundTo : $('org').value },
    /** '?organizationId=<id>' for the organization in view, or ''. */
    orgQuery: function () { var o = dash.organizationId(); return o === '' ? '' : '?organizationId=' + encodeURIComponent(o) },
    /** The organizations the token reaches ({ id, name }): every one for the admin, its own for an organization's token. */
    organizations: function () { return organizations },
    /** True when the token is an organization's (its calls are bound to that organization). */
    bound: function () { return boundTo !== null },
    /** Sets the count beside a panel's heading. */
    count: function (panelId, text) { var el = $('panel-' + panelId + '-count'); if (el !== null) el.textContent = text },
    /** Loads the panel in view again. */
    reload: function () { return showCurrent('refresh') }
  }

  function panel (id, global, make) {
    var load = null
    try { load = make(dash) } catch (e) { console.error(e) }
    panels.push({ id: id, global: global, load: load })
  }
`

// The frame's script after the panels: navigation, sign-in, the organization in view, refresh.
const SCRIPT_END = `
  function reachable (p) { return !(p.global && boundTo !== null) }

  function wanted () {
    var id = location.hash.slice(1)
    var found = panels.filter(function (p) { return p.id === id && reachable(p) })[0]
    return found || panels.filter(reachable)[0]
  }

  function showCurrent (reason) {
    var p = wanted()
    if (p === undefined) return Promise.resolve()
    if (current !== p.id) reason = 'show'
    current = p.id
    panels.forEach(function (q) {
      $('panel-' + q.id).hidden = q.id !== p.id
      var link = $('nav-' + q.id)
      link.hidden = !reachable(q)
      if (q.id === p.id) link.setAttribute('aria-current', 'page')
      else link.removeAttribute('aria-current')
    })
    if (required && token === '') { askToken('This sandbox has an admin token: enter it to see its state.'); return Promise.resolve() }
    $('panel-' + p.id + '-status').textContent = ''
    return Promise.resolve().then(function () { return p.load === null ? undefined : p.load(reason) })
      .then(function () { $('auth').hidden = !required && token === ''; $('auth-message').textContent = token !== '' ? 'Token in use for this tab.' : '' })
      .catch(function (err) {
        if (err instanceof Unauthorized) return
        console.error(err)
        $('panel-' + p.id + '-status').textContent = 'This panel could not be loaded: ' + (err && err.message ? err.message : String(err))
      })
  }

  // Whom the token speaks for: GET /_sandbox/clock names the organization of an organization's
  // control token (null for the admin). Then the organizations the picker offers.
  function signIn () {
    $('org-message').textContent = ''
    if (required && token === '') return showCurrent('show')
    return api('/_sandbox/clock').then(function (r) {
      boundTo = r.ok && r.data && typeof r.data.organizationId === 'string' ? r.data.organizationId : null
      if (!r.ok) $('org-message').textContent = problem(r)
      $('org-picker').hidden = boundTo !== null
      $('org-bound').hidden = boundTo === null
      if (boundTo !== null) {
        organizations = [{ id: boundTo, name: 'Organization of this token' }]
        $('org-bound').textContent = 'Organization ' + boundTo
        return
      }
      return api('/_sandbox/organizations').then(function (o) {
        if (!o.ok) { organizations = []; $('org-message').textContent = problem(o); return }
        organizations = o.data.organizations
        var select = $('org')
        var chosen = select.value
        select.replaceChildren(h('option', { value: '' }, 'All organizations'))
        organizations.forEach(function (org) { select.append(h('option', { value: org.id, selected: org.id === chosen }, org.name + ' (' + dash.shortId(org.id) + ')')) })
      })
    }).then(function () { return showCurrent('show') }).catch(ignore)
  }

  function autoRefresh () {
    if (timer !== null) clearInterval(timer)
    timer = $('auto').checked ? setInterval(function () { if (!document.hidden) showCurrent('auto') }, 3000) : null
  }

  $('auth').addEventListener('submit', function (ev) {
    ev.preventDefault()
    token = $('admin-token').value.trim()
    if (token === '') sessionStorage.removeItem(KEY)
    else sessionStorage.setItem(KEY, token)
    $('admin-token').value = ''
    signIn()
  })
  window.addEventListener('hashchange', function () { showCurrent('show') })
  $('org').addEventListener('change', function () { showCurrent('organization') })
  $('refresh').addEventListener('click', function () { signIn() })
  $('auto').addEventListener('change', autoRefresh)
  if (required || token !== '') $('auth').hidden = false
  signIn()
  autoRefresh()
})()
`

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

/** Text set inside an HTML element or attribute. */
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)

/** A panel's script as one call of `panel(...)`; its id and scope are JSON, its body the area's. */
const panelScript = (p: DashboardPanel): string =>
  `\n  panel(${JSON.stringify(p.id)}, ${String(p.scope === 'global')}, function (dash) {\n${p.script}\n  })\n`

function panelMarkup (p: DashboardPanel, first: boolean): string {
  const id = escapeHtml(p.id)
  return `  <section class="card" id="panel-${id}" aria-labelledby="panel-${id}-title"${first ? '' : ' hidden'}>
    <h2 id="panel-${id}-title">${escapeHtml(p.title)} <span class="count" id="panel-${id}-count"></span></h2>
    <div class="error panel-status" id="panel-${id}-status" role="alert"></div>
${p.markup}
  </section>`
}

/** The page and the content security policy that allows exactly its inline style and script. */
export function dashboardPage (opts: { tokenRequired: boolean, panels: DashboardPanel[] }): { html: string, csp: string } {
  const style = STYLE + opts.panels.map(p => p.style ?? '').join('\n')
  const script = SCRIPT_START + opts.panels.map(panelScript).join('') + SCRIPT_END
  const csp = [
    "default-src 'none'",
    `script-src ${hash(script)}`,
    `style-src ${hash(style)}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join('; ')
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox dashboard</title>
<link rel="icon" href="data:,">
<style>${style}</style>
</head>
<body data-token-required="${String(opts.tokenRequired)}">
<header>
  <div>
    <h1>Core API sandbox</h1>
    <div class="sub">Dashboard of the control API under <code>/_sandbox</code> · <a href="/docs">API docs</a></div>
  </div>
  <form id="auth" hidden>
    <label for="admin-token">Admin token</label>
    <input id="admin-token" name="admin-token" type="password" autocomplete="off" spellcheck="false" aria-describedby="auth-hint">
    <button class="primary" type="submit">Use token</button>
    <span id="auth-message" role="status"></span>
    <span id="auth-hint">Kept for this browser tab only. An organization's control token (client credentials with the <code>sandbox:control</code> scope) works too: the page then shows that organization only.</span>
  </form>
</header>
<nav aria-label="Dashboard panels">
${opts.panels.map((p, i) => `  <a href="#${escapeHtml(p.id)}" id="nav-${escapeHtml(p.id)}"${i === 0 ? ' aria-current="page"' : ''}>${escapeHtml(p.title)}</a>`).join('\n')}
  <span class="grow"></span>
  <div class="tools">
    <label id="org-picker">Organization <select id="org"><option value="">All organizations</option></select></label>
    <span id="org-bound" class="mono" hidden></span>
    <span id="org-message" role="status"></span>
    <label><input type="checkbox" id="auto" checked> Auto-refresh</label>
    <button type="button" id="refresh">Refresh</button>
  </div>
</nav>
<main>
${opts.panels.map((p, i) => panelMarkup(p, i === 0)).join('\n')}
</main>
<script>${script}</script>
</body>
</html>
`
  return { html, csp }
}
