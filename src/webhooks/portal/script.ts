// The portal's script: plain browser JavaScript (no build step, no libraries). It talks to the
// portal's JSON API under `<page URL>/api`, builds every node with textContent (no HTML from data),
// refreshes the messages every few seconds and turns into the expired notice once the link expires.
// Kept as a string so the compiled server ships it; test/webhooks/portal.test.ts checks it parses.
export const PORTAL_JS = String.raw`'use strict';
(function () {
  var root = document.getElementById('portal');
  if (!root) return;
  var API = location.pathname.replace(/\/+$/, '') + '/api';
  var POLL_MS = 3000;
  var endpointsEl = document.getElementById('endpoints');
  var messagesEl = document.getElementById('messages');
  var statusEl = document.getElementById('status');
  var shown = { endpoints: '', messages: '' };
  var openPayloads = new Set();
  var endpointsById = new Map();
  var timer = null;
  var closed = false;

  function el (tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === undefined || value === null || value === false) return;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = value;
      else if (key.indexOf('on') === 0) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : String(value));
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }

  function readable (iso) {
    return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC') : '';
  }

  function announce (text) { statusEl.textContent = text; }

  function showClosed (status) {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    var expired = status === 410;
    var notice = el('section', { class: 'card notice', role: 'alert' }, [
      el('h2', { text: expired ? 'This link has expired' : 'This link is not valid' }),
      el('p', { text: expired ? 'Management links work for a limited time.' : 'The address is incomplete or was never issued.' }),
      el('p', {}, ['Request a new link with ', el('code', { text: 'POST /core/webhooks/management-link' }), '.'])
    ]);
    root.replaceChildren(notice);
  }

  async function call (method, path, body) {
    var init = { method: method, headers: { accept: 'application/json' }, cache: 'no-store' };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    var res = await fetch(API + path, init);
    var data = res.status === 204 ? null : await res.json().catch(function () { return null; });
    if (res.status === 401 || res.status === 410) showClosed(res.status);
    if (!res.ok) {
      var error = new Error(data && data.message ? data.message : 'The request failed (' + res.status + ')');
      error.body = data;
      throw error;
    }
    return data;
  }

  function explain (error) {
    var violations = error.body && error.body.details && error.body.details.violations;
    if (!violations || violations.length === 0) return error.message;
    return violations.map(function (v) {
      if (v.property === 'url') return 'Enter an absolute http:// or https:// URL.';
      return (v.property || 'The request') + ': ' + v.rule;
    }).filter(function (text, i, all) { return all.indexOf(text) === i; }).join(' ');
  }

  // Actions disable their button while they run and report failures in an alert.
  async function act (button, work) {
    button.disabled = true;
    try {
      await work();
    } catch (error) {
      if (!closed) window.alert(explain(error));
    } finally {
      button.disabled = false;
    }
  }

  function renderEndpoints (endpoints) {
    endpointsById = new Map(endpoints.map(function (e) { return [e.id, e]; }));
    document.getElementById('endpoints-empty').hidden = endpoints.length > 0;
    endpointsEl.replaceChildren.apply(endpointsEl, endpoints.map(function (endpoint) {
      var urlId = 'endpoint-url-' + endpoint.id;
      var secretId = 'secret-' + endpoint.id;
      var secret = el('input', { id: secretId, type: 'text', readonly: true, value: endpoint.secret, spellcheck: 'false' });
      var types = endpoint.eventTypes.length === 0
        ? [el('span', { text: 'All event types' })]
        : endpoint.eventTypes.map(function (t) { return el('code', { text: t }); });
      var typeList = [];
      types.forEach(function (node, i) { if (i > 0) typeList.push(' '); typeList.push(node); });
      return el('li', { class: 'card endpoint' }, [
        el('div', { class: 'endpoint-head' }, [
          el('span', { id: urlId, class: 'endpoint-url', text: endpoint.url }),
          el('span', { class: 'badge ' + (endpoint.disabled ? 'disabled' : 'enabled'), text: endpoint.disabled ? 'Disabled' : 'Enabled' })
        ]),
        endpoint.description ? el('p', { class: 'meta', text: endpoint.description }) : null,
        el('p', { class: 'meta' }, ['Events: '].concat(typeList)),
        el('div', { class: 'secret' }, [
          el('label', { for: secretId, text: 'Signing secret' }),
          secret,
          el('button', {
            type: 'button',
            'aria-describedby': urlId,
            text: 'Copy',
            onclick: function (event) {
              secret.select();
              var done = function () { announce('Signing secret copied'); event.target.textContent = 'Copied'; };
              if (navigator.clipboard) navigator.clipboard.writeText(endpoint.secret).then(done, function () {});
              else { document.execCommand('copy'); done(); }
            }
          })
        ]),
        endpoint.previousSecretExpiresAt
          ? el('p', { class: 'meta rotation' }, ['The previous secret also signs deliveries until ',
              el('time', { datetime: endpoint.previousSecretExpiresAt, text: readable(endpoint.previousSecretExpiresAt) }), '.'])
          : null,
        el('div', { class: 'actions' }, [
          el('button', {
            type: 'button',
            'aria-describedby': urlId,
            text: 'Rotate secret',
            title: 'A new secret; the current one keeps signing beside it for a grace period',
            onclick: function (event) {
              act(event.target, async function () {
                await call('POST', '/endpoints/' + endpoint.id + '/rotate-secret');
                announce('Signing secret rotated');
                await refreshEndpoints();
              });
            }
          }),
          el('button', {
            type: 'button',
            'aria-describedby': urlId,
            text: 'Send test event',
            disabled: endpoint.disabled,
            onclick: function (event) {
              act(event.target, async function () {
                await call('POST', '/endpoints/' + endpoint.id + '/test');
                announce('Test event queued');
                await refreshMessages();
              });
            }
          }),
          el('button', {
            type: 'button',
            'aria-describedby': urlId,
            text: endpoint.disabled ? 'Enable' : 'Disable',
            onclick: function (event) {
              act(event.target, async function () {
                await call('PATCH', '/endpoints/' + endpoint.id, { disabled: !endpoint.disabled });
                announce(endpoint.disabled ? 'Endpoint enabled' : 'Endpoint disabled');
                await refreshEndpoints();
              });
            }
          }),
          el('button', {
            type: 'button',
            class: 'danger',
            'aria-describedby': urlId,
            text: 'Delete',
            onclick: function (event) {
              act(event.target, async function () {
                await call('DELETE', '/endpoints/' + endpoint.id);
                announce('Endpoint deleted');
                await refreshEndpoints();
                await refreshMessages();
              });
            }
          })
        ])
      ]);
    }));
  }

  var STATUS_TEXT = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };

  function attemptRow (attempt) {
    var ok = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
    return el('tr', {}, [
      el('td', {}, [el('time', { datetime: attempt.attemptedAt, text: readable(attempt.attemptedAt) })]),
      el('td', {}, [attempt.statusCode === null
        ? el('span', { class: 'code bad', text: 'No answer' })
        : el('span', { class: 'code ' + (ok ? 'ok' : 'bad'), text: String(attempt.statusCode) })]),
      el('td', { text: attempt.durationMs + ' ms' }),
      el('td', { class: 'response', text: attempt.error || attempt.responseBody || '(empty)' })
    ]);
  }

  function renderMessages (messages) {
    document.getElementById('messages-empty').hidden = messages.length > 0;
    messagesEl.replaceChildren.apply(messagesEl, messages.map(function (message) {
      var endpoint = endpointsById.get(message.endpointId);
      var payload = el('details', { class: 'payload', open: openPayloads.has(message.id) }, [
        el('summary', { text: 'Payload' }),
        el('pre', { text: JSON.stringify(message.payload, null, 2) })
      ]);
      payload.addEventListener('toggle', function () {
        if (payload.open) openPayloads.add(message.id); else openPayloads.delete(message.id);
      });
      var next = message.status === 'pending' && message.nextAttemptAt ? ' · Next attempt ' + readable(message.nextAttemptAt) : '';
      return el('li', { class: 'card message' }, [
        el('div', { class: 'message-head' }, [
          el('span', { class: 'badge ' + message.status, text: STATUS_TEXT[message.status] || message.status }),
          el('code', { text: message.eventType }),
          el('span', { class: 'spacer' }),
          el('time', { datetime: message.createdAt, text: readable(message.createdAt) }),
          el('button', {
            type: 'button',
            text: 'Replay',
            'aria-label': 'Replay message ' + message.id,
            onclick: function (event) {
              act(event.target, async function () {
                await call('POST', '/messages/' + message.id + '/replay');
                announce('Message queued for delivery');
                await refreshMessages();
              });
            }
          })
        ]),
        el('p', { class: 'meta', text: 'To ' + (endpoint ? endpoint.url : message.endpointId) + ' · Message ' + message.id + next }),
        payload,
        message.attempts.length === 0
          ? el('p', { class: 'no-attempts', text: 'No attempt yet.' })
          : el('table', { class: 'attempts' }, [
            el('caption', { class: 'visually-hidden', text: 'Delivery attempts of message ' + message.id }),
            el('thead', {}, [el('tr', {}, ['Time', 'Status', 'Duration', 'Response'].map(function (h) { return el('th', { scope: 'col', text: h }); }))]),
            el('tbody', {}, message.attempts.map(attemptRow))
          ])
      ]);
    }));
  }

  async function refreshEndpoints () {
    var data = await call('GET', '/endpoints');
    var json = JSON.stringify(data.endpoints);
    if (json !== shown.endpoints) {
      shown.endpoints = json;
      shown.messages = '';
      renderEndpoints(data.endpoints);
    }
  }

  async function refreshMessages () {
    var data = await call('GET', '/messages?limit=50');
    var json = JSON.stringify(data.messages);
    if (json !== shown.messages) {
      shown.messages = json;
      renderMessages(data.messages);
    }
  }

  async function poll () {
    try {
      await refreshEndpoints();
      await refreshMessages();
    } catch (error) {
      // A failed refresh is retried on the next tick; an expired link has already been shown.
    }
    if (!closed) timer = setTimeout(poll, POLL_MS);
  }

  var form = document.getElementById('add-endpoint');
  var formError = document.getElementById('add-error');
  var filterSummary = document.getElementById('event-filter-summary');
  form.addEventListener('change', function () {
    var checked = form.querySelectorAll('input[name="eventTypes"]:checked').length;
    filterSummary.textContent = checked === 0 ? 'all' : checked + ' selected';
  });
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var button = form.querySelector('button[type="submit"]');
    formError.hidden = true;
    var body = { url: form.elements.url.value.trim() };
    var description = form.elements.description.value.trim();
    if (description) body.description = description;
    body.eventTypes = Array.prototype.map.call(form.querySelectorAll('input[name="eventTypes"]:checked'), function (input) { return input.value; });
    button.disabled = true;
    call('POST', '/endpoints', body).then(async function () {
      form.reset();
      form.querySelector('details').open = false;
      filterSummary.textContent = 'all';
      announce('Endpoint added');
      await refreshEndpoints();
    }, function (error) {
      formError.textContent = explain(error);
      formError.hidden = false;
    }).finally(function () { button.disabled = false; });
  });
  document.getElementById('refresh').addEventListener('click', function () {
    clearTimeout(timer);
    poll();
  });

  poll();
})();
`
