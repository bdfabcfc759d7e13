import type { ClaimCell, ClaimRow, ClaimsReport } from './artifacts.js';
import { esc, longText } from './escape.js';

/**
 * The claim matrix (claims.json): each claim of the base's matrix with its
 * three cells as this run resolved them. A cell that is not bound (empty,
 * missing, unreviewed, blocked) is a merge blocker and is marked.
 */

const CELL_NAMES = ['fixture', 'property', 'freeze'] as const;

const STATUS_TEXT: Record<string, string> = {
  bound: 'bound',
  empty: 'empty',
  missing: 'missing',
  unreviewed: 'unreviewed',
  blocked: 'blocked',
};

const MARK: Record<string, string> = { bound: '✓', empty: '∅', missing: '?', unreviewed: '!', blocked: '⛔' };

function detailLine(detail: Record<string, unknown> | undefined): string {
  if (!detail) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(detail)) {
    if (v === undefined || v === null || typeof v === 'object') continue;
    // A digest says nothing to a reader beyond "locked"; its first characters are enough to compare.
    const s = k === 'digest' && typeof v === 'string' ? `${v.slice(0, 12)}…` : String(v);
    parts.push(`${k}: ${s}`);
  }
  return parts.length > 0 ? `<span class="note">${esc(parts.join(' · '))}</span>` : '';
}

function cellHtml(claim: string, name: string, cell: ClaimCell | undefined): string {
  if (!cell) return `<td class="claim-cell c-none"><span class="note">not judged</span></td>`;
  const status = STATUS_TEXT[cell.status] ?? cell.status;
  const bad = cell.status !== 'bound';
  return `<td class="claim-cell c-${esc(cell.status)}${bad ? ' c-bad' : ''}" aria-label="${esc(`${claim} ${name}: ${status}${cell.value ? `, ${cell.value}` : ''}`)}">
<span class="badge c-${esc(cell.status)}"><span aria-hidden="true">${MARK[cell.status] ?? '•'}</span> ${esc(status)}</span>
${cell.value ? `<code>${longText(cell.value, 120)}</code>` : ''}
${cell.why ? `<span class="why">${longText(cell.why)}</span>` : ''}
${detailLine(cell.detail)}
</td>`;
}

function matrixTable(rows: readonly ClaimRow[], id: string, caption: string): string {
  const body = rows.map((r) => {
    const where = `${r.source.file}${r.source.line !== undefined ? `:${r.source.line}` : ''}`;
    const problems =
      r.statement_problems.length > 0
        ? `<ul class="problems">${r.statement_problems.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>`
        : '';
    const bad = CELL_NAMES.some((n) => r.cells[n] !== undefined && r.cells[n]?.status !== 'bound');
    return `<tr class="claim${bad ? ' claim-bad' : ''}" data-claim="${esc(r.id)}">
<th scope="row"><code>${esc(r.id)}</code><br><span class="note">${esc(where)}</span></th>
<td class="statement">${longText(r.statement)}${problems}</td>
${CELL_NAMES.map((n) => cellHtml(r.id, n, r.cells[n])).join('\n')}
</tr>`;
  });
  return `<table class="claims" id="${id}">
<caption>${esc(caption)}</caption>
<thead><tr><th scope="col">claim</th><th scope="col">statement</th><th scope="col">fixture</th><th scope="col">property</th><th scope="col">freeze</th></tr></thead>
<tbody>
${body.join('\n')}
</tbody>
</table>`;
}

export function claimsSection(report: ClaimsReport | undefined): string {
  if (!report) return '';
  const bad = report.claims.filter((r) =>
    CELL_NAMES.some((n) => r.cells[n] !== undefined && r.cells[n]?.status !== 'bound'),
  ).length;
  const window =
    report.window_runs !== undefined ? `; freeze windows of ${report.window_runs} runs in ` : '; ledger ';
  return `<section id="claims" aria-labelledby="claims-h">
<h2 id="claims-h">Claim matrix</h2>
<p>Every claim must be bound to a locked fixture, a property that ran and can fail, and an open freeze window. ${esc(`${report.claims.length} claims, ${bad} with a cell that is not bound${window}`)}<code>${esc(report.ledger)}</code>.</p>
${report.claims.length > 0 ? matrixTable(report.claims, 'claims-base', "the base's matrix (what is judged)") : '<p>The matrix holds no claim.</p>'}
${report.head_claims.length > 0 ? matrixTable(report.head_claims, 'claims-head', "the patch's own edits of the matrix (shown, not judged: editing the matrix is CONTRACT_TOUCHED)") : ''}
</section>`;
}
