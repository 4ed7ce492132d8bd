// The sandbox area's panels of the dashboard: the clock, the clients, the fault rules and the
// request log (last, 20 entries a page). Their scripts run in the page (see dashboard-page.ts for `dash`).
import type { DashboardPanel } from '../kit/area.js'

const clock: DashboardPanel = {
  id: 'clock',
  title: 'Clock',
  order: 10,
  style: `
.clock-now { font: 600 22px/1.25 var(--mono); margin-bottom: 4px; word-break: break-all; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 8px; border-radius: 999px; background: var(--ok-bg); color: var(--ok); }
.badge.frozen { background: var(--info-bg); color: var(--info); }`,
  markup: `    <div id="clock-scope" class="muted"></div>
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
    <div id="clock-message" class="error" role="status"></div>`,
  // POST /_sandbox/clock moves the caller's clock: the sandbox's for the admin, its organization's
  // for an organization's control token.
  script: `
    var h = dash.h
    var state = null
    function change (body) {
      return dash.api('/_sandbox/clock', 'POST', body).then(function (r) {
        dash.$('clock-message').textContent = r.ok ? '' : dash.problem(r)
        return dash.reload()
      }).catch(dash.ignore)
    }
    document.querySelectorAll('[data-advance]').forEach(function (b) {
      b.addEventListener('click', function () { change({ advanceSeconds: Number(b.getAttribute('data-advance')) }) })
    })
    dash.$('freeze').addEventListener('click', function () { change({ frozen: !(state && state.frozen) }) })
    dash.$('real').addEventListener('click', function () { change({ real: true }) })
    return function () {
      return dash.api('/_sandbox/clock').then(function (r) {
        if (!r.ok) return dash.failed('clock', r)
        state = r.data
        dash.$('clock-scope').textContent = typeof r.data.organizationId === 'string'
          ? 'The clock of organization ' + r.data.organizationId + ': its buttons move this organization\\'s time only.'
          : 'The sandbox clock.'
        dash.fill('clock',
          h('div', { class: 'clock-now', title: 'Sandbox time (UTC)' }, r.data.now.replace('T', ' ').replace('Z', ' UTC')),
          h('span', { class: r.data.frozen ? 'badge frozen' : 'badge' }, r.data.frozen ? 'Frozen' : 'Running'))
        dash.$('freeze').textContent = r.data.frozen ? 'Unfreeze' : 'Freeze'
      })
    }`
}

const clients: DashboardPanel = {
  id: 'clients',
  title: 'Clients',
  order: 20,
  scope: 'global',
  markup: '    <div id="clients" class="muted">Loading…</div>',
  script: `
    var h = dash.h
    return function () {
      return dash.api('/_sandbox/clients').then(function (r) {
        if (!r.ok) return dash.failed('clients', r)
        var org = dash.organizationId()
        var list = r.data.clients.filter(function (c) { return org === '' || c.organizationId === org })
        dash.count('clients', '(' + list.length + ')')
        if (list.length === 0) return dash.fill('clients', h('div', { class: 'empty' }, 'No clients.'))
        dash.fill('clients', h('div', { class: 'scroll' }, h('table', null,
          h('thead', null, h('tr', null, ['Client id', 'Organization', 'Scopes', 'Refresh tokens', 'User', 'Created'].map(function (t) { return h('th', null, t) }))),
          h('tbody', null, list.map(function (c) {
            return h('tr', null,
              h('td', { class: 'mono' }, c.clientId),
              h('td', { class: 'mono', title: c.organizationId }, dash.shortId(c.organizationId)),
              h('td', { title: c.scopes.join('\\n') }, c.scopes.length + (c.scopes.length === 1 ? ' scope' : ' scopes')),
              h('td', null, c.refreshTokens ? 'yes' : 'no'),
              h('td', { class: 'mono', title: c.userId || '' }, c.userId ? dash.shortId(c.userId) : '—'),
              h('td', { class: 'mono' }, dash.dateTime(c.createdAt)))
          })))))
      })
    }`
}

const faults: DashboardPanel = {
  id: 'faults',
  title: 'Fault rules',
  order: 70,
  style: `
ul.rules { list-style: none; margin: 0; padding: 0; }
ul.rules li { padding: 6px 0; border-bottom: 1px solid var(--line); display: flex; gap: 8px; align-items: baseline; }`,
  markup: '    <div id="faults" class="muted">Loading…</div>',
  script: `
    var h = dash.h
    function load () {
      return dash.api('/_sandbox/faults').then(function (r) {
        if (!r.ok) return dash.failed('faults', r)
        var list = r.data.faults
        dash.count('faults', '(' + list.length + ')')
        if (list.length === 0) return dash.fill('faults', h('div', { class: 'empty' }, 'None: normal service.'))
        dash.fill('faults', h('ul', { class: 'rules' }, list.map(function (f) {
          var what = f.drop ? 'drop' : (f.status !== null ? String(f.status) : 'delay')
          return h('li', null,
            h('span', { class: dash.statusClass(f.drop ? 0 : (f.status || 2)) }, what),
            h('span', { class: 'path grow' }, (f.method || 'ANY') + ' ' + f.path),
            h('span', { class: 'muted' }, (f.delayMs ? '+' + f.delayMs + ' ms · ' : '') + (f.remaining === null ? 'until removed' : f.remaining + ' left')),
            h('button', { class: 'link', title: 'Remove this rule', onclick: function () { dash.api('/_sandbox/faults/' + f.id, 'DELETE').then(load).catch(dash.ignore) } }, '✕'))
        })))
      })
    }
    return load`
}

/** Entries a page of the request log panel. */
const PAGE = 20

const requests: DashboardPanel = {
  id: 'requests',
  title: 'Request log',
  order: 1000,
  style: `
tr.entry { cursor: pointer; }
tr.entry:hover td { background: #f2f6fd; }
tr.open td { background: #eef3fc; }
.details td { background: #fafbfc; }
.details .grid { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 12px; }
.details h3 { font-size: 12px; margin: 4px 0 6px; color: var(--muted); }`,
  markup: `    <div class="toolbar">
      <input type="search" id="filter-path" placeholder="Path, e.g. /core/*" aria-label="Filter by path">
      <select id="filter-status" aria-label="Filter by status">
        <option value="">Any status</option><option value="2xx">2xx</option><option value="3xx">3xx</option><option value="4xx">4xx</option><option value="5xx">5xx</option>
      </select>
      <span class="grow"></span>
      <button type="button" id="clear">Clear log</button>
    </div>
    <div id="requests" class="muted">Loading…</div>
    <div class="toolbar">
      <button type="button" id="requests-previous" disabled>Previous page</button>
      <span id="requests-page" class="muted"></span>
      <button type="button" id="requests-next" disabled>Next page</button>
    </div>
    <div class="muted">Newest first, ${PAGE} a page; auto-refresh reloads the first page only. Click a row for headers and bodies (credentials masked). Reads of the control API are not logged.</div>`,
  // Paged with the route's limit and offset: one entry more than a page says whether an older page exists.
  script: `
    var h = dash.h
    var PAGE = ${PAGE}
    var page = 0
    var expanded = new Set()
    function first () { page = 0; return load() }
    function toggle (id) {
      if (expanded.has(id)) expanded.delete(id)
      else expanded.add(id)
      load().catch(dash.ignore)
    }
    function load () {
      var q = new URLSearchParams({ limit: String(PAGE + 1), offset: String(page * PAGE) })
      var path = dash.$('filter-path').value.trim()
      var status = dash.$('filter-status').value
      if (path !== '') q.set('path', path)
      if (status !== '') q.set('status', status)
      return dash.api('/_sandbox/requests?' + q).then(function (r) {
        if (!r.ok) return dash.failed('requests', r)
        var list = r.data.requests.slice(0, PAGE)
        var older = r.data.requests.length > PAGE
        dash.$('requests-previous').disabled = page === 0
        dash.$('requests-next').disabled = !older
        dash.$('requests-page').textContent = 'Page ' + (page + 1)
        dash.count('requests', '(' + r.data.total + ' kept of at most ' + r.data.capacity + ')')
        if (r.data.capacity === 0) return dash.fill('requests', h('div', { class: 'empty' }, 'The request log is off (REQUEST_LOG_SIZE=0): no request is recorded.'))
        if (list.length === 0) return dash.fill('requests', h('div', { class: 'empty' }, page === 0 ? 'No requests logged yet.' : 'No older requests.'))
        var rows = []
        list.forEach(function (e) {
          var open = expanded.has(e.requestId)
          rows.push(h('tr', { class: open ? 'entry open' : 'entry', 'data-request-id': e.requestId, onclick: function () { toggle(e.requestId) } },
            h('td', { class: 'mono', title: e.timestamp }, dash.time(e.timestamp)),
            h('td', { class: 'mono' }, e.method),
            h('td', { class: 'path' }, e.path),
            h('td', null, h('span', { class: dash.statusClass(e.status), title: e.status === 0 ? 'Connection dropped by a fault rule' : '' }, e.status === 0 ? 'drop' : e.status)),
            h('td', { class: 'mono' }, e.durationMs.toFixed(1) + ' ms'),
            h('td', { class: 'mono' }, e.clientId || '—'),
            h('td', { class: 'mono', title: e.requestId }, dash.shortId(e.requestId))))
          if (open) {
            rows.push(h('tr', { class: 'details' }, h('td', { colspan: '7' }, h('div', { class: 'grid' },
              h('div', null, h('h3', null, 'Request'), h('pre', null, dash.pretty({ headers: e.request.headers, body: e.request.body }))),
              h('div', null, h('h3', null, 'Response'), h('pre', null, dash.pretty({ headers: e.response.headers, body: e.response.body })))))))
          }
        })
        dash.fill('requests', h('div', { class: 'scroll' }, h('table', null,
          h('thead', null, h('tr', null, ['Time', 'Method', 'Path', 'Status', 'Duration', 'Client', 'Request id'].map(function (t) { return h('th', null, t) }))),
          h('tbody', null, rows))))
      })
    }
    dash.$('requests-previous').addEventListener('click', function () { if (page > 0) { page--; load().catch(dash.ignore) } })
    dash.$('requests-next').addEventListener('click', function () { page++; load().catch(dash.ignore) })
    dash.$('filter-path').addEventListener('input', function () { first().catch(dash.ignore) })
    dash.$('filter-status').addEventListener('change', function () { first().catch(dash.ignore) })
    dash.$('clear').addEventListener('click', function () {
      dash.api('/_sandbox/requests', 'DELETE').then(function (r) {
        if (!r.ok) dash.$('panel-requests-status').textContent = dash.problem(r)
        return first()
      }).catch(dash.ignore)
    })
    // Auto-refresh keeps a later page still: new entries would shift it under the reader.
    return function (reason) { return reason === 'auto' && page > 0 ? undefined : load() }`
}

export const sandboxPanels: DashboardPanel[] = [clock, clients, faults, requests]
