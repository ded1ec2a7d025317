/**
 * The inspector's static assets: one stylesheet and one script, served from the package itself (no
 * network, no build step). The script only enhances server-rendered pages: live updates of a running
 * session by polling, pausing while the tab is hidden. It builds no markup from data: rows arrive
 * already escaped by the server.
 */

/** The stylesheet. */
export const INSPECT_CSS = `
:root { --fg: #1d232a; --muted: #5d6b79; --line: #d9dee3; --bg: #fff; --soft: #f4f6f8; --accent: #1f6feb; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); background: var(--soft); }
header .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
header nav a { margin-right: 1rem; }
header .store { margin-left: auto; color: var(--muted); font-size: 12px; }
main { padding: 1rem 1.2rem 3rem; }
.scroll-x { overflow-x: auto; max-width: 100%; }
a { color: var(--accent); }
h1 small, h2 small { color: var(--muted); font-weight: 400; font-size: 60%; }
.sub { color: var(--muted); }
.tabs { display: flex; gap: .3rem; margin: .5rem 0 1rem; border-bottom: 1px solid var(--line); }
.tab { padding: .35rem .8rem; text-decoration: none; border: 1px solid transparent; border-bottom: none; border-radius: 4px 4px 0 0; }
.tab.on { border-color: var(--line); background: var(--bg); color: var(--fg); font-weight: 600; margin-bottom: -1px; }
.figures { display: flex; flex-wrap: wrap; gap: .6rem 2rem; margin: .5rem 0 1rem; }
.figures div { min-width: 8rem; }
.figures dt { color: var(--muted); font-size: 12px; }
.figures dd { margin: 0; font-size: 18px; font-weight: 600; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid var(--line); }
th { background: var(--soft); font-weight: 600; font-size: 12px; position: sticky; top: 0; }
.r { text-align: right; font-variant-numeric: tabular-nums; }
pre { margin: .2rem 0; white-space: pre-wrap; word-break: break-word; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--soft); padding: .4rem .5rem; border-radius: 4px; max-height: 28rem; overflow: auto; }
pre.args { background: #eef3fb; }
.timeline td.body { max-width: 60rem; }
.timeline .kind { font-weight: 600; }
.ev-user .kind { color: #7b3fa0; } .ev-model .kind { color: #1f6feb; } .ev-tool-result .kind { color: #2d7d46; }
.ev-transfer, .ev-escalate { background: #fff8e1; } .ev-compaction { background: #fdecea; }
.handover { font-weight: 600; }
.meta { color: var(--muted); font-size: 12px; margin: .1rem 0; }
.err { color: #b42318; font-weight: 600; }
.ev-error, .ev-tool-error { background: #fde2e1; } .ev-error .kind, .ev-tool-error .kind { color: #b42318; font-weight: 700; }
.badge { display: inline-block; padding: 0 .4em; border-radius: 3px; font-size: .85em; white-space: nowrap; }
.badge-answered { background: #e6f4ea; color: #1e6b34; } .badge-failed { background: #b42318; color: #fff; }
.badge-unfinished { background: #fff4cc; color: #7a5b00; } .badge-empty { background: #eee; color: #555; }
.status-failed td { background: #fff0ef; } .preview { max-width: 28em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.banner { border: 1px solid #ccc; border-radius: 4px; padding: .3em .8em; margin: .5em 0; }
.banner-failed { border-color: #b42318; background: #fff0ef; } .banner-warn { border-color: #e0b400; background: #fffbea; }
.raw del, .legend-dropped { text-decoration: none; background: #fde2e1; color: #8a1c12; } .legend-kept { background: #fff3a3; }
.delta { list-style: none; margin: 0; padding: 0; font-size: 12px; }
.delta code { word-break: break-all; }
.scope { display: inline-block; padding: 0 .3rem; border-radius: 3px; font-size: 11px; color: #fff; }
.scope-temp { background: #8e44ad; } .scope-session { background: #2e86c1; } .scope-user { background: #d35400; } .scope-app { background: #16a085; }
.pager { margin: .6rem 0; display: flex; gap: .8rem; align-items: center; }
.filters, .jump { display: flex; flex-wrap: wrap; gap: .5rem 1rem; margin: .5rem 0; align-items: end; }
.filters label, .jump label { font-size: 12px; color: var(--muted); display: flex; flex-direction: column; }
input { font: inherit; padding: .2rem .3rem; }
.sections, .items { padding-left: 1.4rem; }
.section, .item { margin-bottom: .6rem; }
.part-paged > .meta { color: #1f6feb; font-weight: 600; }
.peak-mark td { color: #b42318; font-size: 11px; border: none; padding: 0 .5rem; }
.diff { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
mark { background: #fff3a3; }
.first-change { font-size: 12px; max-width: 32rem; }
.excerpt { font-family: ui-monospace, monospace; font-size: 12px; color: var(--muted); white-space: pre-wrap; word-break: break-all; }
.excerpt mark.changed { color: inherit; background: #ffd7d5; }
td.kept pre { white-space: pre-wrap; margin: 0; max-width: 44rem; font-size: 12px; }
td.lost mark { font-family: ui-monospace, monospace; }
.compression { border-top: 2px solid var(--line); margin-top: 1.2rem; }
.chart { max-width: 100%; border: 1px solid var(--line); padding: .4rem; background: #fff; }
figure { margin: .5rem 0 1rem; }
.cell { display: inline-block; padding: 0 .3rem; border-radius: 3px; text-decoration: none; }
.cell.ok { background: #e6f4ea; color: #1e6b34; } .cell.fail { background: #fdecea; color: #b42318; }
.live-note { background: #e8f0fe; padding: .3rem .6rem; border-radius: 4px; }
.empty { color: var(--muted); font-style: italic; }
`;

/** The script: live updates of a session's timeline. */
export const INSPECT_JS = `'use strict';
(function () {
  var body = document.body;
  var live = body.getAttribute('data-live');
  var rows = document.getElementById('events');
  if (!live) return;
  var count = -1;
  var busy = false;
  function setCount(n) {
    var nodes = document.querySelectorAll('[data-live-count] .num');
    for (var i = 0; i < nodes.length; i++) { nodes[i].textContent = n.toLocaleString('en-US'); nodes[i].setAttribute('data-n', String(n)); }
  }
  function tick() {
    if (busy || document.hidden) return;
    busy = true;
    fetch(live, { credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (v) {
        if (!v || typeof v.eventCount !== 'number') return;
        if (count < 0) { count = v.eventCount; }
        if (v.eventCount === count) return;
        count = v.eventCount;
        setCount(count);
        if (!rows) return;
        var next = Number(rows.getAttribute('data-next'));
        if (rows.getAttribute('data-tail') !== '1') {
          var note = document.getElementById('live-note');
          if (note) { note.hidden = false; note.textContent = (count - next) + ' new events since this page was opened; the last page shows them.'; }
          return;
        }
        return fetch(rows.getAttribute('data-rows') + '&from=' + next, { credentials: 'same-origin', cache: 'no-store' })
          .then(function (r) { return r.ok ? r.text() : ''; })
          .then(function (text) {
            if (!text) return;
            // Rows come from this server, escaped there; nothing from the page is put into them.
            rows.insertAdjacentHTML('beforeend', text);
            rows.setAttribute('data-next', String(rows.querySelectorAll('tr.ev').length + Number(rows.getAttribute('data-first') || 0)));
          });
      })
      .catch(function () { /* the next tick tries again */ })
      .then(function () { busy = false; });
  }
  setInterval(tick, 1500);
  tick();
})();
`;
