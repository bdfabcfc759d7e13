/**
 * The report's one stylesheet and one script, inline so the file stands on
 * its own (file://, a CI artifact, no network). Neither holds anything from
 * the scorecard: the script reads the cells' data attributes and writes
 * them with textContent only. The page's Content-Security-Policy allows
 * exactly these two blocks, by hash.
 */

export const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa; --code: #eff1f3;
  --accept: #1a7f37; --reject: #cf222e; --error: #9a6700; --warn: #9a6700; --link: #0550ae;
  --hit: #2da44e; --hit-fg: #ffffff; --unclaimed: #bf8700; --unclaimed-fg: #1b1f24;
  --false: #ffffff; --false-fg: #cf222e; --lost: #cf222e; --lost-fg: #ffffff;
  --zero: #ffebe9; --near: #fff8c5; --expired: #ffebe9; --focus: #0969da;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23; --code: #1f2630;
    --accept: #3fb950; --reject: #f85149; --error: #d29922; --warn: #d29922; --link: #58a6ff;
    --hit: #2ea043; --hit-fg: #ffffff; --unclaimed: #d29922; --unclaimed-fg: #0d1117;
    --false: #0d1117; --false-fg: #f85149; --lost: #da3633; --lost-fg: #ffffff;
    --zero: #3c1618; --near: #3b2e0a; --expired: #3c1618; --focus: #58a6ff;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { background: var(--bg); color: var(--fg); }
body { margin: 0 auto; max-width: 90rem; padding: 1rem 1.5rem 3rem; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--fg); }
a { color: var(--link); }
code, pre, .code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
code { background: var(--code); padding: 0 0.25em; border-radius: 3px; overflow-wrap: anywhere; }
pre, .code { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
h1 { margin: 0 0 0.25rem; font-size: 1.6rem; }
h2 { margin: 2rem 0 0.5rem; font-size: 1.25rem; border-bottom: 1px solid var(--line); padding-bottom: 0.25rem; }
h3 { margin: 1rem 0 0.25rem; font-size: 1rem; }
.note { color: var(--muted); font-size: 0.9em; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 0.5rem; background: var(--bg); padding: 0.25rem 0.5rem; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
nav.toc ul { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; list-style: none; padding: 0; margin: 0.5rem 0 0; }
.verdict { border-left: 6px solid var(--muted); padding: 0.5rem 1rem; background: var(--panel); border-radius: 4px; }
.verdict-accept { border-color: var(--accept); }
.verdict-reject { border-color: var(--reject); }
.verdict-error { border-color: var(--error); }
.verdict-accept .verdict-word { color: var(--accept); }
.verdict-reject .verdict-word { color: var(--reject); }
.verdict-error .verdict-word { color: var(--error); }
.reason { font-size: 1.1rem; font-weight: 600; margin: 0.25rem 0 0.5rem; overflow-wrap: anywhere; }
dl.run { display: grid; grid-template-columns: max-content 1fr; gap: 0 1rem; margin: 0; }
dl.run dt { color: var(--muted); }
dl.run dd { margin: 0; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid var(--line); padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
thead th { background: var(--panel); }
caption { text-align: left; font-weight: 600; padding: 0.25rem 0; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 0 0.4em; border-radius: 999px; border: 1px solid currentColor; font-size: 0.85em; white-space: nowrap; }
.badge.status-pass { color: var(--accept); }
.badge.status-reject, .badge.sev-reject { color: var(--reject); }
.badge.status-error, .badge.sev-error { color: var(--error); }
.badge.status-warn, .badge.sev-warn { color: var(--warn); }
.badge.status-skipped { color: var(--muted); }
tr.layer.status-reject th, tr.layer.status-error th { color: var(--reject); }
tr.mutant-shrank td { background: color-mix(in srgb, var(--reject) 10%, transparent); }
.scroll { overflow-x: auto; max-width: 100%; }
.sides { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
.sides > .side { flex: 1 1 24rem; min-width: 0; }
.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem; }
.swatch { display: inline-block; width: 1.6em; text-align: center; border: 1px solid var(--line); border-radius: 3px; }
table.heatmap th.path { vertical-align: bottom; padding: 0.25rem; }
table.heatmap th.path span { display: inline-block; writing-mode: vertical-rl; transform: rotate(180deg); max-height: 14rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
table.heatmap td { padding: 0; text-align: center; min-width: 2rem; }
table.heatmap td.na { background: repeating-linear-gradient(45deg, transparent 0 4px, var(--line) 4px 5px); }
table.heatmap th.prop { white-space: nowrap; }
tr.zero-hit th, tr.zero-hit td { background: var(--zero); }
tr.zero-hit th { border-left: 4px solid var(--reject); }
.badge.zero { color: var(--reject); font-weight: 700; }
.badge.absent { color: var(--muted); }
.count { color: var(--muted); font-size: 0.85em; }
button.cell { width: 100%; min-width: 2rem; height: 2rem; border: 0; margin: 0; padding: 0; cursor: pointer; font: inherit; font-size: 1rem; background: transparent; color: inherit; }
.s-hit, .s-hit button.cell, .swatch.s-hit { background: var(--hit); color: var(--hit-fg); }
.s-unclaimed, .s-unclaimed button.cell, .swatch.s-unclaimed { background: var(--unclaimed); color: var(--unclaimed-fg); }
.s-false-claim, .s-false-claim button.cell, .swatch.s-false-claim { background: var(--false); color: var(--false-fg); box-shadow: inset 0 0 0 2px var(--false-fg); }
.s-lost, .s-lost button.cell, .swatch.s-lost { background: var(--lost); color: var(--lost-fg); }
.swatch.zero { background: var(--zero); color: var(--reject); }
button.cell.selected { outline: 3px solid var(--fg); outline-offset: -3px; }
.panel { border: 1px solid var(--line); background: var(--panel); border-radius: 4px; padding: 0.5rem 1rem; margin-top: 1rem; min-height: 3rem; }
.panel ul { margin: 0.25rem 0; }
table.diff { min-width: min(36rem, 100%); }
table.diff td.from code { text-decoration: line-through; text-decoration-color: var(--reject); }
table.diff td.to code { font-weight: 600; }
table.diff td.arrow { border-left: 0; border-right: 0; color: var(--muted); }
td.c-bad { background: var(--expired); }
.badge.c-bound { color: var(--accept); }
.badge.c-empty, .badge.c-missing, .badge.c-blocked, .badge.c-unreviewed { color: var(--reject); font-weight: 700; }
td.claim-cell code, td.claim-cell .why, td.claim-cell .note { display: block; margin-top: 0.15rem; }
td.statement { max-width: 28rem; }
tr.exp-expired td, tr.exp-expired th { background: var(--expired); }
tr.exp-near td, tr.exp-near th { background: var(--near); }
.badge.exp-expired { color: var(--reject); font-weight: 700; }
.badge.exp-near { color: var(--warn); font-weight: 700; }
.badge.exp-ok { color: var(--accept); }
.filters { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; margin: 0.5rem 0; }
.filters select { font: inherit; background: var(--bg); color: var(--fg); border: 1px solid var(--line); border-radius: 4px; padding: 0.1rem 0.3rem; }
ol.findings { list-style: none; padding: 0; margin: 0; }
li.finding { border: 1px solid var(--line); border-left: 5px solid var(--muted); border-radius: 4px; padding: 0.25rem 1rem 0.75rem; margin: 0.75rem 0; }
li.finding.sev-reject { border-left-color: var(--reject); }
li.finding.sev-error { border-left-color: var(--error); }
li.finding.sev-warn { border-left-color: var(--warn); }
li.finding h3 { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: baseline; }
.layer-name { color: var(--muted); font-weight: 400; }
.message { overflow-wrap: anywhere; }
.next { background: var(--near); border-left: 4px solid var(--warn); padding: 0.35rem 0.75rem; margin: 0.5rem 0; overflow-wrap: anywhere; }
dl.evidence { display: grid; grid-template-columns: minmax(6rem, max-content) minmax(0, 1fr); gap: 0.15rem 1rem; margin: 0.5rem 0; }
dl.evidence dt { color: var(--muted); font-family: ui-monospace, monospace; font-size: 0.85em; }
dl.evidence dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
dl.evidence dl.evidence { margin: 0; }
dl.evidence dd > span, .message > span, .next > span { white-space: pre-wrap; }
ul.items { margin: 0; padding-left: 1.1rem; }
details.more summary, details.meaning summary { cursor: pointer; color: var(--link); font-size: 0.85em; }
details.meaning { font-size: 0.9em; color: var(--muted); }
@media print { .filters, .skip { display: none; } details.more > :not(summary) { display: block; } }
`;

/** Written as plain ES2017 for any browser the artifact is opened in; reads data-* attributes, writes textContent. */
export const SCRIPT = `
(function () {
  'use strict';
  var panel = document.getElementById('cell-detail');
  function parse(s) {
    try { var v = JSON.parse(s || '[]'); return Array.isArray(v) ? v : []; } catch (e) { return []; }
  }
  function el(tag, text, cls) {
    var n = document.createElement(tag);
    if (text !== undefined) n.textContent = text;
    if (cls) n.className = cls;
    return n;
  }
  function ops(title, list, empty) {
    var box = el('div');
    box.appendChild(el('h4', title));
    if (list.length === 0) { box.appendChild(el('p', empty, 'note')); return box; }
    var ul = el('ul', undefined, 'ops');
    list.forEach(function (op) { ul.appendChild(el('li')).appendChild(el('code', String(op))); });
    box.appendChild(ul);
    return box;
  }
  function show(b) {
    if (!panel) return;
    var prev = document.querySelectorAll('button.cell.selected');
    for (var i = 0; i < prev.length; i++) prev[i].classList.remove('selected');
    b.classList.add('selected');
    var d = b.dataset;
    var here = parse(d.ops);
    var lost = parse(d.lostOps);
    var head = el('h3');
    head.appendChild(el('code', d.property));
    head.appendChild(document.createTextNode(' \\u00b7 '));
    head.appendChild(el('code', d.path));
    var parts = [head, el('p', d.state + ' \\u2014 ' + d.side + ', fixture ' + d.fixture)];
    var lostState = b.classList.contains('s-lost');
    if (!lostState) parts.push(ops('operators that made it fail (' + d.side + ')', here, 'no operator made the property fail through this path'));
    if (lost.length > 0 || lostState) parts.push(ops(lostState ? 'operators that made it fail on the base' : 'operators lost since base', lost, 'none'));
    panel.replaceChildren.apply(panel, parts);
  }
  document.addEventListener('click', function (e) {
    var t = e.target;
    var b = t && t.closest ? t.closest('button.cell') : null;
    if (b) show(b);
  });

  var form = document.getElementById('finding-filter');
  var layer = document.getElementById('filter-layer');
  var code = document.getElementById('filter-code');
  var count = document.getElementById('finding-count');
  var items = document.querySelectorAll('#finding-list > li.finding');
  function apply() {
    var l = layer ? layer.value : '';
    var c = code ? code.value : '';
    var shown = 0;
    for (var i = 0; i < items.length; i++) {
      var li = items[i];
      var ok = (!l || li.dataset.layer === l) && (!c || li.dataset.code === c);
      li.hidden = !ok;
      if (ok) shown++;
    }
    if (count) count.textContent = shown + ' of ' + items.length + ' shown';
  }
  if (form) {
    form.hidden = false;
    form.addEventListener('change', apply);
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    apply();
  }
  var links = document.querySelectorAll('a[data-layer-link]');
  for (var j = 0; j < links.length; j++) {
    links[j].addEventListener('click', function (e) {
      if (!layer) return;
      var name = e.currentTarget.getAttribute('data-layer-link');
      var known = false;
      for (var k = 0; k < layer.options.length; k++) if (layer.options[k].value === name) known = true;
      if (!known) return;
      layer.value = name;
      if (code) code.value = '';
      apply();
    });
  }
})();
`;
