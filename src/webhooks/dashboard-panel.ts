// The webhooks area's panel of the sandbox dashboard: the endpoints of the organization in view
// (of each organization when all are in view) and the newest messages with their delivery attempts.
import type { DashboardPanel } from '../kit/area.js'

export const webhooksPanel: DashboardPanel = {
  id: 'webhooks',
  title: 'Webhooks',
  order: 60,
  style: `
.card h3.muted { font-size: 12px; margin: 14px 0 4px; }`,
  markup: `    <h3 class="muted">Endpoints</h3>
    <div id="endpoints" class="muted">Loading…</div>
    <h3 class="muted">Deliveries</h3>
    <div id="deliveries" class="muted">Loading…</div>`,
  script: `
    var h = dash.h
    function lastAnswer (m) {
      var a = Array.isArray(m.attempts) && m.attempts.length > 0 ? m.attempts[m.attempts.length - 1] : null
      if (a === null) return '—'
      return a.statusCode !== null && a.statusCode !== undefined ? h('span', { class: dash.statusClass(a.statusCode) }, a.statusCode) : (a.error || 'no answer')
    }
    // GET /_sandbox/webhooks/endpoints lists one organization's: each organization in view in turn.
    function loadEndpoints () {
      var org = dash.organizationId()
      var ids = org !== '' ? [org] : dash.organizations().map(function (o) { return o.id })
      var queries = ids.length === 0 ? [''] : ids.map(function (id) { return '?organizationId=' + encodeURIComponent(id) })
      return Promise.all(queries.map(function (q) { return dash.api('/_sandbox/webhooks/endpoints' + q) })).then(function (rs) {
        var refused = rs.filter(function (r) { return !r.ok })[0]
        if (refused !== undefined) return dash.failed('endpoints', refused)
        var list = [].concat.apply([], rs.map(function (r) { return r.data.endpoints }))
        dash.count('webhooks', '(' + list.length + (list.length === 1 ? ' endpoint)' : ' endpoints)'))
        if (list.length === 0) return dash.fill('endpoints', h('div', { class: 'empty' }, 'No endpoints.'))
        dash.fill('endpoints', h('div', { class: 'scroll' }, h('table', null,
          h('thead', null, h('tr', null, ['URL', 'Description', 'Event types', 'State', 'Organization', 'Endpoint id'].map(function (t) { return h('th', null, t) }))),
          h('tbody', null, list.map(function (e) {
            return h('tr', { 'data-endpoint-id': e.id },
              h('td', { class: 'path' }, e.url),
              h('td', null, e.description || '—'),
              h('td', { class: 'mono' }, e.eventTypes.length === 0 ? 'every event' : e.eventTypes.join(', ')),
              h('td', null, e.disabled ? 'disabled' : 'enabled'),
              h('td', { class: 'mono', title: e.organizationId }, dash.shortId(e.organizationId)),
              h('td', { class: 'mono', title: e.id }, dash.shortId(e.id)))
          })))))
      })
    }
    function loadDeliveries () {
      return dash.api('/_sandbox/webhooks/messages' + dash.orgQuery()).then(function (r) {
        if (r.status === 404) return dash.fill('deliveries', h('div', { class: 'empty' }, 'No deliveries.'))
        if (!r.ok) return dash.failed('deliveries', r)
        var list = (r.data && r.data.messages) || []
        if (list.length === 0) return dash.fill('deliveries', h('div', { class: 'empty' }, 'No deliveries.'))
        dash.fill('deliveries', h('div', { class: 'scroll' }, h('table', null,
          h('thead', null, h('tr', null, ['Created', 'Event', 'Status', 'Attempts', 'Last answer', 'Message id'].map(function (t) { return h('th', null, t) }))),
          h('tbody', null, list.map(function (m) {
            return h('tr', { 'data-message-id': m.id },
              h('td', { class: 'mono' }, dash.dateTime(m.createdAt)),
              h('td', { class: 'mono' }, m.eventType || m.type || ''),
              h('td', null, m.status || ''),
              h('td', null, Array.isArray(m.attempts) ? m.attempts.length : ''),
              h('td', null, lastAnswer(m)),
              h('td', { class: 'mono', title: m.id }, String(m.id || '').slice(0, 16)))
          })))))
      })
    }
    return function () { return Promise.all([loadEndpoints(), loadDeliveries()]) }`
}
