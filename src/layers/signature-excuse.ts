/**
 * A failure a signature row excused, as the scorecard lists it: an accept must
 * say what it did not count. Shared by every layer that checks failures
 * against `flake_signatures.json` (the head's own run, the overlay's).
 */
import type { SignatureFreezeRow } from '../freeze/signature-freeze.js';
import type { FrozenItem } from './types.js';

export function excusedBySignature(
  layer: string,
  test: string,
  row: SignatureFreezeRow,
  freezeFile: string,
  template: string,
): FrozenItem {
  return {
    layer,
    covers: test,
    matched: row.template ?? template,
    owner: row.owner ?? '',
    expires: row.expires ?? '',
    action: row.action ?? '',
    source:
      row.line === undefined
        ? { file: freezeFile, index: row.index }
        : { file: freezeFile, index: row.index, line: row.line },
    ...(row.source === 'baseline' ? { origin: 'baseline' as const } : {}),
  };
}
