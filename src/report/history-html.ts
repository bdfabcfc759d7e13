import type { AgentRecord, FlakyTest, RejectionCount, SlowTest } from '../history/queries.js';
import { byCodePoint } from '../util/compare.js';
import { esc, plural, scrollingTable } from './html/escape.js';
import { contentSecurityPolicy, pageHead } from './html/page.js';

/** What the dashboard shows: the answers of the `history` commands, for one scope. */
export interface DashboardData {
  /** The repository, or undefined for every repository in the store. */
  repository?: string;
  /** The store, fit to print. */
  where: string;
  since?: string;
  runs: { check: number; record: number };
  flaky: readonly (FlakyTest & { owner?: string })[];
  slowest: readonly SlowTest[];
  /** Per ISO week. */
  rejections: readonly RejectionCount[];
  agents: readonly AgentRecord[];
}

/**
 * No script at all: every name on the page (tests, identities, messages) was
 * written by some patch's author. The bars are SVG geometry, not inline
 * styles, which the policy would block.
 */
const CSP = contentSecurityPolicy(undefined);

const BAR_WIDTH = 160;

/** A horizontal bar for `value` of `max`, labelled for screen readers by the cell beside it. */
function bar(value: number, max: number): string {
  const w = max > 0 ? Math.max(1, Math.round((value / max) * BAR_WIDTH)) : 0;
  return `<svg class="bar" width="${BAR_WIDTH}" height="12" viewBox="0 0 ${BAR_WIDTH} 12" aria-hidden="true" focusable="false"><rect width="${w}" height="12" fill="currentColor"></rect></svg>`;
}

const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')}Z`;

function rejectionsSection(rows: readonly RejectionCount[]): string {
  const weeks = [...new Set(rows.map((r) => r.period))].sort(byCodePoint);
  const codes = [...new Set(rows.map((r) => r.code))].sort(byCodePoint);
  const cell = new Map(rows.map((r) => [`${r.period}\u0000${r.code}`, r.patches]));
  const totals = new Map(
    codes.map((c) => [c, rows.filter((r) => r.code === c).reduce((n, r) => n + r.patches, 0)]),
  );
  let max = 0;
  for (const n of totals.values()) max = Math.max(max, n);
  const body =
    rows.length === 0
      ? '<p>No patch was rejected in this scope.</p>'
      : `${scrollingTable(
          'h-rejections',
          'class="grid" id="rejections-by-week"',
          `<tr><th scope="col">code</th><th scope="col">all weeks</th>${weeks.map((w) => `<th scope="col">${esc(w)}</th>`).join('')}</tr>`,
          codes.map(
            (c) =>
              `<tr><th scope="row"><code>${esc(c)}</code></th><td>${totals.get(c) ?? 0} ${bar(totals.get(c) ?? 0, max)}</td>${weeks
                .map((w) => `<td>${cell.get(`${w}\u0000${c}`) ?? ''}</td>`)
                .join('')}</tr>`,
          ),
        )}<p class="note">Rejected patches (distinct head commits) with a rejecting finding of the code, per week starting on Monday (UTC).</p>`;
  return `<section id="rejections"><h2 id="h-rejections">Rejections by reason code</h2>${body}</section>`;
}

function agentsSection(rows: readonly AgentRecord[]): string {
  const codes = [...new Set(rows.flatMap((a) => Object.keys(a.codes)))].sort(byCodePoint);
  const body =
    rows.length === 0
      ? '<p>No judged patch names an identity.</p>'
      : scrollingTable(
          'h-agents',
          'class="grid" id="agents-table"',
          `<tr><th scope="col">identity</th><th scope="col">roles</th><th scope="col">patches</th><th scope="col">accepted</th><th scope="col">rejected</th><th scope="col">errors</th>${codes
            .map((c) => `<th scope="col"><code>${esc(c)}</code></th>`)
            .join('')}</tr>`,
          rows.map(
            (a) =>
              `<tr><th scope="row">${esc(a.names[0] ?? '')} &lt;${esc(a.email)}&gt;</th><td>${esc(a.roles.join(', '))}</td><td>${a.patches}</td><td>${a.accepted}</td><td>${a.rejected}</td><td>${a.errored}</td>${codes
                .map((c) => `<td>${a.codes[c] ?? ''}</td>`)
                .join('')}</tr>`,
          ),
        );
  return `<section id="agents"><h2 id="h-agents">Per-agent accountability</h2>${body}<p class="note">Identities are what the commits say (author, committer, Co-authored-by): a patch can sign as anyone, so this table is accounting, never evidence. A head judged twice counts once, by its latest run.</p></section>`;
}

function flakySection(rows: DashboardData['flaky']): string {
  const body =
    rows.length === 0
      ? '<p>No test flaked on a trusted run.</p>'
      : scrollingTable(
          'h-flaky',
          'class="grid" id="flaky-table"',
          '<tr><th scope="col">rate</th><th scope="col">flaky / runs</th><th scope="col">first seen</th><th scope="col">last seen</th><th scope="col">test</th><th scope="col">owner</th><th scope="col">latest failure</th></tr>',
          rows.map(
            (t) =>
              `<tr><td>${(t.rate * 100).toFixed(1)}% ${bar(t.rate, 1)}</td><td>${t.flakyRuns} / ${t.runs}</td><td>${esc(minute(t.firstSeen))}</td><td>${esc(minute(t.lastSeen))}</td><th scope="row"><code>${esc(t.testId)}</code>${t.file !== undefined ? `<br><span class="note">${esc(t.file)}</span>` : ''}</th><td>${t.owner !== undefined ? esc(t.owner) : '—'}</td><td>${t.template !== undefined ? `<code>${esc(t.template)}</code>` : '—'}</td></tr>`,
          ),
        );
  return `<section id="flaky"><h2 id="h-flaky">Flaky tests</h2>${body}<p class="note">Only trusted runs count: the base's checks on the base's code, and main-branch runs from <code>patchgate record</code>.</p></section>`;
}

function slowestSection(rows: readonly SlowTest[]): string {
  let max = 0;
  for (const t of rows) max = Math.max(max, t.meanMs);
  const body =
    rows.length === 0
      ? '<p>No trusted run reported a test duration.</p>'
      : scrollingTable(
          'h-slowest',
          'class="grid" id="slowest-table"',
          '<tr><th scope="col">mean</th><th scope="col">max</th><th scope="col">runs</th><th scope="col">test</th></tr>',
          rows.map(
            (t) =>
              `<tr><td>${t.meanMs} ms ${bar(t.meanMs, max)}</td><td>${t.maxMs} ms</td><td>${t.runs}</td><th scope="row"><code>${esc(t.testId)}</code></th></tr>`,
          ),
        );
  return `<section id="slowest"><h2 id="h-slowest">Slowest tests</h2>${body}</section>`;
}

/**
 * `history.html`: the run history's answers on one self-contained page (no
 * script, no network, no external file), built from the same queries as the
 * `history` commands. Same data, same bytes.
 */
export function renderHistoryDashboard(data: DashboardData): string {
  const scope = data.repository ?? 'every repository';
  const since = data.since !== undefined ? ` since ${data.since}` : '';
  return `${pageHead(`patchgate history · ${scope}`, CSP)}
<header>
<h1>patchgate history</h1>
<p id="scope">${esc(scope)}${esc(since)} in <code>${esc(data.where)}</code>: ${plural(data.runs.check, 'check run')}, ${plural(data.runs.record, 'main-branch record')}</p>
</header>
<nav class="toc" aria-label="sections"><ul><li><a href="#rejections">rejections</a></li><li><a href="#agents">agents</a></li><li><a href="#flaky">flaky tests</a></li><li><a href="#slowest">slowest tests</a></li></ul></nav>
<main>
${rejectionsSection(data.rejections)}
${agentsSection(data.agents)}
${flakySection(data.flaky)}
${slowestSection(data.slowest)}
</main>
<footer><p class="note">patchgate history dashboard · built from the same queries as <code>patchgate history</code>.</p></footer>
</body>
</html>
`;
}
