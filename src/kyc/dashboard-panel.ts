// The KYC area's panel of the sandbox dashboard: the users with their KYC summary and process
// statuses, and a form that forces a process's outcome (POST /_sandbox/users/{userId}/kyc/{process}).
import type { DashboardPanel } from '../kit/area.js'
import { PROCESS_CODES, STATUSES } from '../../schemas/kyc.js'

export const usersPanel: DashboardPanel = {
  id: 'users',
  title: 'Users and KYC',
  order: 30,
  style: `
.kyc { display: inline-block; font: 600 11.5px var(--mono); padding: 1px 6px; margin: 1px 2px 1px 0; border-radius: 4px; background: var(--line); color: var(--text); }
.kyc-ok { color: var(--ok); background: var(--ok-bg); } .kyc-pending, .kyc-running { color: var(--info); background: var(--info-bg); }
.kyc-failed, .kyc-blocked { color: var(--err); background: var(--err-bg); } .kyc-restricted { color: var(--warn); background: var(--warn-bg); }
.kyc-exempt { color: var(--muted); }
form.force { display: flex; gap: 4px; flex-wrap: wrap; }`,
  markup: `    <div id="kyc" class="muted">Loading…</div>
    <div class="muted">Of the organization in view. Forcing an outcome sets the process's status at once and emits its event, as the service's review would.</div>`,
  script: `
    var h = dash.h
    var PROCESSES = ${JSON.stringify(PROCESS_CODES)}
    var STATUSES = ${JSON.stringify(STATUSES)}
    function forceForm (u) {
      var process = h('select', { 'aria-label': 'Process' }, PROCESSES.map(function (p) { return h('option', { value: p }, p) }))
      var status = h('select', { 'aria-label': 'Outcome' }, STATUSES.map(function (s) { return h('option', { value: s }, s) }))
      return h('form', { class: 'force', 'data-user-id': u.id, onsubmit: function (ev) {
        ev.preventDefault()
        dash.api('/_sandbox/users/' + u.id + '/kyc/' + process.value, 'POST', { status: status.value }).then(function (r) {
          dash.$('panel-users-status').textContent = r.ok ? '' : dash.problem(r)
          return load()
        }).catch(dash.ignore)
      } }, process, status, h('button', { type: 'submit' }, 'Force'))
    }
    function load () {
      return dash.api('/_sandbox/kyc' + dash.orgQuery()).then(function (r) {
        if (!r.ok) return dash.failed('kyc', r)
        var list = r.data.users
        dash.count('users', '(' + list.length + ')')
        if (list.length === 0) return dash.fill('kyc', h('div', { class: 'empty' }, 'No users.'))
        dash.fill('kyc', h('div', { class: 'scroll' }, h('table', null,
          h('thead', null, h('tr', null, ['User', 'Summary', 'Processes', 'KYB', 'Force an outcome'].map(function (t) { return h('th', null, t) }))),
          h('tbody', null, list.map(function (u) {
            return h('tr', { 'data-user-id': u.id },
              h('td', null, h('div', null, u.email), h('div', { class: 'mono muted', title: u.id }, dash.shortId(u.id) + ' · org ' + dash.shortId(u.organizationId))),
              h('td', null, h('span', { class: 'kyc kyc-' + u.summary.status, title: 'reason: ' + u.summary.reason }, u.summary.status)),
              h('td', null, PROCESSES.map(function (p) { var s = u.processes[p]; return h('span', { class: 'kyc kyc-' + s, title: p + ': ' + s }, p + ' ' + s) })),
              h('td', null, u.kyb || '—'),
              h('td', null, forceForm(u)))
          })))))
      })
    }
    return load`
}
