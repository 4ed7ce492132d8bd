// The transactions area's panels of the sandbox dashboard, both read from GET /_sandbox/ledger:
// each user's accounts with their balances, and the newest transactions with their status and the
// control actions of a pending one (POST /_sandbox/transactions/{transactionId}/status, and the
// expiry of a held transaction's request for information).
import type { DashboardPanel } from '../kit/area.js'

export const accountsPanel: DashboardPanel = {
  id: 'accounts',
  title: 'Accounts',
  order: 40,
  style: `
.acct { display: block; font: 12.5px var(--mono); white-space: nowrap; }
.acct .avail { color: var(--muted); }`,
  markup: `    <div id="accounts" class="muted">Loading…</div>
    <div class="muted">Each user of the organization in view with their accounts: total balance, and what is available.</div>`,
  script: `
    var h = dash.h
    function accountsCell (accounts) {
      if (accounts.length === 0) return h('span', { class: 'muted' }, 'No accounts')
      return accounts.map(function (a) {
        return h('span', { class: 'acct', 'data-account-id': a.id, title: a.id + (a.archived ? ' (archived)' : '') },
          a.label + ' · ' + a.asset + ' ' + a.balance.total, h('span', { class: 'avail' }, ' (' + a.balance.available + ' available)'), a.archived ? ' · archived' : '')
      })
    }
    return function () {
      return dash.api('/_sandbox/ledger' + dash.orgQuery()).then(function (r) {
        if (!r.ok) return dash.failed('accounts', r)
        var list = r.data.users
        dash.count('accounts', '(' + list.length + (list.length === 1 ? ' user)' : ' users)'))
        if (list.length === 0) return dash.fill('accounts', h('div', { class: 'empty' }, 'No users.'))
        dash.fill('accounts', h('div', { class: 'scroll' }, h('table', null,
          h('thead', null, h('tr', null, ['User', 'Accounts and balances'].map(function (t) { return h('th', null, t) }))),
          h('tbody', null, list.map(function (u) {
            return h('tr', { 'data-user-id': u.id },
              h('td', null, h('div', null, u.email), h('div', { class: 'mono muted', title: u.id }, dash.shortId(u.id) + ' · org ' + dash.shortId(u.organizationId))),
              h('td', { class: 'accounts' }, accountsCell(u.accounts)))
          })))))
      })
    }`
}

export const transactionsPanel: DashboardPanel = {
  id: 'transactions',
  title: 'Transactions',
  order: 50,
  style: `
.tx { display: inline-block; font: 600 11.5px var(--mono); padding: 1px 6px; border-radius: 4px; background: var(--line); }
.tx-completed { color: var(--ok); background: var(--ok-bg); } .tx-processing { color: var(--info); background: var(--info-bg); }
.tx-on-hold { color: var(--warn); background: var(--warn-bg); } .tx-failed { color: var(--err); background: var(--err-bg); }`,
  markup: `    <div id="transactions" class="muted">Loading…</div>
    <div class="muted"><span id="transactions-message" role="status"></span> Of the organization in view, newest first. A pending transaction's buttons move it at once, with its events and postings, as the service would; otherwise it completes on the sandbox clock.</div>
    <div class="muted">Kind: a trade between two accounts of a user in different assets reads <b>buy</b> and the asset bought when the destination's asset is not fiat (crypto or a stablecoin), <b>sell</b> and the asset sold when only the origin's is not, <b>exchange</b> between two fiat currencies; other transactions read <b>transfer</b> or <b>deposit</b>.</div>`,
  script: `
    var h = dash.h
    // The control actions of a transaction by status: what POST /_sandbox/transactions/{id}/status accepts from it
    // (a transaction on hold resumes when the user answers its request for information).
    var ACTIONS = { processing: [['Complete', 'completed'], ['Fail', 'failed'], ['Hold', 'on-hold']], 'on-hold': [['Complete', 'completed'], ['Fail', 'failed']] }
    function answered (r) {
      dash.$('transactions-message').textContent = r.ok ? '' : dash.problem(r)
      return load()
    }
    function move (id, status) {
      return dash.api('/_sandbox/transactions/' + id + '/status', 'POST', { status: status }).then(answered).catch(dash.ignore)
    }
    function expireRfi (x) {
      return dash.api('/_sandbox/transactions/' + x.id + '/requests-for-information/' + x.pendingRequestForInformation + '/status', 'POST', { status: 'expired' })
        .then(answered).catch(dash.ignore)
    }
    function sideText (s) { return s.amount + ' ' + s.asset + ' · ' + s.type + (s.accountId ? ' ' + dash.shortId(s.accountId) : '') }
    function load () {
      return dash.api('/_sandbox/ledger' + dash.orgQuery()).then(function (r) {
        if (!r.ok) return dash.failed('transactions', r)
        var emailOf = {}
        r.data.users.forEach(function (u) { emailOf[u.id] = u.email })
        var list = r.data.transactions
        dash.count('transactions', '(' + list.length + ')')
        if (list.length === 0) return dash.fill('transactions', h('div', { class: 'empty' }, 'No transactions.'))
        dash.fill('transactions', h('div', { class: 'scroll' }, h('table', null,
          h('thead', null, h('tr', null, ['Created', 'User', 'Kind', 'Origin', 'Destination', 'Status', 'Control', 'Transaction id'].map(function (t) { return h('th', null, t) }))),
          h('tbody', null, list.map(function (x) {
            var actions = ACTIONS[x.status] || []
            return h('tr', { 'data-transaction-id': x.id, 'data-status': x.status },
              h('td', { class: 'mono' }, dash.dateTime(x.createdAt)),
              h('td', { title: x.userId }, emailOf[x.userId] || dash.shortId(x.userId)),
              h('td', { class: 'kind', title: x.kind }, x.label || x.kind),
              h('td', { class: 'mono' }, sideText(x.origin)),
              h('td', { class: 'mono' }, sideText(x.destination)),
              h('td', null, h('span', { class: 'tx tx-' + x.status, title: x.reason ? 'reason: ' + x.reason : '' }, x.status + (x.reason ? ' (' + x.reason + ')' : ''))),
              h('td', null, actions.length === 0 ? h('span', { class: 'muted' }, 'final') : h('div', { class: 'actions' }, actions.map(function (a) {
                return h('button', { type: 'button', 'data-status': a[1], onclick: function () { move(x.id, a[1]) } }, a[0])
              }).concat(x.pendingRequestForInformation ? [h('button', { type: 'button', 'data-rfi': x.pendingRequestForInformation, title: 'Expire its pending request for information: the transaction fails', onclick: function () { expireRfi(x) } }, 'Expire RFI')] : []))),
              h('td', { class: 'mono', title: x.id }, dash.shortId(x.id)))
          })))))
      })
    }
    return load`
}
