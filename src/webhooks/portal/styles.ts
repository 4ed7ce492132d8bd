// The portal's stylesheet: system fonts, no external resources.
export const PORTAL_CSS = `:root {
  --bg: #f5f6f8;
  --card: #fff;
  --text: #1b2130;
  --muted: #5a6374;
  --border: #dde1e8;
  --input: #c3c9d4;
  --accent: #2f5bea;
  --accent-dark: #1f45c2;
  --ok: #12703b;
  --ok-bg: #e2f4e9;
  --wait: #7a5200;
  --wait-bg: #fff2d2;
  --bad: #b42318;
  --bad-bg: #fdeceb;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  color-scheme: light;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--text);
  background: var(--bg);
}
.wrap { max-width: 1000px; margin: 0 auto; padding: 0 20px; }
header.top { background: #151b2c; color: #fff; padding: 22px 0 20px; }
header.top h1 { margin: 0; font-size: 22px; font-weight: 650; letter-spacing: .01em; }
header.top .sub { margin: 6px 0 0; color: #c5cbd8; font-size: 14px; }
header.top code { color: #fff; background: rgba(255, 255, 255, .1); }
main.wrap { padding-top: 26px; padding-bottom: 56px; }
section { margin-bottom: 30px; }
h2 { font-size: 17px; margin: 0 0 12px; font-weight: 650; }
code, .mono { font-family: var(--mono); font-size: 13px; }
code { background: #eef0f4; padding: 1px 5px; border-radius: 4px; }
.card {
  background: var(--card);
  border: 1px solid var(--border);
  border-radius: 10px;
  padding: 18px 20px;
  box-shadow: 0 1px 2px rgba(16, 24, 40, .05);
}
.field { margin-bottom: 14px; }
label { display: block; font-weight: 600; font-size: 14px; margin-bottom: 5px; }
.optional { font-weight: 400; color: var(--muted); }
input[type="url"], input[type="text"] {
  width: 100%;
  padding: 9px 11px;
  font: inherit;
  color: inherit;
  background: #fff;
  border: 1px solid var(--input);
  border-radius: 7px;
}
input:focus, button:focus-visible, summary:focus-visible {
  outline: 3px solid rgba(47, 91, 234, .3);
  outline-offset: 1px;
  border-color: var(--accent);
}
input[readonly] { background: #f7f8fa; }
button {
  font: inherit;
  font-size: 14px;
  padding: 7px 14px;
  color: var(--text);
  background: #fff;
  border: 1px solid var(--input);
  border-radius: 7px;
  cursor: pointer;
  white-space: nowrap;
}
button:hover { background: #f0f2f6; }
button:disabled { opacity: .6; cursor: progress; }
button.primary { color: #fff; background: var(--accent); border-color: var(--accent); font-weight: 600; }
button.primary:hover { background: var(--accent-dark); }
button.danger { color: var(--bad); border-color: #efc2bd; }
button.danger:hover { background: var(--bad-bg); }
.error { color: var(--bad); background: var(--bad-bg); border-radius: 7px; padding: 8px 12px; margin: 0 0 14px; }
.empty { color: var(--muted); margin: 0; }
.event-filter summary { cursor: pointer; font-weight: 600; font-size: 14px; }
.event-filter fieldset { border: 0; padding: 0; margin: 10px 0 0; }
.event-filter legend { color: var(--muted); font-size: 13px; margin-bottom: 8px; }
.event-types { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 2px 20px; }
label.check code { background: none; padding: 0; }
label.check { display: flex; align-items: flex-start; gap: 8px; font-weight: 400; margin: 0; padding: 4px 0; cursor: pointer; }
label.check input { margin-top: 4px; }
label.check small { display: block; color: var(--muted); font-size: 12px; }
.section-head { display: flex; align-items: center; justify-content: space-between; gap: 12px; margin-bottom: 12px; }
.section-head h2 { margin: 0; }
ul.endpoints, ol.messages { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
.endpoint-head, .message-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 10px; }
.endpoint-url { font-family: var(--mono); font-size: 14px; font-weight: 600; word-break: break-all; }
.meta { color: var(--muted); font-size: 13px; margin: 6px 0 0; word-break: break-all; }
.secret { display: grid; grid-template-columns: auto 1fr auto; align-items: center; gap: 10px; margin: 12px 0 0; }
.secret label { margin: 0; }
.secret input { font-family: var(--mono); font-size: 13px; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 14px; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 2px 9px; border-radius: 999px; border: 1px solid transparent; }
.badge.enabled, .badge.delivered { color: var(--ok); background: var(--ok-bg); }
.badge.disabled { color: var(--muted); background: #eceef2; }
.badge.pending { color: var(--wait); background: var(--wait-bg); }
.badge.failed { color: var(--bad); background: var(--bad-bg); }
.message-head .spacer { flex: 1; }
.message-head time { color: var(--muted); font-size: 13px; }
details.payload { margin-top: 8px; }
details.payload summary { cursor: pointer; color: var(--muted); font-size: 13px; }
pre { font-family: var(--mono); font-size: 12.5px; background: #f3f4f7; border: 1px solid var(--border); border-radius: 7px; padding: 10px 12px; overflow: auto; max-height: 280px; margin: 8px 0 0; }
table.attempts { width: 100%; border-collapse: collapse; margin-top: 12px; font-size: 13.5px; }
table.attempts th { text-align: left; font-weight: 600; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; border-bottom: 1px solid var(--border); padding: 6px 8px; }
table.attempts td { border-bottom: 1px solid #eef0f3; padding: 7px 8px; vertical-align: top; }
table.attempts tr:last-child td { border-bottom: 0; }
table.attempts td.response { font-family: var(--mono); font-size: 12.5px; color: var(--muted); word-break: break-all; }
.code { font-family: var(--mono); font-weight: 700; }
.code.ok { color: var(--ok); }
.code.bad { color: var(--bad); }
.no-attempts { color: var(--muted); font-size: 13px; margin: 10px 0 0; }
.notice h2 { font-size: 20px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
@media (max-width: 640px) {
  .secret { grid-template-columns: 1fr; }
  table.attempts td.response { display: none; }
  table.attempts th:last-child { display: none; }
}
`
