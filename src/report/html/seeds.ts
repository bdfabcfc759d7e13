import type { SeedReplayReport } from './artifacts.js';
import { esc, longText } from './escape.js';

/**
 * The recorded seeds as replayed: the head's own seed properties
 * (seed_replay.json) and the base's on the head's code
 * (seed_replay.overlay.json, when the patch touched the test side), side by
 * side.
 */

function title(name: string): string {
  return name === 'seed_replay.overlay.json'
    ? "overlay (the base's seed properties on the head's code)"
    : 'head (seed_replay.json)';
}

function table(r: SeedReplayReport, n: number): string {
  const counted = new Map(r.counts.map((c) => [c.property, c]));
  const rows = r.replays.map((x) => {
    const c = counted.get(x.property);
    return `<tr class="replay st-${esc(x.status)}">
<th scope="row"><code>${esc(x.property)}</code></th>
<td><code>${esc(x.seed)}</code></td>
<td><span class="badge ${x.status === 'pass' ? 'status-pass' : 'status-reject'}">${esc(x.status)}</span>${x.message ? ` ${longText(x.message, 160)}` : ''}</td>
<td class="num">${x.examples ?? c?.counted ?? '—'}</td>
<td>${c ? esc(c.how) : ''}</td>
</tr>`;
  });
  return `<section class="side" aria-labelledby="seeds-${n}-h">
<h3 id="seeds-${n}-h">${esc(title(r.name))}</h3>
<p class="note">tape <code>${esc(r.tape)}</code></p>
<table class="seeds">
<thead><tr><th scope="col">property</th><th scope="col">seed</th><th scope="col">replay</th><th scope="col">examples</th><th scope="col">counted by</th></tr></thead>
<tbody>
${rows.length > 0 ? rows.join('\n') : '<tr><td colspan="5">no seed replayed</td></tr>'}
</tbody>
</table>
</section>`;
}

export function seedsSection(reports: readonly SeedReplayReport[]): string {
  if (reports.length === 0) return '';
  return `<section id="seeds" aria-labelledby="seeds-h">
<h2 id="seeds-h">Seed replays</h2>
<div class="sides">${reports.map(table).join('\n')}</div>
</section>`;
}
