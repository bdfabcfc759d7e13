/**
 * Every string in the report that did not come from this module's own
 * templates (test names, messages, paths, evidence: text the patch under
 * judgement may have written) goes through `esc`, in text and in attribute
 * values alike. Nothing from the scorecard is ever put inside the inline
 * script or style.
 */
import { displayText } from '../../util/display-text.js';

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

const SPECIAL = /[&<>"'`]/;
const SPECIALS = /[&<>"'`]/g;

/**
 * Text for an element's content or a quoted attribute value. Display-safe
 * first: a bidi override in a test name would reorder the line a reviewer
 * reads (and the escapes are JSON's, so a data attribute holding JSON still
 * parses to the same value).
 */
export function esc(value: unknown): string {
  const s = displayText(typeof value === 'string' ? value : String(value));
  return SPECIAL.test(s) ? s.replace(SPECIALS, (c) => ENTITIES[c] ?? c) : s;
}

/** ` name="value"` pairs, escaped; `false`, `undefined` and `null` values are left out, `true` is a bare attribute. */
export function attrs(pairs: Record<string, string | number | boolean | undefined | null>): string {
  let out = '';
  for (const [name, value] of Object.entries(pairs)) {
    if (value === undefined || value === null || value === false) continue;
    out += value === true ? ` ${name}` : ` ${name}="${esc(value)}"`;
  }
  return out;
}

/** Past this many characters a value is cut, and the whole of it sits behind a "show more". */
export const SHOWN_CHARS = 240;

/**
 * A long string as its first `SHOWN_CHARS` characters and a closed
 * `<details>` holding all of it, so no cell or list item is a wall of text.
 */
export function longText(value: string, shown = SHOWN_CHARS, tag: 'span' | 'pre' = 'span'): string {
  const cls = tag === 'pre' ? ' class="code"' : '';
  if (value.length <= shown) return `<${tag}${cls}>${esc(value)}</${tag}>`;
  // Cut on a code point, never inside a surrogate pair.
  const head = Array.from(value).slice(0, shown).join('');
  return (
    `<${tag}${cls}>${esc(head)}…</${tag}>` +
    `<details class="more"><summary>show more (${value.length} characters)</summary>` +
    `<${tag}${cls}>${esc(value)}</${tag}></details>`
  );
}

/** `1 finding`, `2 findings`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A duration for people: `35 ms`, `3.1 s`, `2 min 5 s`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * A wide table in a scroll region a keyboard can reach and a screen reader
 * names (by the heading `labelledBy`); `table` is the table's attributes.
 */
export function scrollingTable(
  labelledBy: string,
  table: string,
  head: string,
  rows: readonly string[],
): string {
  return `<div class="scroll" role="region" tabindex="0" aria-labelledby="${labelledBy}">
<table ${table}>
<thead>${head}</thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</div>`;
}
