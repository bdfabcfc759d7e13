import { isReasonCode, REASON_CODES } from '../../codes.js';
import type { Finding, Override } from '../../layers/types.js';
import { byCodePoint } from '../../util/compare.js';
import { findingCount } from '../aggregate.js';
import { attrs, esc, longText, plural } from './escape.js';

/**
 * The findings, every one in the markup (readable without JavaScript), each
 * with its message, its evidence as a definition list (long values cut
 * behind a "show more"), and the human next step highlighted. The filter
 * controls are hidden until the inline script shows them: without it they
 * would do nothing.
 */

/** Past this many characters an array of plain values is shown cut. */
const LIST_CHARS = 240;
/** Items of a list of objects shown before the rest is folded. */
const LIST_ITEMS = 8;

const isPlain = (x: unknown) => typeof x !== 'object' || x === null;

function valueHtml(v: unknown, depth = 0): string {
  if (v === null || v === undefined) return '<span class="note">none</span>';
  if (typeof v === 'string') return v === '' ? '<span class="note">(empty)</span>' : longText(v);
  if (typeof v === 'number' || typeof v === 'boolean') return esc(String(v));
  if (Array.isArray(v)) {
    if (v.length === 0) return '<span class="note">none</span>';
    if (v.every(isPlain))
      return `${longText(v.map((x) => String(x)).join(', '), LIST_CHARS)} <span class="note">(${v.length})</span>`;
    // A list of records (changes, candidates): one compact line each, the tail folded.
    const item = (x: unknown) => `<li>${longText(JSON.stringify(x) ?? String(x), 160)}</li>`;
    const shown = v.slice(0, LIST_ITEMS).map(item).join('');
    const rest = v.slice(LIST_ITEMS);
    return `<ul class="items">${shown}</ul>${
      rest.length > 0
        ? `<details class="more"><summary>show ${rest.length} more</summary><ul class="items">${rest.map(item).join('')}</ul></details>`
        : ''
    }`;
  }
  if (typeof v === 'object' && depth < 1) {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '<span class="note">none</span>';
    return `<dl class="evidence">${entries.map(([k, x]) => `<dt>${esc(k)}</dt><dd>${valueHtml(x, depth + 1)}</dd>`).join('')}</dl>`;
  }
  return longText(JSON.stringify(v) ?? String(v), LIST_CHARS, 'pre');
}

function evidenceList(evidence: Finding['evidence']): string {
  const items = Object.entries(evidence).filter(([k, v]) => k !== 'next' && v !== undefined);
  if (items.length === 0) return '';
  return `<dl class="evidence">
${items.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${valueHtml(v)}</dd>`).join('\n')}
</dl>`;
}

/**
 * The human next step: the layer's own (`evidence.next`), the override that
 * accepted it, the override variable a human job may set (`evidence.override`),
 * or where to read the way out.
 */
function nextStep(f: Finding, overrides: readonly Override[]): string {
  const path = f.evidence.path ?? f.evidence.file;
  const o = overrides.find(
    (x) => x.code === f.code && x.layer === f.layer && (path === undefined || x.path === path),
  );
  if (o)
    return `<p class="next"><strong>Accepted by a human override:</strong> <code>${esc(o.variable)}</code> was set for <code>${esc(o.path)}</code>.</p>`;
  const override =
    typeof f.evidence.override === 'string' && f.evidence.override !== '' ? f.evidence.override : undefined;
  const overrideText = override
    ? `a human job (never the patch) may accept it by setting <code>${esc(override)}</code>`
    : '';
  const next = f.evidence.next;
  if (typeof next === 'string' && next !== '')
    return `<p class="next"><strong>Next step:</strong> ${longText(next, 600)}${override ? `<br><strong>Human override:</strong> ${overrideText}.` : ''}</p>`;
  if (override)
    return `<p class="next"><strong>Next step:</strong> fix the patch, or ${overrideText}. <code>patchgate explain ${esc(f.code)}</code> says more.</p>`;
  // The code's own next step, so the reviewer never has to leave the page for the common case.
  const generic = isReasonCode(f.code) ? REASON_CODES[f.code].next : undefined;
  if (generic)
    return `<p class="next"><strong>Next step:</strong> ${esc(generic)} <code>patchgate explain ${esc(f.code)}</code> says more.</p>`;
  return `<p class="next"><strong>Next step:</strong> <code>patchgate explain ${esc(f.code)}</code> says what the code means and the human path to resolve it.</p>`;
}

function findingItem(f: Finding, i: number, overrides: readonly Override[]): string {
  const meaning = isReasonCode(f.code) ? REASON_CODES[f.code].meaning : undefined;
  return `<li${attrs({ class: `finding sev-${f.severity}`, id: `finding-${i + 1}`, 'data-layer': f.layer, 'data-code': f.code })}>
<h3><span class="badge sev-${esc(f.severity)}">${esc(f.severity)}</span> <code class="code">${esc(f.code)}</code> <span class="layer-name">${esc(f.layer)}</span></h3>
<p class="message">${longText(f.message, 600)}</p>
${nextStep(f, overrides)}
${evidenceList(f.evidence)}
${meaning ? `<details class="meaning"><summary>what ${esc(f.code)} means</summary><p>${esc(meaning)}</p></details>` : ''}
</li>`;
}

function options(values: readonly string[], all: string): string {
  return [
    `<option value="">${esc(all)}</option>`,
    ...values.map((v) => `<option${attrs({ value: v })}>${esc(v)}</option>`),
  ].join('');
}

export function findingsSection(findings: readonly Finding[], overrides: readonly Override[]): string {
  let blocking = 0;
  let count = 0;
  for (const f of findings) {
    count += findingCount(f);
    if (f.severity !== 'warn') blocking += findingCount(f);
  }
  const layers = [...new Set(findings.map((f) => f.layer))];
  const codes = [...new Set(findings.map((f) => f.code))].sort(byCodePoint);
  const overrideList =
    overrides.length > 0
      ? `<h3>Human overrides</h3>
<p>A human job set a token; its value is never recorded.</p>
<ul class="overrides">${overrides.map((o) => `<li><code>${esc(o.code)}</code> <code>${esc(o.path)}</code> via <code>${esc(o.variable)}</code> (${esc(o.layer)})</li>`).join('')}</ul>`
      : '';
  if (findings.length === 0)
    return `<section id="findings" aria-labelledby="findings-h">
<h2 id="findings-h">Findings</h2>
<p>No findings.</p>
${overrideList}
</section>`;
  return `<section id="findings" aria-labelledby="findings-h">
<h2 id="findings-h">Findings</h2>
<p>${esc(`${plural(count, 'finding')}, ${blocking} of them blocking (reject or error); warnings are recorded and do not block.`)}</p>
<form id="finding-filter" class="filters" hidden>
<label for="filter-layer">layer</label> <select id="filter-layer" name="layer">${options(layers, 'all layers')}</select>
<label for="filter-code">code</label> <select id="filter-code" name="code">${options(codes, 'all codes')}</select>
<output id="finding-count" for="filter-layer filter-code" aria-live="polite"></output>
</form>
<ol class="findings" id="finding-list">
${findings.map((f, i) => findingItem(f, i, overrides)).join('\n')}
</ol>
${overrideList}
</section>`;
}
