import type { Finding } from '../../layers/types.js';
import { esc, longText, plural } from './escape.js';

/**
 * A changed fixture as the values that moved: FIXTURE_CHANGED evidence
 * carries the fixture's `format` and `changes: [{key, from, to}]` (which
 * input's expected value, which JSON leaf, which line), and `more` when the
 * list was cut.
 */

interface Change {
  key: string;
  from: string | null;
  to: string | null;
}

const FORMAT_TEXT: Record<string, { key: string; what: string }> = {
  tsv: { key: 'input', what: 'table-driven corpus (input⇥expected lines)' },
  jsonl: { key: 'input', what: 'table-driven corpus (JSON lines)' },
  json: { key: 'JSON path', what: 'JSON document' },
  text: { key: 'line', what: 'text' },
};

function changesOf(f: Finding): Change[] | undefined {
  const list = f.evidence.changes;
  if (!Array.isArray(list)) return undefined;
  const out: Change[] = [];
  for (const c of list) {
    if (typeof c !== 'object' || c === null) continue;
    const { key, from, to } = c as Record<string, unknown>;
    if (typeof key !== 'string') continue;
    const side = (v: unknown) =>
      typeof v === 'string' ? v : v === null || v === undefined ? null : String(v);
    out.push({ key, from: side(from), to: side(to) });
  }
  return out;
}

const value = (v: string | null, missing: string) =>
  v === null ? `<span class="note">${missing}</span>` : `<code>${longText(v)}</code>`;

function diffTable(f: Finding, changes: Change[], n: number): string {
  const path = typeof f.evidence.path === 'string' ? f.evidence.path : '(fixture)';
  const format = typeof f.evidence.format === 'string' ? f.evidence.format : 'text';
  const fmt = FORMAT_TEXT[format] ?? { key: 'key', what: format };
  const more = typeof f.evidence.more === 'number' && f.evidence.more > 0 ? f.evidence.more : 0;
  const rows = changes.map(
    (c) =>
      `<tr><th scope="row"><code>${longText(c.key)}</code></th><td class="from">${value(c.from, '(added)')}</td><td class="arrow" aria-hidden="true">→</td><td class="to">${value(c.to, '(removed)')}</td></tr>`,
  );
  const owner = typeof f.evidence.owner === 'string' ? ` · owner ${esc(f.evidence.owner)}` : '';
  return `<table class="diff" id="diff-${n}">
<caption><code>${esc(path)}</code> <span class="note">${esc(fmt.what)}${owner} · ${esc(f.severity === 'warn' ? 'accepted by a human override' : f.severity)}</span></caption>
<thead><tr><th scope="col">${esc(fmt.key)}</th><th scope="col">base</th><th scope="col"><span class="sr-only">becomes</span></th><th scope="col">head</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>${more > 0 ? `\n<p class="note">${plural(more, 'more change')} not listed.</p>` : ''}`;
}

export function fixtureDiffSection(findings: readonly Finding[]): string {
  const tables: string[] = [];
  for (const f of findings) {
    const changes = changesOf(f);
    if (!changes || changes.length === 0) continue;
    tables.push(diffTable(f, changes, tables.length));
  }
  if (tables.length === 0) return '';
  return `<section id="fixtures" aria-labelledby="fixtures-h">
<h2 id="fixtures-h">Changed fixtures: the values that moved</h2>
${tables.join('\n')}
</section>`;
}
