import type { Finding } from '../../layers/types.js';
import { findingCount } from '../aggregate.js';
import type { Scorecard } from '../scorecard.js';
import { duration, esc, plural } from './escape.js';

/** Codes in the order they first appear, with a count when one repeats: `FALSE_CLAIM ×2, HIT_SURFACE_SHRANK`. */
function codeList(findings: readonly Finding[]): string {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.code, (counts.get(f.code) ?? 0) + findingCount(f));
  return [...counts].map(([code, n]) => (n > 1 ? `${code} ×${n}` : code)).join(', ');
}

/** How many findings these are, an aggregate counting as the findings it stands for. */
function total(findings: readonly Finding[]): number {
  let n = 0;
  for (const f of findings) n += findingCount(f);
  return n;
}

/** The verdict in one line: what a maintainer reads first. */
export function verdictReason(card: Scorecard): string {
  const errors = card.findings.filter((f) => f.severity === 'error');
  const rejects = card.findings.filter((f) => f.severity === 'reject');
  const warns = total(card.findings.filter((f) => f.severity === 'warn'));
  if (card.verdict === 'error') {
    const n = total(errors);
    return n === 0
      ? 'error: the gate could not decide; an error is never an accept'
      : `error: the gate could not decide (${plural(n, 'error')}: ${codeList(errors)}); an error is never an accept`;
  }
  if (card.verdict === 'reject') {
    const n = total(rejects);
    return `reject: ${plural(n, 'finding')} ${n === 1 ? 'blocks' : 'block'} the merge — ${codeList(rejects)}`;
  }
  const notes: string[] = [];
  if (warns > 0) notes.push(`${plural(warns, 'warning')} recorded`);
  if (card.frozen.length > 0) notes.push(`${plural(card.frozen.length, 'frozen item')} listed`);
  if (card.overrides.length > 0) notes.push(`${plural(card.overrides.length, 'human override')} applied`);
  return `accept: no finding blocks the merge${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
}

export function verdictSection(card: Scorecard): string {
  const head = `${card.head.ref} ${card.head.commit.slice(0, 12)}${card.head.worktree ? ' + working tree' : ''}`;
  const isolation =
    card.isolation.mode === 'bwrap'
      ? `bubblewrap sandbox (${card.isolation.user === 'separate' ? 'another user' : 'same user'})`
      : `plain processes, no sandbox${card.isolation.reason ? `: ${card.isolation.reason}` : ''}`;
  return `<header class="verdict verdict-${esc(card.verdict)}" id="verdict">
<h1>patchgate: <span class="verdict-word">${esc(card.verdict)}</span></h1>
<p class="reason" id="verdict-reason">${esc(verdictReason(card))}</p>
<dl class="run">
<dt>base</dt><dd><code>${esc(card.base.ref)}</code> → merge-base <code>${esc(card.base.commit.slice(0, 12))}</code></dd>
<dt>head</dt><dd><code>${esc(head)}</code></dd>
<dt>rules</dt><dd><code>${esc(card.config.file)}</code> read from the base</dd>
<dt>today</dt><dd>${esc(card.today)}</dd>
<dt>head code</dt><dd>${esc(isolation)}</dd>
<dt>total time</dt><dd>${esc(duration(card.timings.totalMs))}</dd>${
    card.shard
      ? `\n<dt>shard</dt><dd id="shard"><strong>partial: shard ${card.shard.index} of ${card.shard.total}</strong> (${card.shard.testFiles} test file(s)); <code>patchgate merge</code> gives the run's verdict</dd>`
      : card.shards
        ? `\n<dt>shards</dt><dd id="shards">merged from ${card.shards.total} (${card.shards.plan.files} test file(s), split by ${esc(card.shards.plan.by)})</dd>`
        : ''
  }
</dl>
</header>`;
}

const STATUS_MARK: Record<string, string> = {
  pass: '✓',
  warn: '!',
  reject: '✕',
  error: '⚠',
  skipped: '–',
};

/** Each layer in gate order with its status, findings and time. */
export function layersSection(card: Scorecard): string {
  const rows = card.layers.map((l) => {
    const ms = card.timings.layers[l.name];
    const count =
      l.findings > 0 ? `<a href="#findings" data-layer-link="${esc(l.name)}">${l.findings}</a>` : '0';
    return `<tr class="layer status-${esc(l.status)}" data-layer="${esc(l.name)}">
<th scope="row">${esc(l.name)}</th>
<td><span class="badge status-${esc(l.status)}"><span aria-hidden="true">${STATUS_MARK[l.status] ?? ''}</span> ${esc(l.status)}</span>${(l.reason ?? l.note) ? ` <span class="note">${esc(l.reason ?? l.note ?? '')}</span>` : ''}</td>
<td class="num">${count}</td>
<td class="num">${ms === undefined ? '—' : esc(duration(ms))}</td>
</tr>`;
  });
  const t = card.timings;
  return `<section id="layers" aria-labelledby="layers-h">
<h2 id="layers-h">Layers, in gate order</h2>
<table class="layers">
<thead><tr><th scope="col">layer</th><th scope="col">status</th><th scope="col">findings</th><th scope="col">time</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
<p class="note">Besides the layers: revisions ${esc(duration(t.revisionsMs))}, setup ${esc(duration(t.setupMs))}, cleanup ${esc(duration(t.cleanupMs))}.</p>
</section>`;
}
