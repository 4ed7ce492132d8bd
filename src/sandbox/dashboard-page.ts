// The dashboard page: one HTML document with its CSS and vanilla JS inline, nothing fetched from
// elsewhere. Its data comes from the control API, with the admin token as Bearer when one is set.
import { createHash } from 'node:crypto'

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
main { padding: 20px 24px 40px; display: grid; grid-template-columns: repeat(12, minmax(0, 1fr)); gap: 16px; max-width: 1440px; margin: 0 auto; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 16px; min-width: 0; }
.span-4 { grid-column: span 4; } .span-8 { grid-column: span 8; } .span-12 { grid-column: 1 / -1; }
@media (max-width: 960px) { .span-4, .span-8 { grid-column: 1 / -1; } }
h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .07em; color: var(--muted); margin: 0 0 12px; display: flex; align-items: center; gap: 8px; }
h2 .count { text-transform: none; letter-spacing: 0; font-weight: 400; }
.clock-now { font: 600 22px/1.25 var(--mono); margin-bottom: 4px; word-break: break-all; }
.muted { color: var(--muted); }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 8px; border-radius: 999px; background: var(--ok-bg); color: var(--ok); }
.badge.frozen { background: var(--info-bg); color: var(--info); }
.toolbar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 10px 0; }
.toolbar .grow { flex: 1; }
button, select, input[type=search] { font: inherit; font-size: 13px; padding: 4px 10px; border: 1px solid #cfd6e0; background: #fff; border-radius: 6px; color: var(--text); }
button { cursor: pointer; }
button:hover { border-color: var(--accent); }
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
tr.entry { cursor: pointer; }
tr.entry:hover td { background: #f2f6fd; }
tr.open td { background: #eef3fc; }
.details td { background: #fafbfc; }
.details .grid { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 12px; }
.details h3 { font-size: 12px; margin: 4px 0 6px; color: var(--muted); }
pre { background: #0f172a; color: #e2e8f0; padding: 10px 12px; border-radius: 6px; overflow: auto; max-height: 340px; font: 12px/1.5 var(--mono); margin: 0; white-space: pre-wrap; word-break: break-all; }
.empty { color: var(--muted); padding: 10px 0; }
.error { color: var(--err); padding: 10px 0; }
.scroll { overflow-x: auto; }
ul.rules { list-style: none; margin: 0; padding: 0; }
ul.rules li { padding: 6px 0; border-bottom: 1px solid var(--line); display: flex; gap: 8px; align-items: baseline; }
.kyc { display: inline-block; font: 600 11.5px var(--mono); padding: 1px 6px; margin: 1px 2px 1px 0; border-radius: 4px; background: var(--line); color: var(--text); }
.kyc-ok { color: var(--ok); background: var(--ok-bg); } .kyc-pending, .kyc-running { color: var(--info); background: var(--info-bg); }
.kyc-failed, .kyc-blocked { color: var(--err); background: var(--err-bg); } .kyc-restricted { color: var(--warn); background: var(--warn-bg); }
.kyc-exempt { color: var(--muted); }
form.force { display: flex; gap: 4px; flex-wrap: wrap; }
.acct { display: block; font: 12.5px var(--mono); white-space: nowrap; }
.acct .avail { color: var(--muted); }
.tx { display: inline-block; font: 600 11.5px var(--mono); padding: 1px 6px; border-radius: 4px; background: var(--line); }
.tx-completed { color: var(--ok); background: var(--ok-bg); } .tx-processing { color: var(--info); background: var(--info-bg); }
.tx-on-hold { color: var(--warn); background: var(--warn-bg); } .tx-failed { color: var(--err); background: var(--err-bg); }
.actions { display: flex; gap: 4px; flex-wrap: wrap; }
`

const SCRIPT = `
(function () {
  'use strict'
  var KEY = 'sandbox.adminToken'
  var required = document.body.getAttribute('data-token-required') === 'true'
  var token = sessionStorage.getItem(KEY) || ''
  var expanded = new Set()
  var timer = null
  var clockState = null

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
    el.replaceChildren()
    for (var i = 1; i < arguments.length; i++) append(el, arguments[i])
  }

  function Unauthorized () {}

  function api (path, method, body) {
    var headers = {}
    if (token !== '') headers.authorization = 'Bearer ' + token
    if (body !== undefined) headers['content-type'] = 'application/json'
    return fetch(path, { method: method || 'GET', headers: headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' })
      .then(function (res) {
        if (res.status === 401) {
          askToken(token === '' ? 'Enter the admin token to see the sandbox.' : 'The admin token was refused.')
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

  function shortId (id) { return id ? String(id).slice(0, 8) + '…' : '' }
  function time (iso) { return iso ? iso.slice(11, 23) : '' }
  function statusClass (s) { return 'status s' + String(s).charAt(0) }
  function pretty (v) { return v === undefined ? '(none)' : (typeof v === 'string' ? v : JSON.stringify(v, null, 2)) }
  function failed (id, r) { fill(id, h('div', { class: 'error' }, (r.data && r.data.message) || ('Failed: HTTP ' + r.status))) }

  function loadClock () {
    return api('/_sandbox/clock').then(function (r) {
      if (!r.ok) return failed('clock', r)
      clockState = r.data
      fill('clock',
        h('div', { class: 'clock-now', title: 'Sandbox time (UTC)' }, r.data.now.replace('T', ' ').replace('Z', ' UTC')),
        h('span', { class: r.data.frozen ? 'badge frozen' : 'badge' }, r.data.frozen ? 'Frozen' : 'Running'))
      $('freeze').textContent = r.data.frozen ? 'Unfreeze' : 'Freeze'
    })
  }

  function changeClock (body) {
    return api('/_sandbox/clock', 'POST', body).then(function () { return refresh() }).catch(ignore)
  }

  function loadClients () {
    return api('/_sandbox/clients').then(function (r) {
      if (!r.ok) return failed('clients', r)
      var list = r.data.clients
      $('clients-count').textContent = '(' + list.length + ')'
      if (list.length === 0) return fill('clients', h('div', { class: 'empty' }, 'No clients.'))
      fill('clients', h('div', { class: 'scroll' }, h('table', null,
        h('thead', null, h('tr', null, ['Client id', 'Organization', 'Scopes', 'Refresh tokens', 'User', 'Created'].map(function (t) { return h('th', null, t) }))),
        h('tbody', null, list.map(function (c) {
          return h('tr', null,
            h('td', { class: 'mono' }, c.clientId),
            h('td', { class: 'mono', title: c.organizationId }, shortId(c.organizationId)),
            h('td', { title: c.scopes.join('\\n') }, c.scopes.length + (c.scopes.length === 1 ? ' scope' : ' scopes')),
            h('td', null, c.refreshTokens ? 'yes' : 'no'),
            h('td', { class: 'mono', title: c.userId || '' }, c.userId ? shortId(c.userId) : '—'),
            h('td', { class: 'mono' }, c.createdAt.replace('T', ' ').slice(0, 19)))
        })))))
    })
  }

  function loadRequests () {
    var q = new URLSearchParams({ limit: '200' })
    var path = $('filter-path').value.trim()
    var status = $('filter-status').value
    if (path !== '') q.set('path', path)
    if (status !== '') q.set('status', status)
    return api('/_sandbox/requests?' + q).then(function (r) {
      if (!r.ok) return failed('requests', r)
      var list = r.data.requests
      $('requests-count').textContent = '(' + list.length + ' shown, ' + r.data.total + ' kept of at most ' + r.data.capacity + ')'
      if (list.length === 0) return fill('requests', h('div', { class: 'empty' }, 'No requests logged yet.'))
      var rows = []
      list.forEach(function (e) {
        var open = expanded.has(e.requestId)
        rows.push(h('tr', { class: open ? 'entry open' : 'entry', 'data-request-id': e.requestId, onclick: function () { toggle(e.requestId) } },
          h('td', { class: 'mono', title: e.timestamp }, time(e.timestamp)),
          h('td', { class: 'mono' }, e.method),
          h('td', { class: 'path' }, e.path),
          h('td', null, h('span', { class: statusClass(e.status), title: e.status === 0 ? 'Connection dropped by a fault rule' : '' }, e.status === 0 ? 'drop' : e.status)),
          h('td', { class: 'mono' }, e.durationMs.toFixed(1) + ' ms'),
          h('td', { class: 'mono' }, e.clientId || '—'),
          h('td', { class: 'mono', title: e.requestId }, shortId(e.requestId))))
        if (open) {
          rows.push(h('tr', { class: 'details' }, h('td', { colspan: '7' }, h('div', { class: 'grid' },
            h('div', null, h('h3', null, 'Request'), h('pre', null, pretty({ headers: e.request.headers, body: e.request.body }))),
            h('div', null, h('h3', null, 'Response'), h('pre', null, pretty({ headers: e.response.headers, body: e.response.body })))))))
        }
      })
      fill('requests', h('div', { class: 'scroll' }, h('table', null,
        h('thead', null, h('tr', null, ['Time', 'Method', 'Path', 'Status', 'Duration', 'Client', 'Request id'].map(function (t) { return h('th', null, t) }))),
        h('tbody', null, rows))))
    })
  }

  function toggle (id) {
    if (expanded.has(id)) expanded.delete(id)
    else expanded.add(id)
    loadRequests().catch(ignore)
  }

  function loadOrganizations () {
    return api('/_sandbox/organizations').then(function (r) {
      if (!r.ok) return
      ;['deliveries-org', 'kyc-org'].forEach(function (id) {
        var select = $(id)
        var current = select.value
        select.replaceChildren(h('option', { value: '' }, 'All organizations'))
        r.data.organizations.forEach(function (o) {
          select.append(h('option', { value: o.id, selected: o.id === current }, o.name + ' (' + shortId(o.id) + ')'))
        })
      })
    })
  }

  function lastAnswer (m) {
    var a = Array.isArray(m.attempts) && m.attempts.length > 0 ? m.attempts[m.attempts.length - 1] : null
    if (a === null) return '—'
    return a.statusCode !== null && a.statusCode !== undefined ? h('span', { class: statusClass(a.statusCode) }, a.statusCode) : (a.error || 'no answer')
  }

  function loadDeliveries () {
    var org = $('deliveries-org').value
    return api('/_sandbox/webhooks/messages' + (org === '' ? '' : '?organizationId=' + encodeURIComponent(org))).then(function (r) {
      if (r.status === 404) return fill('deliveries', h('div', { class: 'empty' }, 'No deliveries.'))
      if (!r.ok) return failed('deliveries', r)
      var list = Array.isArray(r.data) ? r.data : (r.data && r.data.messages) || []
      if (list.length === 0) return fill('deliveries', h('div', { class: 'empty' }, 'No deliveries.'))
      fill('deliveries', h('div', { class: 'scroll' }, h('table', null,
        h('thead', null, h('tr', null, ['Created', 'Event', 'Status', 'Attempts', 'Last answer', 'Message id'].map(function (t) { return h('th', null, t) }))),
        h('tbody', null, list.map(function (m) {
          return h('tr', null,
            h('td', { class: 'mono' }, String(m.createdAt || '').replace('T', ' ').slice(0, 19)),
            h('td', { class: 'mono' }, m.eventType || m.type || ''),
            h('td', null, m.status || ''),
            h('td', null, Array.isArray(m.attempts) ? m.attempts.length : ''),
            h('td', null, lastAnswer(m)),
            h('td', { class: 'mono', title: m.id }, String(m.id || '').slice(0, 16)))
        })))))
    })
  }

  function loadFaults () {
    return api('/_sandbox/faults').then(function (r) {
      if (!r.ok) return failed('faults', r)
      var list = r.data.faults
      if (list.length === 0) return fill('faults', h('div', { class: 'empty' }, 'None: normal service.'))
      fill('faults', h('ul', { class: 'rules' }, list.map(function (f) {
        var what = f.drop ? 'drop' : (f.status !== null ? String(f.status) : 'delay')
        return h('li', null,
          h('span', { class: statusClass(f.drop ? 0 : (f.status || 2)) }, what),
          h('span', { class: 'path grow' }, (f.method || 'ANY') + ' ' + f.path),
          h('span', { class: 'muted' }, (f.delayMs ? '+' + f.delayMs + ' ms · ' : '') + (f.remaining === null ? 'until removed' : f.remaining + ' left')),
          h('button', { class: 'link', title: 'Remove this rule', onclick: function () { api('/_sandbox/faults/' + f.id, 'DELETE').then(refresh).catch(ignore) } }, '✕'))
      })))
    })
  }

  var KYC_PROCESSES = ['profile', 'address', 'email', 'phone', 'identity', 'proof-of-address', 'customer-due-diligence', 'enhanced-due-diligence',
    'crypto-risk-assessment', 'self-categorization-statement', 'tax-details', 'screening', 'risk']
  var KYC_STATUSES = ['ok', 'failed', 'running', 'pending', 'exempt']

  function forceForm (u) {
    var process = h('select', { 'aria-label': 'Process' }, KYC_PROCESSES.map(function (p) { return h('option', { value: p }, p) }))
    var status = h('select', { 'aria-label': 'Outcome' }, KYC_STATUSES.map(function (s) { return h('option', { value: s }, s) }))
    return h('form', { class: 'force', 'data-user-id': u.id, onsubmit: function (ev) {
      ev.preventDefault()
      api('/_sandbox/users/' + u.id + '/kyc/' + process.value, 'POST', { status: status.value }).then(function () { return loadKyc() }).catch(ignore)
    } }, process, status, h('button', { type: 'submit' }, 'Force'))
  }

  function accountsCell (accounts) {
    if (!accounts || accounts.length === 0) return h('span', { class: 'muted' }, 'No accounts')
    return accounts.map(function (a) {
      return h('span', { class: 'acct', 'data-account-id': a.id, title: a.id + (a.archived ? ' (archived)' : '') },
        a.label + ' · ' + a.asset + ' ' + a.balance.total, h('span', { class: 'avail' }, ' (' + a.balance.available + ' available)'), a.archived ? ' · archived' : '')
    })
  }

  function orgQuery () {
    var org = $('kyc-org').value
    return org === '' ? '' : '?organizationId=' + encodeURIComponent(org)
  }

  function loadKyc () {
    return Promise.all([api('/_sandbox/kyc' + orgQuery()), api('/_sandbox/ledger' + orgQuery())]).then(function (rs) {
      var r = rs[0]
      var ledger = rs[1]
      if (!r.ok) return failed('kyc', r)
      var accountsOf = {}
      var emailOf = {}
      if (ledger.ok) ledger.data.users.forEach(function (u) { accountsOf[u.id] = u.accounts; emailOf[u.id] = u.email })
      showTransactions(ledger, emailOf)
      var list = r.data.users
      $('kyc-count').textContent = '(' + list.length + ')'
      if (list.length === 0) return fill('kyc', h('div', { class: 'empty' }, 'No users.'))
      fill('kyc', h('div', { class: 'scroll' }, h('table', null,
        h('thead', null, h('tr', null, ['User', 'Summary', 'Processes', 'KYB', 'Accounts and balances', 'Force an outcome'].map(function (t) { return h('th', null, t) }))),
        h('tbody', null, list.map(function (u) {
          return h('tr', { 'data-user-id': u.id },
            h('td', null, h('div', null, u.email), h('div', { class: 'mono muted', title: u.id }, shortId(u.id) + ' · org ' + shortId(u.organizationId))),
            h('td', null, h('span', { class: 'kyc kyc-' + u.summary.status, title: 'reason: ' + u.summary.reason }, u.summary.status)),
            h('td', null, KYC_PROCESSES.map(function (p) { var s = u.processes[p]; return h('span', { class: 'kyc kyc-' + s, title: p + ': ' + s }, p + ' ' + s) })),
            h('td', null, u.kyb || '—'),
            h('td', { class: 'accounts' }, accountsCell(accountsOf[u.id])),
            h('td', null, forceForm(u)))
        })))))
    })
  }

  // The control actions of a transaction by status: what POST /_sandbox/transactions/{id}/status accepts from it
  // (a transaction on hold resumes when the user answers its request for information).
  var TX_ACTIONS = { processing: [['Complete', 'completed'], ['Fail', 'failed'], ['Hold', 'on-hold']], 'on-hold': [['Complete', 'completed'], ['Fail', 'failed']] }

  function moveTransaction (id, status) {
    return api('/_sandbox/transactions/' + id + '/status', 'POST', { status: status }).then(function (r) {
      if (!r.ok) $('transactions-message').textContent = (r.data && r.data.message) || ('Failed: HTTP ' + r.status)
      else $('transactions-message').textContent = ''
      return loadKyc()
    }).catch(ignore)
  }

  function expireRfi (x) {
    return api('/_sandbox/transactions/' + x.id + '/requests-for-information/' + x.pendingRequestForInformation + '/status', 'POST', { status: 'expired' }).then(function (r) {
      $('transactions-message').textContent = r.ok ? '' : ((r.data && r.data.message) || ('Failed: HTTP ' + r.status))
      return loadKyc()
    }).catch(ignore)
  }

  function sideText (s) { return s.amount + ' ' + s.asset + ' · ' + s.type + (s.accountId ? ' ' + shortId(s.accountId) : '') }

  function showTransactions (r, emailOf) {
    if (!r.ok) return failed('transactions', r)
    var list = r.data.transactions
    $('transactions-count').textContent = '(' + list.length + ')'
    if (list.length === 0) return fill('transactions', h('div', { class: 'empty' }, 'No transactions.'))
    fill('transactions', h('div', { class: 'scroll' }, h('table', null,
      h('thead', null, h('tr', null, ['Created', 'User', 'Kind', 'Origin', 'Destination', 'Status', 'Control', 'Transaction id'].map(function (t) { return h('th', null, t) }))),
      h('tbody', null, list.map(function (x) {
        var actions = TX_ACTIONS[x.status] || []
        return h('tr', { 'data-transaction-id': x.id, 'data-status': x.status },
          h('td', { class: 'mono' }, x.createdAt.replace('T', ' ').slice(0, 19)),
          h('td', { title: x.userId }, emailOf[x.userId] || shortId(x.userId)),
          h('td', null, x.kind),
          h('td', { class: 'mono' }, sideText(x.origin)),
          h('td', { class: 'mono' }, sideText(x.destination)),
          h('td', null, h('span', { class: 'tx tx-' + x.status, title: x.reason ? 'reason: ' + x.reason : '' }, x.status + (x.reason ? ' (' + x.reason + ')' : ''))),
          h('td', null, actions.length === 0 ? h('span', { class: 'muted' }, 'final') : h('div', { class: 'actions' }, actions.map(function (a) {
            return h('button', { type: 'button', 'data-status': a[1], onclick: function () { moveTransaction(x.id, a[1]) } }, a[0])
          }).concat(x.pendingRequestForInformation ? [h('button', { type: 'button', 'data-rfi': x.pendingRequestForInformation, title: 'Expire its pending request for information: the transaction fails', onclick: function () { expireRfi(x) } }, 'Expire RFI')] : []))),
          h('td', { class: 'mono', title: x.id }, shortId(x.id)))
      })))))
  }

  function ignore (err) { if (!(err instanceof Unauthorized)) console.error(err) }

  function refresh () {
    if (required && token === '') { askToken('This sandbox has an admin token: enter it to see its state.'); return Promise.resolve() }
    return Promise.all([loadClock(), loadClients(), loadRequests(), loadFaults(), loadOrganizations().then(function () { return Promise.all([loadDeliveries(), loadKyc()]) })])
      .then(function () { $('auth').hidden = !required; $('auth-message').textContent = token !== '' ? 'Token in use for this tab.' : '' })
      .catch(ignore)
  }

  function autoRefresh () {
    if (timer !== null) clearInterval(timer)
    timer = $('auto').checked ? setInterval(function () { if (!document.hidden) refresh() }, 3000) : null
  }

  $('auth').addEventListener('submit', function (ev) {
    ev.preventDefault()
    token = $('admin-token').value.trim()
    if (token === '') sessionStorage.removeItem(KEY)
    else sessionStorage.setItem(KEY, token)
    $('admin-token').value = ''
    refresh()
  })
  document.querySelectorAll('[data-advance]').forEach(function (b) {
    b.addEventListener('click', function () { changeClock({ advanceSeconds: Number(b.getAttribute('data-advance')) }) })
  })
  $('freeze').addEventListener('click', function () { changeClock({ frozen: !(clockState && clockState.frozen) }) })
  $('real').addEventListener('click', function () { changeClock({ real: true }) })
  $('refresh').addEventListener('click', function () { refresh() })
  $('auto').addEventListener('change', autoRefresh)
  $('clear').addEventListener('click', function () { api('/_sandbox/requests', 'DELETE').then(refresh).catch(ignore) })
  $('filter-path').addEventListener('input', function () { loadRequests().catch(ignore) })
  $('filter-status').addEventListener('change', function () { loadRequests().catch(ignore) })
  $('deliveries-org').addEventListener('change', function () { loadDeliveries().catch(ignore) })
  $('kyc-org').addEventListener('change', function () { loadKyc().catch(ignore) })
  if (required) $('auth').hidden = false
  refresh()
  autoRefresh()
})()
`

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

/** Allows exactly the inline style and script above; data goes to this server only. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  `script-src ${hash(SCRIPT)}`,
  `style-src ${hash(STYLE)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join('; ')

export function dashboardPage (opts: { tokenRequired: boolean }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox dashboard</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body data-token-required="${String(opts.tokenRequired)}">
<header>
  <div>
    <h1>Core API sandbox</h1>
    <div class="sub">Dashboard of the control API under <code>/_sandbox</code> · <a href="/docs">API docs</a></div>
  </div>
  <form id="auth" hidden>
    <label for="admin-token">Admin token</label>
    <input id="admin-token" name="admin-token" type="password" autocomplete="off" spellcheck="false">
    <button class="primary" type="submit">Use token</button>
    <span id="auth-message" role="status"></span>
  </form>
</header>
<main>
  <section class="card span-4" aria-labelledby="clock-title">
    <h2 id="clock-title">Clock</h2>
    <div id="clock" class="muted">Loading…</div>
    <div class="toolbar">
      <button type="button" data-advance="60">+1 min</button>
      <button type="button" data-advance="600">+10 min</button>
      <button type="button" data-advance="3600">+1 hour</button>
      <button type="button" data-advance="86400">+1 day</button>
    </div>
    <div class="toolbar">
      <button type="button" id="freeze">Freeze</button>
      <button type="button" id="real">Real time</button>
    </div>
  </section>
  <section class="card span-8" aria-labelledby="clients-title">
    <h2 id="clients-title">Clients <span class="count" id="clients-count"></span></h2>
    <div id="clients" class="muted">Loading…</div>
  </section>
  <section class="card span-12" aria-labelledby="requests-title">
    <h2 id="requests-title">Request log <span class="count" id="requests-count"></span></h2>
    <div class="toolbar">
      <input type="search" id="filter-path" placeholder="Path, e.g. /core/*" aria-label="Filter by path">
      <select id="filter-status" aria-label="Filter by status">
        <option value="">Any status</option><option value="2xx">2xx</option><option value="3xx">3xx</option><option value="4xx">4xx</option><option value="5xx">5xx</option>
      </select>
      <span class="grow"></span>
      <label><input type="checkbox" id="auto" checked> Auto-refresh</label>
      <button type="button" id="refresh">Refresh</button>
      <button type="button" id="clear">Clear log</button>
    </div>
    <div id="requests" class="muted">Loading…</div>
    <div class="muted">Click a row for headers and bodies (credentials masked). Reads of the control API are not logged.</div>
  </section>
  <section class="card span-12" aria-labelledby="kyc-title">
    <h2 id="kyc-title">Users: KYC and accounts <span class="count" id="kyc-count"></span></h2>
    <div class="toolbar"><label>Organization <select id="kyc-org"></select></label></div>
    <div id="kyc" class="muted">Loading…</div>
    <div class="muted">Forcing an outcome sets the process's status at once and emits its event, as the service's review would.</div>
  </section>
  <section class="card span-12" aria-labelledby="transactions-title">
    <h2 id="transactions-title">Transactions <span class="count" id="transactions-count"></span></h2>
    <div id="transactions" class="muted">Loading…</div>
    <div class="muted"><span id="transactions-message" role="status"></span> Of the organization chosen above, newest first. A pending transaction's buttons move it at once, with its events and postings, as the service would; otherwise it completes on the sandbox clock.</div>
  </section>
  <section class="card span-8" aria-labelledby="deliveries-title">
    <h2 id="deliveries-title">Webhook deliveries</h2>
    <div class="toolbar"><label>Organization <select id="deliveries-org"></select></label></div>
    <div id="deliveries" class="muted">Loading…</div>
  </section>
  <section class="card span-4" aria-labelledby="faults-title">
    <h2 id="faults-title">Fault rules</h2>
    <div id="faults" class="muted">Loading…</div>
  </section>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`
}
