import { byCodePoint } from '../util/compare.js';

/**
 * JSON with object keys sorted by code point and two-space indentation, so
 * the same scorecard always has the same bytes. `undefined` members are dropped.
 */
export function stableStringify(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/** The same, on one line (no indentation, no final newline): one record of a JSON-lines style list. */
export function stableLine(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort(byCodePoint)) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}
