import type { MutantRow, MutationFunctionRow, MutationReport } from './artifacts.js';
import { esc, longText, plural } from './escape.js';

/**
 * The mutation probe (mutation.json): per changed function, how many of its
 * mutants the base's tests kill on the base and on the head's code, side by
 * side, and each mutant with both verdicts. A mutant killed on the base and
 * surviving on the head is the kill surface shrinking; a function with no
 * kill on the head is changed code no trusted test sees.
 */

const STATUS_TEXT: Record<string, string> = {
  killed: 'killed',
  survived: 'survived',
  unreached: 'no test reaches it',
  'not-run': 'not run',
};

const count = (f: MutationFunctionRow, side: 'base' | 'head', status: string) =>
  f.mutants.filter((m) => m[side] === status).length;

/** Why a mutant did not run on the base: it is not there, or the head's code killed it (no shrink to look for). */
function baseText(m: MutantRow): string | undefined {
  if (m.base !== 'not-run') return undefined;
  if (m.onBase === false) return 'not on the base';
  return m.head === 'killed' ? 'not needed: killed on the head' : undefined;
}

function verdictCell(status: string, by: readonly string[], bad: boolean, text?: string): string {
  const cls = status === 'killed' ? 'status-pass' : bad ? 'status-reject' : 'status-skipped';
  return `<td><span class="badge ${cls}">${esc(text ?? STATUS_TEXT[status] ?? status)}</span>${by.length > 0 ? `<br><span class="note">${by.map((t) => esc(t)).join('<br>')}</span>` : ''}</td>`;
}

function mutantRow(m: MutantRow): string {
  const shrank = m.base === 'killed' && m.head === 'survived';
  return `<tr class="mutant${shrank ? ' mutant-shrank' : ''}">
<td class="num">${m.line ?? ''}</td>
<td><code>${esc(m.operator)}</code></td>
<td><code>${longText(m.original, 80)}</code> → <code>${longText(m.mutated, 80)}</code></td>
${verdictCell(m.base, m.baseBy, false, baseText(m))}
${verdictCell(m.head, m.headBy, shrank)}
</tr>`;
}

function functionRows(f: MutationFunctionRow): string {
  const shrank = f.mutants.some((m) => m.base === 'killed' && m.head === 'survived');
  const unseen = !shrank && f.mutants.some((m) => m.head !== 'not-run') && count(f, 'head', 'killed') === 0;
  const flag = shrank ? ' fn-shrank' : unseen ? ' fn-unseen' : '';
  const lines = f.changed.length > 0 ? `:${f.changed[0]}` : '';
  return `<tbody class="mutation-fn${flag}">
<tr><th scope="rowgroup" colspan="3"><code>${esc(f.function)}</code> <span class="note">${esc(f.file)}${esc(lines)}${f.onBase ? '' : ' · new in the patch'}${f.skipped > 0 ? ` · ${esc(plural(f.skipped, 'mutant'))} over the budget` : ''}</span></th>
<td>${f.onBase ? `${count(f, 'base', 'killed')} killed · ${count(f, 'base', 'survived')} survived` : '—'}</td>
<td>${count(f, 'head', 'killed')} killed · ${count(f, 'head', 'survived')} survived${shrank ? ' <span class="badge status-reject">kill surface shrank</span>' : unseen ? ' <span class="badge status-warn">unseen</span>' : ''}</td></tr>
${f.mutants.map(mutantRow).join('\n')}
</tbody>`;
}

export function mutationSection(report: MutationReport | undefined): string {
  if (!report) return '';
  const defeats =
    report.defeats.length > 0
      ? `<ul class="problems">${report.defeats.map((d) => `<li><code>${esc(d.file)}</code>: ${longText(d.why)}</li>`).join('')}</ul>`
      : '';
  const tests =
    report.scope === 'all'
      ? 'every test file of the base'
      : `${plural(report.testFiles.length, 'test file')} of the base that reach the changed files`;
  return `<section id="mutation" aria-labelledby="mutation-h">
<h2 id="mutation-h">Mutation probe</h2>
<p class="note">Mutants of each function the patch changed, run with ${esc(tests)}: killed on the base's code and on the head's, side by side. A mutant the head's code kills is not run on the base: it cannot show a shrink.${report.skipped > 0 ? ` ${esc(plural(report.skipped, 'mutant'))} over the budget (mutation.maxMutants) did not run.` : ''}</p>
${defeats}
${
  report.functions.length > 0
    ? `<table class="mutation">
<thead><tr><th scope="col">line</th><th scope="col">operator</th><th scope="col">mutant</th><th scope="col">base</th><th scope="col">head</th></tr></thead>
${report.functions.map(functionRows).join('\n')}
</table>`
    : '<p>No changed function had a mutant.</p>'
}
</section>`;
}
